/**
 * What the interop commands say, vscode-free so it can be unit tested: the names of the
 * formats, the dry-run summary and the result line of an import.
 */
import type { ImportFormat } from '../../core/formats/common';
import { RULE_TARGET_NAMES, RULE_TARGETS, type RuleTarget } from '../../core/formats/ruleTargets';
import { mergeResults } from '../../core/formats/detect';
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

/** "3 files: docs/adr/0001-a.md, docs/adr/0002-b.md, …" */
export function filesDetail(files: readonly string[], shown = 3): string {
  const head = files.slice(0, shown).join(', ');
  return files.length > shown ? `${head}, … (${files.length - shown} more)` : head;
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

export function totalsLine(t: ImportTotals): string {
  const tasks = t.tasksAdded > 0 ? `, ${plural(t.tasksAdded, 'task')} added` : '';
  return `${t.added} added, ${t.updated} updated, ${t.unchanged} unchanged, ${t.skipped} skipped${tasks}`;
}

/** One line per format for the dry-run confirmation. */
export function dryRunSummary(reports: readonly FormatReport[]): string {
  return reports
    .map((r) => `${FORMAT_LABELS[r.format]} (${plural(r.files, 'file')}): ${r.added.length} to add, ${r.updated.length} to update, ${r.unchanged.length} unchanged, ${r.skipped.length} skipped`)
    .join('\n');
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
