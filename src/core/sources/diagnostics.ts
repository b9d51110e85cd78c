import type { LiveCandidate } from './types';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** A problem as the editor shows it (VS Code's `languages.getDiagnostics`, a linter's JSON). */
export interface PlainDiagnostic {
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  severity: Severity;
  message: string;
  /** Who reported it: `ts`, `eslint`, ... */
  source?: string;
  code?: string;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };
const PRIOR: Record<Severity, number> = { error: 0.85, warning: 0.55, info: 0.3, hint: 0.15 };
const MAX_PER_FILE = 20;
const MAX_MESSAGE = 400;

export interface DiagnosticOptions {
  /** Files the task works on: their problems count more. */
  inPlay?: readonly string[];
  /** The file's text, to quote the line a problem is on. */
  fileText?: (path: string) => string | undefined;
  /** Hints are noise for an agent unless asked for. */
  includeHints?: boolean;
}

/** One candidate per file: its problems, worst first, each with the line it points at. */
export function diagnosticCandidates(diagnostics: readonly PlainDiagnostic[], options: DiagnosticOptions = {}): LiveCandidate[] {
  const byPath = new Map<string, PlainDiagnostic[]>();
  for (const d of diagnostics) {
    if (d.severity === 'hint' && !options.includeHints) continue;
    const list = byPath.get(d.path);
    if (list) list.push(d);
    else byPath.set(d.path, [d]);
  }
  const inPlay = new Set(options.inPlay ?? []);
  const out: LiveCandidate[] = [];
  for (const [path, list] of [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.line - b.line || a.column - b.column);
    const lines = options.fileText?.(path)?.replace(/\r\n?/g, '\n').split('\n');
    const shown = list.slice(0, MAX_PER_FILE).map((d) => {
      const who = [d.source, d.code].filter(Boolean).join(' ');
      const message = oneLine(d.message);
      let entry = `- ${d.severity} at ${d.line}:${d.column}${who ? ` [${who}]` : ''}: ${message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message}`;
      const quoted = lines?.[d.line - 1]?.trim();
      if (quoted) entry += `\n  \`${quoted.length > 160 ? `${quoted.slice(0, 159)}…` : quoted.replace(/`/g, "'")}\``;
      return entry;
    });
    if (list.length > MAX_PER_FILE) shown.push(`- … and ${list.length - MAX_PER_FILE} more`);
    const counts = countBySeverity(list);
    const worst = list[0]!.severity;
    const prior = Math.min(1, PRIOR[worst] + (inPlay.has(path) ? 0.1 : 0));
    out.push({
      key: `diagnostics:${path}`,
      source: 'diagnostics',
      title: `Problems in ${path} (${counts})`,
      text: shown.join('\n'),
      kind: 'text',
      path,
      prior,
      origin: `${counts} reported by the editor${inPlay.has(path) ? ' in a file in play' : ''}`,
    });
  }
  return out;
}

function countBySeverity(list: readonly PlainDiagnostic[]): string {
  const counts = new Map<Severity, number>();
  for (const d of list) counts.set(d.severity, (counts.get(d.severity) ?? 0) + 1);
  return (['error', 'warning', 'info', 'hint'] as const)
    .filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s}${counts.get(s) === 1 ? '' : 's'}`)
    .join(', ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
