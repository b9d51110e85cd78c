/**
 * The `@ledger` chat participant's logic without the chat API: reading a /remember
 * message, the budget breakdown of /context and the answer of /explain. vscode-free.
 */
import { AGENT_ARTIFACT_TYPES, MAX_AGENT_BODY_CHARS, MAX_TITLE_CHARS } from '../../core/agentTools';
import type { AssembleResult, ExcludedItem, ResultItem } from '../../core/assemble/types';
import { type Artifact, type ArtifactType, artifactUrn } from '../../core/model';
import { describeStale } from '../../core/git';
import { isUnreviewed } from '../../core/review';
import { inline } from './lmToolModel';

// ------------------------------------------------------------------ /remember

export interface RememberDraft {
  type: ArtifactType;
  /** false when the type was guessed (the user is offered the other types). */
  typeGiven: boolean;
  typeGuessed: boolean;
  title: string;
  body: string;
}

const TYPE_ALIASES: Readonly<Record<string, ArtifactType>> = {
  adr: 'adr',
  pattern: 'pattern',
  plan: 'plan',
  'module memory': 'module_memory',
  module_memory: 'module_memory',
  'module-memory': 'module_memory',
  module: 'module_memory',
  convention: 'convention',
  rule: 'convention',
  decision: 'decision',
  decided: 'decision',
  learning: 'learning',
  learned: 'learning',
  til: 'learning',
  research: 'research',
  finding: 'research',
  findings: 'research',
  spike: 'research',
  dependency: 'dependency',
  changelog: 'changelog',
  note: 'note',
};

/** Words that give a type away, strongest first. */
const TYPE_HINTS: ReadonlyArray<[RegExp, ArtifactType]> = [
  [/\b(we|i|team)\s+(decided|chose|picked|agreed)\b|\bdecision\b|\binstead of\b/i, 'decision'],
  [/\b(always|never|must|must not|do not|don't)\b/i, 'convention'],
  [/\b(investigat(ed|ion)|spike|benchmark(ed)?|according to (the )?(docs|documentation)|findings?|we (compared|evaluated|measured))\b/i, 'research'],
  [/\b(learn(ed|t)|turns out|gotcha|surpris|took (me|us) .* to find|root cause)\b/i, 'learning'],
  [/\b(depend(s|ency|encies) on|upgrade|version \d|pinned to)\b/i, 'dependency'],
  [/\b(pattern|whenever you|the way we)\b/i, 'pattern'],
  [/\b(plan|steps?:|first,|todo)\b/i, 'plan'],
];

export function guessType(text: string): ArtifactType | undefined {
  for (const [pattern, type] of TYPE_HINTS) if (pattern.test(text)) return type;
  return undefined;
}

/**
 * Reads `/remember [type:] <title line>\n<body>`. A one-line message is both: its first
 * sentence becomes the title. Returns an error text when there is nothing to record.
 */
export function parseRemember(prompt: string): RememberDraft | { error: string } {
  let text = prompt.replace(/\r\n?/g, '\n').trim();
  if (text === '') {
    return { error: 'Tell me what to remember, e.g. `@ledger /remember decision: Use sql.js for storage — no native build step on any platform.`' };
  }
  let type: ArtifactType | undefined;
  const prefix = /^\[?([a-z][a-z _-]{1,20}?)\]?\s*:\s*/i.exec(text) ?? /^\[([a-z][a-z _-]{1,20}?)\]\s*/i.exec(text);
  const alias = prefix ? TYPE_ALIASES[prefix[1]!.toLowerCase().trim()] : undefined;
  if (prefix && alias) {
    type = alias;
    text = text.slice(prefix[0].length).trim();
  }
  if (type === 'constitution' || !(AGENT_ARTIFACT_TYPES as readonly string[]).includes(type ?? 'note')) type = undefined;
  const [first = '', ...rest] = text.split('\n');
  let title = first.trim();
  let body = rest.join('\n').trim();
  if (body === '') {
    // One line: the first sentence is the title, the whole line the body.
    const sentence = /^(.+?[.!?])(\s|$)/u.exec(title);
    body = text;
    if (sentence && sentence[1]!.length < title.length) title = sentence[1]!.replace(/[.!]$/u, '');
  }
  title = title.replace(/^#+\s*/, '').replace(/\s+/g, ' ').trim();
  const chars = Array.from(title);
  if (chars.length > MAX_TITLE_CHARS) title = `${chars.slice(0, MAX_TITLE_CHARS - 1).join('')}…`;
  if (title === '') return { error: 'The message has no text after the type. Write what to remember.' };
  if (body.length > MAX_AGENT_BODY_CHARS) {
    return { error: `That is ${body.length} characters; an artifact holds at most ${MAX_AGENT_BODY_CHARS}. Record one fact at a time.` };
  }
  const guessed = type ? undefined : guessType(text);
  return { type: type ?? guessed ?? 'note', typeGiven: type !== undefined, typeGuessed: guessed !== undefined, title, body };
}

/** The preview /remember shows before anything is saved. */
export function rememberPreview(draft: RememberDraft, fence: (text: string) => string): string {
  const how = draft.typeGiven ? '' : draft.typeGuessed ? ' (guessed from the wording)' : ' (no type given)';
  return [
    `I will record this ${draft.type}${how}, marked **unreviewed** until you approve it:`,
    '',
    `**${inline(draft.title, MAX_TITLE_CHARS)}**`,
    '',
    fence(draft.body),
    '',
    draft.typeGiven ? 'Save it?' : 'Save it as is, or pick another type:',
  ].join('\n');
}

/** The types offered as buttons when the type was not given. */
export function typeChoices(draft: RememberDraft): ArtifactType[] {
  const common: ArtifactType[] = ['decision', 'learning', 'convention', 'pattern', 'module_memory', 'note'];
  return common.filter((t) => t !== draft.type);
}

// ------------------------------------------------------------------ /context

export interface BreakdownItem {
  layer: string;
  mode: string;
  tokens: number;
}

/** A Markdown table of tokens per layer, with what was shown in full, as preview or title. */
export function budgetBreakdown(budget: number, used: number, tokenizer: string, items: readonly BreakdownItem[], allotted?: Record<string, { budget: number }>): string {
  const layers = new Map<string, { tokens: number; full: number; preview: number; title: number }>();
  for (const item of items) {
    const row = layers.get(item.layer) ?? { tokens: 0, full: 0, preview: 0, title: 0 };
    row.tokens += item.tokens;
    if (item.mode === 'full' || item.mode === 'preview' || item.mode === 'title') row[item.mode] += 1;
    layers.set(item.layer, row);
  }
  const percent = budget > 0 ? Math.round((used / budget) * 100) : 0;
  const lines = [`**${used.toLocaleString('en-US')} of ${budget.toLocaleString('en-US')} tokens** (${percent}%, ${tokenizer}), ${items.length} item${items.length === 1 ? '' : 's'}.`, ''];
  if (layers.size === 0) return lines.join('\n');
  lines.push(allotted ? '| Layer | Tokens | Share | Full | Preview | Title |' : '| Layer | Tokens | Full | Preview | Title |');
  lines.push(allotted ? '|---|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|---:|');
  for (const [layer, row] of layers) {
    const share = allotted?.[layer]?.budget;
    lines.push(allotted ? `| ${layer} | ${row.tokens} | ${share ?? '–'} | ${row.full} | ${row.preview} | ${row.title} |` : `| ${layer} | ${row.tokens} | ${row.full} | ${row.preview} | ${row.title} |`);
  }
  if (allotted && [...layers].some(([layer, row]) => row.tokens > (allotted[layer]?.budget ?? Infinity))) {
    lines.push('', 'A layer past its share took what other layers left unused (rules, pins and the task brief are always in); the total stays within the budget.');
  }
  return lines.join('\n');
}

// ------------------------------------------------------------------ /explain

const EXCLUSION_WORDS: Readonly<Record<ExcludedItem['reason'], string>> = {
  superseded: 'it is superseded by a newer artifact',
  archived: 'it is archived',
  'older-version': 'a newer version of it is used instead',
  gated: 'its conditions (task labels, stage or paths) do not hold for this task',
  budget: 'it did not fit in the token budget (higher-scored items took the room)',
  'below-threshold': 'its relevance score is below the threshold for this task',
  'other-task': 'it belongs to another task',
  'path-mismatch': 'its paths do not match the files in play',
  unreviewed: 'an agent wrote it and no person has approved it yet (contextLedger.agent.unreviewed is "hold")',
  duplicate: 'another artifact in the context already says the same',
  given: 'the reader already had it (the agent loads it itself, or a hook gave it earlier)',
};

function scoreLine(score: number | undefined, components: Record<string, number> | undefined): string {
  if (score === undefined) return '';
  const parts = components ? Object.entries(components).filter(([, v]) => v !== 0).map(([k, v]) => `${k} ${v > 0 ? '+' : ''}${v.toFixed(2)}`) : [];
  return `Score ${score.toFixed(2)}${parts.length ? ` = ${parts.join(', ')}` : ''}.`;
}

/** Why `artifact` is in or out of `result`, in a few Markdown lines. */
export function explainArtifact(result: Pick<AssembleResult, 'items' | 'excluded' | 'budget' | 'tokensUsed'>, artifact: Artifact): string {
  const head = `**${inline(artifact.title)}** (${artifact.type}, \`${artifactUrn(artifact.id)}\`${isUnreviewed(artifact) ? ', unreviewed' : ''})`;
  const included: ResultItem | undefined = result.items.find((i) => i.id === artifact.id || i.chainId === artifact.chainId);
  if (included) {
    const how =
      included.mode === 'full'
        ? 'in full'
        : included.sections
          ? `by ${included.sections.length === 1 ? 'the section' : 'the sections'} the task is about (${included.sections.map((s) => inline(s.heading || 'introduction')).join(', ')})`
          : included.mode === 'preview'
            ? 'as a preview (the full text did not fit)'
            : 'as its title only (a preview did not fit)';
    return [
      `${head} is **in** the context, ${how}, in the ${included.layer} layer: ${included.tokens} tokens of ${result.tokensUsed} used.`,
      '',
      `Why: ${included.reason}. ${scoreLine(included.score, included.components as unknown as Record<string, number>)}`,
      ...(included.stale ? ['', `⚠ ${inline(describeStale(included.stale))}.`] : []),
    ].join('\n');
  }
  const excluded = result.excluded.find((e) => e.id === artifact.id);
  if (excluded) {
    return [
      `${head} is **out** of the context: ${EXCLUSION_WORDS[excluded.reason] ?? excluded.reason}${excluded.detail ? ` (${excluded.detail})` : ''}.`,
      '',
      scoreLine(excluded.score, excluded.components as unknown as Record<string, number> | undefined),
      ...(excluded.stale ? ['', `⚠ ${inline(describeStale(excluded.stale))}.`] : []),
    ].join('\n').trim();
  }
  return `${head} is **out** of the context: it was not a candidate for this build (status ${artifact.status}).`;
}
