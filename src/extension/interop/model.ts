/**
 * What the interop commands say, vscode-free so it can be unit tested: the names of the
 * formats, the dry-run summary and the result line of an import.
 */
import type { ImportFormat } from '../../core/formats/common';
import { RULE_TARGET_NAMES, RULE_TARGETS, type RuleTarget } from '../../core/formats/ruleTargets';
import { mergeResults } from '../../core/formats/detect';
import type { Skipped } from '../../core/formats/common';
import type { FormatReport, ParsedImport } from '../../node/folderImport';

export const FORMAT_LABELS: Readonly<Record<ImportFormat, string>> = {
  ctx: 'ctx .context/ folder',
  adr: 'ADR folder',
  copilot: 'Copilot instructions',
  cursor: 'Cursor rules',
  claude: 'CLAUDE.md and .claude/rules',
  'agents-md': 'AGENTS.md',
  cline: 'Cline rules (.clinerules, .cline/rules)',
  kiro: 'Kiro steering (.kiro/steering)',
  windsurf: 'Windsurf rules (.windsurf/rules, .windsurfrules)',
  gemini: 'GEMINI.md',
  junie: 'Junie guidelines (.junie/guidelines.md)',
  continue: 'Continue rules (.continue/rules)',
  roo: 'Roo Code rules (.roo/rules, .roorules)',
  amazonq: 'Amazon Q rules (.amazonq/rules)',
  augment: 'Augment rules (.augment/rules, .augment-guidelines)',
  zed: 'Zed .rules',
  skills: 'Agent Skills (SKILL.md)',
};

export const TARGET_LABELS: Readonly<Record<RuleTarget, { label: string; where: string }>> = Object.fromEntries(
  RULE_TARGET_NAMES.map((target) => {
    const spec = RULE_TARGETS[target];
    return [target, { label: spec.label, where: spec.layout === 'single' ? `${spec.file} at the folder root` : `${spec.folder}/context-ledger-*${spec.ext}` }];
  }),
) as Record<RuleTarget, { label: string; where: string }>;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The files of a detected format on one quick-pick line that shows whole at a 1,000 px window
 * (about `width` characters): their shared folder once, then as many names as fit.
 * "docs/adr/: 0001-a.md, 0002-b.md, … (3 more)"
 */
export function filesDetail(files: readonly string[], width = 72): string {
  const dirs = files.map((f) => f.split('/').slice(0, -1));
  let shared = dirs[0] ?? [];
  for (const dir of dirs) {
    let i = 0;
    while (i < shared.length && i < dir.length && shared[i] === dir[i]) i++;
    shared = shared.slice(0, i);
  }
  const prefix = shared.length > 0 ? `${shared.join('/')}/: ` : '';
  const names = files.map((f) => f.split('/').slice(shared.length).join('/'));
  let line = prefix + (names[0] ?? '');
  let shown = names.length > 0 ? 1 : 0;
  for (const name of names.slice(1)) {
    const rest = names.length - shown - 1;
    if (`${line}, ${name}${rest > 0 ? `, … (${rest} more)` : ''}`.length > width) break;
    line += `, ${name}`;
    shown++;
  }
  return shown < names.length ? `${line}, … (${names.length - shown} more)` : line;
}

export interface ImportTotals {
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  tasksAdded: number;
}

export function totalsOf(reports: readonly FormatReport[], walkSkipped = 0): ImportTotals {
  const sum = (pick: (r: FormatReport) => number): number => reports.reduce((n, r) => n + pick(r), 0);
  return {
    added: sum((r) => r.added.length),
    updated: sum((r) => r.updated.length),
    unchanged: sum((r) => r.unchanged.length),
    skipped: sum((r) => r.skipped.length) + walkSkipped,
    tasksAdded: sum((r) => r.tasksAdded.length),
  };
}


/** Past tense, for the log of what an import did. */
export function totalsLine(t: ImportTotals): string {
  const tasks = t.tasksAdded > 0 ? `, ${plural(t.tasksAdded, 'task')} added` : '';
  return `${t.added} added, ${t.updated} updated, ${t.unchanged} unchanged, ${t.skipped} skipped${tasks}`;
}

function listed(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Future tense, for the confirmation before anything is written: "it will add 6, update 1, leave 3 unchanged and skip 2 files". */
export function plannedLine(t: ImportTotals): string {
  const verbs = [
    t.added > 0 ? `add ${t.added}` : '',
    t.updated > 0 ? `update ${t.updated}` : '',
    t.tasksAdded > 0 ? `add ${plural(t.tasksAdded, 'task')}` : '',
    t.unchanged > 0 ? `leave ${t.unchanged} unchanged` : '',
    t.skipped > 0 ? `skip ${plural(t.skipped, 'file')}` : '',
  ].filter(Boolean);
  return verbs.length > 0 ? `it will ${listed(verbs)}` : 'it will change nothing';
}

/** At most this many entries are named in the confirmation (the log lists every one). */
const NAMED_IN_PREVIEW = 20;
const MARKS: Readonly<Record<string, string>> = { added: '+', updated: '~', detached: '!', removed: '−' };
const FUTURE: Readonly<Record<string, string>> = { added: 'will add', updated: 'will update', detached: 'will detach', removed: 'will archive' };

/**
 * The confirmation's detail: per format what it will do, then the entries by title (as the
 * CLI's `import-folder --dry-run` names them) and the files it will skip, with the reason.
 */
export function dryRunSummary(reports: readonly FormatReport[], walkSkipped: readonly Skipped[] = []): string {
  const lines: string[] = [];
  let named = 0;
  let unnamed = 0;
  const name = (line: string): void => {
    if (named < NAMED_IN_PREVIEW) {
      lines.push(line);
      named++;
    } else unnamed++;
  };
  for (const r of reports) {
    const counts = totalsOf([r]);
    lines.push(`${FORMAT_LABELS[r.format]} (${plural(r.files, 'file')}): ${plannedLine(counts).replace(/^it /, '')}`);
    for (const c of r.changes) if (c.outcome !== 'unchanged') name(`  ${MARKS[c.outcome] ?? ''} ${c.title}${c.outcome === 'added' ? '' : ` (${FUTURE[c.outcome]}: ${c.reason})`}`);
    for (const k of r.skipped) name(`  × ${k.where}: ${k.reason}`);
  }
  for (const k of walkSkipped) name(`  × ${k.where}: ${k.reason}`);
  if (unnamed > 0) lines.push(`  … and ${unnamed} more (Show Log lists every one)`);
  return lines.join('\n');
}

/**
 * What an import did, for the message after it: only the formats it took something from
 * (a CLAUDE.md skipped as the same file as AGENTS.md is not "imported").
 */
export function importedMessage(folderName: string, reports: readonly FormatReport[], walkSkipped = 0): string {
  const t = totalsOf(reports, walkSkipped);
  const from = reports
    .filter((r) => r.added.length + r.updated.length + r.detached.length + r.removed.length + r.tasksAdded.length > 0)
    .map((r) => FORMAT_LABELS[r.format]);
  const did = [
    t.added > 0 ? `added ${t.added}` : '',
    t.updated > 0 ? `updated ${t.updated}` : '',
    t.tasksAdded > 0 ? `added ${plural(t.tasksAdded, 'task')}` : '',
  ].filter(Boolean);
  const rest = [t.unchanged > 0 ? `${t.unchanged} unchanged` : '', t.skipped > 0 ? `${plural(t.skipped, 'file')} skipped` : ''].filter(Boolean);
  return `Context Ledger: ${listed(did) || 'changed nothing'} in the ledger of ${folderName}${from.length > 0 ? ` from ${listed(from)}` : ''}${rest.length > 0 ? `; ${rest.join(', ')}` : ''}.`;
}

/** Nothing would change: what is already there, and what cannot be read. */
export function nothingNewMessage(t: ImportTotals): string {
  return `Context Ledger: nothing new to import — ${t.unchanged} already in the ledger, unchanged${t.skipped > 0 ? `; ${plural(t.skipped, 'file')} skipped` : ''}.`;
}

/**
 * Puts two parses together (the workspace's formats and a folder picked by dialog). A
 * folder inside the workspace yields the same ids for the same files: those count once.
 */
export function mergeParsed(a: ParsedImport, b: ParsedImport): ParsedImport {
  const merged: ParsedImport = new Map(a);
  for (const [format, entry] of b) {
    const known = merged.get(format);
    if (!known) {
      merged.set(format, entry);
      continue;
    }
    const ids = new Set(known.result.artifacts.map((x) => x.id));
    const taskIds = new Set((known.result.tasks ?? []).map((t) => t.id));
    const extra = {
      ...entry.result,
      artifacts: entry.result.artifacts.filter((x) => !ids.has(x.id)),
      tasks: (entry.result.tasks ?? []).filter((t) => !taskIds.has(t.id)),
    };
    merged.set(format, { files: known.files + entry.files, result: mergeResults([known.result, extra]) });
  }
  return merged;
}
