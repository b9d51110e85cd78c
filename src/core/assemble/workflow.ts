import { type TaskEvent, oneLine } from '../model';

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

function titled(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const id = str(v.id);
  const title = str(v.title);
  return id || title ? [title ? `"${clip(title, 80)}"` : undefined, id].filter(Boolean).join(' ') : undefined;
}

function titledList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(titled).filter((t): t is string => t !== undefined) : [];
}

function strList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(str).filter((t): t is string => t !== undefined) : [];
}

/**
 * One stage summary as a short paragraph. `limit` bounds the lists and the deliverable
 * excerpt, so the same summary shrinks with the budget.
 */
function summaryLines(event: TaskEvent, limit: number): string {
  const p = event.payload;
  const stage = str(p.stage) ?? 'a stage';
  const parts = [`Stage ${stage} (left ${day(event.at)}${str(p.to) ? ` for ${str(p.to)}` : ''})`];
  const deliverable = titled(p.deliverable);
  if (deliverable) {
    const excerpt = p.deliverable && typeof p.deliverable === 'object' ? str((p.deliverable as Record<string, unknown>).excerpt) : undefined;
    parts.push(`  Deliverable: ${deliverable}${excerpt && limit > 1 ? `: ${clip(excerpt, limit * 60)}` : ''}`);
  }
  const lists: Array<[string, string[], number]> = [
    ['Decisions', titledList(p.decisions), limit],
    ['Created', titledList(p.artifactsCreated).filter((t) => t !== deliverable), limit],
    ['Commits', strList(p.commits).map((c) => clip(c, 72)), limit],
    ['Files changed', strList(p.filesChanged), limit * 2],
  ];
  for (const [label, entries, n] of lists) {
    const line = listLine(`  ${label}`, entries, n);
    if (line) parts.push(line);
  }
  if (parts.length === 1) parts.push('  Nothing recorded.');
  return parts.join('\n');
}

/**
 * L4 workflow memory: what earlier stages of the task produced, as a few short lines.
 * Stage summaries come first, newest first; the events since the last summary follow as
 * lists. `limit` bounds every list so the caller can shrink the narrative to its budget.
 */
export function workflowNarrative(events: readonly TaskEvent[], limit: number): string {
  const stages: string[] = [];
  const created: string[] = [];
  const commits: string[] = [];
  const files: string[] = [];
  const notes: string[] = [];
  let builds = 0;
  let lastSummary = -1;
  events.forEach((e, i) => {
    if (e.kind === 'stage_summary') lastSummary = i;
  });
  const summaries = events.filter((e) => e.kind === 'stage_summary').reverse();
  for (const [i, event] of events.entries()) {
    const p = event.payload;
    // What a summary already tells is not listed again.
    if (i <= lastSummary && event.kind !== 'stage_entered') continue;
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
  const shownSummaries = Math.max(1, Math.ceil(limit / 2));
  const recent = [
    listLine('Recorded', created, limit),
    listLine('Commits', commits, limit),
    listLine('Files touched', files, limit * 2),
    listLine('Notes', notes, limit),
    builds > 0 && limit > 1 ? `Context built ${builds} time${builds === 1 ? '' : 's'}.` : undefined,
  ].filter((line): line is string => line !== undefined);
  const lines = [
    stages.length ? `Stages: ${stages.slice(-Math.max(limit, 1)).join(' → ')}.` : undefined,
    ...summaries.slice(0, shownSummaries).map((e) => summaryLines(e, limit)),
    summaries.length > shownSummaries ? `(${summaries.length - shownSummaries} earlier stage summaries left out)` : undefined,
    summaries.length > 0 && recent.length > 0 ? 'Since then:' : undefined,
    ...recent,
  ].filter((line): line is string => line !== undefined);
  return lines.join('\n');
}

/**
 * What each stage should record (the knowledge prompt), editable per workspace through
 * the `stagePrompts` option (`contextLedger.stages`). An empty prompt means the stage
 * asks for nothing, as `test` does by default.
 */
export const DEFAULT_STAGE_PROMPTS: Readonly<Record<string, string>> = Object.freeze({
  plan: 'Record the plan (type plan) and each choice that shapes the architecture as an ADR (adr), with the options you weighed.',
  develop: 'Record the patterns you followed or set (pattern) and how each module works and its traps (module_memory, with its paths).',
  review: 'Record the patterns you observed (pattern) and the quality decisions the review took (decision, or convention for a rule).',
  test: '',
});

const FALLBACK_PROMPT = 'Record decisions (decision), surprises (learning) and how modules work (module_memory).';

/**
 * L5 knowledge production: what to record at this stage, and the three ways to record it;
 * empty when the stage's prompt is empty. Short on purpose: it is read on every build.
 */
export function instructionsFor(stage: string, prompts: Readonly<Record<string, string>> = DEFAULT_STAGE_PROMPTS): string {
  const key = stage.trim().toLowerCase();
  // Names compare case-insensitively; the last match wins, so settings laid over the defaults win.
  const custom = Object.entries(prompts).reverse().find(([name]) => name.trim().toLowerCase() === key)?.[1];
  const prompt = (custom ?? DEFAULT_STAGE_PROMPTS[key] ?? FALLBACK_PROMPT).trim();
  if (prompt === '') return '';
  return (
    `Stage ${oneLine(stage) || 'unknown'}. ${prompt} One fact per artifact, with a specific title. ` +
    'Use the tool contextLedger_createArtifact, or `context-ledger add --type <type> --title "…"` with the body on stdin, ' +
    'or a Markdown file in `.context-ledger/inbox/`.'
  );
}
