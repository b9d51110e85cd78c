import type { LiveCandidate } from './types';

export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
}

const MAX_TURNS = 12;
const MAX_TURN_CHARS = 2000;

/** The chat history an `@ledger` request comes with, newest turns kept, as one candidate. */
export function conversationCandidates(turns: readonly ChatTurn[]): LiveCandidate[] {
  const recent = turns.filter((t) => t.text.trim() !== '').slice(-MAX_TURNS);
  if (recent.length === 0) return [];
  const text = recent
    .map((t) => {
      const body = t.text.trim();
      return `**${t.role === 'user' ? 'User' : 'Assistant'}:** ${body.length > MAX_TURN_CHARS ? `${body.slice(0, MAX_TURN_CHARS - 1)}…` : body}`;
    })
    .join('\n\n');
  return [
    {
      key: 'conversation:chat',
      source: 'conversation',
      title: `Conversation so far (${recent.length} turn${recent.length === 1 ? '' : 's'})`,
      text,
      kind: 'markdown',
      prior: 0.6,
      origin: 'the chat this request is part of',
    },
  ];
}
