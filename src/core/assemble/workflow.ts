import type { TaskEvent } from '../model';
import { oneLine } from './render';

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return oneLine(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function day(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : iso;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

/** Lists newest last; `limit` keeps the most recent entries and says how many were left out. */
function listLine(label: string, entries: string[], limit: number): string | undefined {
  if (entries.length === 0 || limit <= 0) return undefined;
  const shown = entries.slice(-limit);
  const more = entries.length - shown.length;
  return `${label}: ${shown.join('; ')}${more > 0 ? ` (+${more} earlier)` : ''}.`;
}

/**
 * L4 workflow memory: what earlier stages of the task produced, as a few short lines.
 * `limit` bounds every list so the caller can shrink the narrative to its budget.
 */
export function workflowNarrative(events: readonly TaskEvent[], limit: number): string {
  const stages: string[] = [];
  const created: string[] = [];
  const commits: string[] = [];
  const files: string[] = [];
  const notes: string[] = [];
  let builds = 0;
  for (const event of events) {
    const p = event.payload;
    switch (event.kind) {
      case 'stage_entered': {
        const stage = str(p.stage);
        if (stage) stages.push(`${stage} (${day(event.at)})`);
        break;
      }
      case 'artifact_created': {
        const id = str(p.id) ?? str(p.artifactId);
        const title = str(p.title);
        const type = str(p.type);
        if (id || title) created.push([title ? `"${clip(title, 80)}"` : undefined, type, id].filter(Boolean).join(' '));
        break;
      }
      case 'commit': {
        const sha = str(p.sha) ?? str(p.hash) ?? str(p.commit);
        const message = str(p.message) ?? str(p.subject);
        if (sha || message) commits.push([sha?.slice(0, 8), message ? clip(message, 72) : undefined].filter(Boolean).join(' '));
        break;
      }
      case 'file_touched': {
        const path = str(p.path) ?? str(p.file);
        if (path && !files.includes(path)) files.push(path);
        break;
      }
      case 'context_built':
        builds++;
        break;
      case 'note': {
        const text = str(p.text) ?? str(p.note) ?? str(p.message);
        if (text) notes.push(clip(text, 160));
        break;
      }
    }
  }
  const lines = [
    stages.length ? `Stages: ${stages.slice(-Math.max(limit, 1)).join(' → ')}.` : undefined,
    listLine('Recorded', created, limit),
    listLine('Commits', commits, limit),
    listLine('Files touched', files, limit * 2),
    listLine('Notes', notes, limit),
    builds > 0 && limit > 1 ? `Context built ${builds} time${builds === 1 ? '' : 's'}.` : undefined,
  ].filter((line): line is string => line !== undefined);
  return lines.join('\n');
}

const WHAT_BY_STAGE: Record<string, string> = {
  plan: 'the plan (type plan), and each decision with the options you weighed (decision, or adr if it shapes the architecture)',
  design: 'each decision with the options you weighed (decision or adr) and the patterns you chose (pattern)',
  develop:
    'what surprised you or cost time (learning), how a module works and its traps (module_memory, with its paths), and decisions taken on the way (decision)',
  implement:
    'what surprised you or cost time (learning), how a module works and its traps (module_memory, with its paths), and decisions taken on the way (decision)',
  review: 'rules the review enforced that were not written down (convention), and mistakes worth not repeating (learning)',
  test: 'why tests failed and how to run or debug them (learning), and gaps you left open (note)',
  release: 'what changed for users (changelog) and follow-ups (note)',
};

/**
 * L5 knowledge production: what to record at this stage, and the three ways to record it.
 * Short on purpose: it is read on every build.
 */
export function instructionsFor(stage: string): string {
  const key = stage.trim().toLowerCase();
  const what = WHAT_BY_STAGE[key] ?? 'decisions (decision), surprises (learning) and how modules work (module_memory)';
  return (
    `Stage ${oneLine(stage) || 'unknown'}. Record ${what}. One fact per artifact, with a specific title. ` +
    'Use the tool contextLedger_createArtifact, or `context-ledger add --type <type> --title "…"` with the body on stdin, ' +
    'or a Markdown file in `.context-ledger/inbox/`.'
  );
}
