/**
 * What the status-bar budget meter shows: `$(book) 3.1k/8k`, how much of the budget the
 * context for the files in play uses (the same build "Build agent context" gives), its
 * warning level and the per-layer breakdown. vscode-free.
 */

export type MeterLevel = 'ok' | 'warning' | 'error';

/** 950 → "950", 3112 → "3.1k", 8000 → "8k", 12500 → "12.5k", 1_250_000 → "1.25M". */
export function formatTokens(count: number): string {
  if (!Number.isFinite(count)) return '?';
  const n = Math.max(0, Math.round(count));
  if (n < 1000) return String(n);
  if (n < 1_000_000) {
    const k = n / 1000;
    const text = k < 100 ? (Math.floor(k * 10) / 10).toFixed(1) : Math.floor(k).toString();
    return `${text.replace(/\.0$/, '')}k`;
  }
  const m = n / 1_000_000;
  return `${(Math.floor(m * 100) / 100).toFixed(2).replace(/\.?0+$/, '')}M`;
}

/** Warning at 90% or more of the budget, error when over it. */
export function meterLevel(used: number, budget: number): MeterLevel {
  if (used > budget) return 'error';
  if (budget > 0 && used >= 0.9 * budget) return 'warning';
  return used > 0 && budget === 0 ? 'error' : 'ok';
}

export function meterText(used: number, budget: number): string {
  return `$(book) ${formatTokens(used)}/${formatTokens(budget)}`;
}

export interface LayerUsage {
  budget: number;
  used: number;
}

export const LAYER_LABELS: Readonly<Record<string, string>> = {
  fixed: 'Rules, pinned & task brief',
  global: 'Project knowledge',
  task: 'Task knowledge',
  path: 'Files in play',
  workflow: 'Workflow so far',
  instructions: 'Recording instructions',
};

export interface MeterSummary {
  used: number;
  budget: number;
  tokenizer: string;
  layers: Readonly<Record<string, LayerUsage>>;
  items: ReadonlyArray<{ mode: string }>;
  excludedForBudget: number;
  paths: readonly string[];
  taskTitle?: string;
  folderName?: string;
}

function percent(used: number, budget: number): string {
  return budget > 0 ? `${Math.round((used / budget) * 100)}%` : '—';
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/** The tooltip, as Markdown: totals, a per-layer table, what was degraded, and the inputs. */
export function meterTooltip(summary: MeterSummary): string {
  const full = summary.items.filter((i) => i.mode === 'full').length;
  const previews = summary.items.filter((i) => i.mode === 'preview').length;
  const titles = summary.items.filter((i) => i.mode === 'title').length;
  const lines = [
    `**Context Ledger** — the context for the files in play: ${summary.used.toLocaleString('en-US')} of ${summary.budget.toLocaleString('en-US')} tokens (${percent(summary.used, summary.budget)}, ${summary.tokenizer})`,
    '',
    '| Layer | Used | Budget |',
    '|:--|--:|--:|',
  ];
  for (const [layer, usage] of Object.entries(summary.layers)) {
    if (usage.used === 0 && usage.budget === 0) continue;
    lines.push(`| ${LAYER_LABELS[layer] ?? layer} | ${usage.used.toLocaleString('en-US')} | ${usage.budget.toLocaleString('en-US')} |`);
  }
  lines.push('');
  lines.push(
    `${full} in full · ${previews} as preview · ${titles} as title only` +
      (summary.excludedForBudget > 0 ? ` · ${summary.excludedForBudget} left out for the budget` : ''),
  );
  lines.push('');
  if (summary.taskTitle) lines.push(`Task: ${escapeMarkdown(summary.taskTitle)}  `);
  if (summary.paths.length > 0) {
    const shown = summary.paths.slice(0, 6).map((p) => `\`${p.replace(/`/g, '')}\``);
    lines.push(`Files in play: ${shown.join(', ')}${summary.paths.length > 6 ? ` and ${summary.paths.length - 6} more` : ''}  `);
  } else {
    lines.push('No files in play (none open, changed on the branch or worked on lately): the project-wide knowledge only.  ');
  }
  if (summary.folderName) lines.push(`Folder: ${escapeMarkdown(summary.folderName)}  `);
  lines.push('', '_Click for details._');
  return lines.join('\n');
}
