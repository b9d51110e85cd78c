/**
 * The data the Context Inspector panel is given: one assembly turned into a budget bar,
 * a table row per candidate, the chars/4 estimate next to the real count, and the
 * history of logged builds. Pure and JSON-serialisable (it crosses into the webview).
 * The webview imports this module's types and the query/diff helpers, so nothing here
 * may pull in Node or the tokenizer.
 */
import type { AssembleResult, ExclusionReason, Layer, ScoreComponents } from '../assemble/types';
import { EXCLUSION_LABELS } from './exclusionLabels';
import type { BuildSnapshot, HistoryEntry } from './history';

export { EXCLUSION_LABELS } from './exclusionLabels';

/* What the agent also reads (built by agentFiles.ts; declared here so the webview needs no Node types). */
export interface AgentFileOverlap {
  id: string;
  title: string;
  /** Tokens the ledger spends on the artifact. */
  itemTokens: number;
  /** Share of the artifact's text (0..1) the file also says. */
  share: number;
  /** About how many of its tokens the agent reads twice (share x itemTokens). */
  tokens: number;
  how: 'imported from this file' | 'same text' | 'overlapping text';
}

export interface AgentFileRow {
  path: string;
  /** A RuleFileKind of core/formats/agentRules, or 'ledger' for the file Context Ledger writes. */
  kind: string;
  applies: boolean;
  why: string;
  tokens: number;
  estimate: number;
  overlaps: AgentFileOverlap[];
}

export interface AgentFilesView {
  files: AgentFileRow[];
  /** Tokens of the files that apply (the ledger's own file is not counted twice). */
  alwaysOnTokens: number;
  ledgerTokens: number;
  totalTokens: number;
  /** About how many ledger tokens repeat text an applying file already carries. */
  overlapTokens: number;
}

export type RowStatus = 'full' | 'preview' | 'title' | 'excluded';
export const ROW_STATUSES: readonly RowStatus[] = ['full', 'preview', 'title', 'excluded'];

export type SegmentKey = Layer | 'research' | 'headroom' | 'over';

export const SEGMENT_LABELS: Readonly<Record<SegmentKey, string>> = {
  fixed: 'Fixed (rules, pins, task brief)',
  global: 'Global knowledge',
  task: 'Task knowledge',
  path: 'Path knowledge',
  workflow: 'Workflow memory',
  instructions: 'Knowledge production',
  code: 'Code in play',
  diagnostics: 'Problems (diagnostics)',
  logs: 'Logs (what just failed)',
  docs: 'Workspace docs',
  deployment: 'Deployment files',
  git: 'Git changes',
  conversation: 'Conversation',
  research: 'Research findings',
  headroom: 'Unused headroom',
  over: 'Over the budget',
};

export interface BarSegment {
  key: SegmentKey;
  label: string;
  /** Tokens the assembler reports for the layer (headroom: budget − used). */
  tokens: number;
  /** What the layer was allotted (0 for headroom). */
  allotted: number;
  /** Width as a share of the bar (0..1); the shares add up to 1 when the budget is > 0. */
  share: number;
}

export interface ItemRow {
  id: string;
  title: string;
  type: string;
  status: RowStatus;
  /** Excluded: the layer it would have been placed in. */
  layer?: Layer;
  /** Tokens it takes in the rendered context; excluded: what it would take in full (when the build counted it). */
  tokens?: number;
  score?: number;
  components?: ScoreComponents;
  /** Why it is in (included) or why it was cut/left out. */
  reason: string;
  reasonCode?: ExclusionReason;
  redacted?: boolean;
  pinned?: boolean;
}

export interface EstimateView {
  chars: number;
  /** ceil(chars / 4), the rule of thumb the seed designs budget with. */
  estimate: number;
  real: number;
  /** estimate − real (positive: the estimate overcounts). */
  error: number;
  /** |error| / real, 0 when real is 0. */
  errorShare: number;
}

export interface InspectorModel {
  folderName: string;
  builtAt: string;
  trigger: string;
  budget: number;
  tokenizer: string;
  tokensUsed: number;
  candidates: number;
  durationMs: number;
  task?: { id?: string; title: string; stage?: string };
  paths: string[];
  counts: Record<RowStatus, number>;
  segments: BarSegment[];
  rows: ItemRow[];
  estimate: EstimateView;
  redactions: number;
  history: HistoryEntry[];
  /** The current build as a snapshot, so the webview can diff it with a logged one. */
  current: BuildSnapshot;
  /** Titles of artifacts named in the history (log rows carry ids only). */
  titles: Record<string, string>;
  agentFiles?: AgentFilesView;
}

export interface InspectorInput {
  result: AssembleResult;
  folderName: string;
  builtAt: Date;
  trigger: string;
  paths: readonly string[];
  history?: readonly HistoryEntry[];
  current: BuildSnapshot;
  /** Titles for ids in the history that are not candidates of this build. */
  titles?: Readonly<Record<string, string>>;
  agentFiles?: AgentFilesView;
  /** Ids of pinned artifacts (the assembly result does not say). */
  pinned?: ReadonlySet<string>;
}

export function estimateView(text: string, real: number): EstimateView {
  const chars = text.length;
  const estimate = Math.ceil(chars / 4);
  const error = estimate - real;
  return { chars, estimate, real, error, errorShare: real > 0 ? Math.abs(error) / real : 0 };
}

/**
 * The stacked bar: one segment per layer that used anything, then the headroom. Layer
 * figures are counted per section by the assembler and may add up to a little more
 * than the joined text; widths are scaled so the used part is exactly tokensUsed.
 */
export function barSegments(result: Pick<AssembleResult, 'budget' | 'tokensUsed' | 'layers'> & { items?: AssembleResult['items'] }): BarSegment[] {
  const { budget, tokensUsed } = result;
  // Research findings share their scope layer's budget but are shown apart: what earlier
  // agents found reads differently from what the team decided.
  const research = new Map<Layer, number>();
  for (const item of result.items ?? []) if (item.type === 'research') research.set(item.layer, (research.get(item.layer) ?? 0) + item.tokens);
  const researchTokens = [...research.values()].reduce((a, b) => a + b, 0);
  const layers = (Object.entries(result.layers) as Array<[SegmentKey, { budget: number; used: number }]>)
    .map(([key, l]): [SegmentKey, { budget: number; used: number }] => [key, { budget: l.budget, used: Math.max(0, l.used - (research.get(key as Layer) ?? 0)) }])
    .concat(researchTokens > 0 ? [['research', { budget: 0, used: researchTokens }]] : [])
    .filter(([, l]) => l.used > 0);
  const layerSum = layers.reduce((sum, [, l]) => sum + l.used, 0);
  const total = Math.max(budget, tokensUsed);
  const usedShare = total > 0 ? tokensUsed / total : 0;
  const segments: BarSegment[] = layers.map(([key, l]) => ({
    key,
    label: SEGMENT_LABELS[key],
    tokens: l.used,
    allotted: l.budget,
    share: layerSum > 0 ? (l.used / layerSum) * usedShare : 0,
  }));
  if (tokensUsed > budget) {
    segments.push({ key: 'over', label: SEGMENT_LABELS.over, tokens: tokensUsed - budget, allotted: 0, share: 0 });
  } else if (budget - tokensUsed > 0 || segments.length === 0) {
    segments.push({ key: 'headroom', label: SEGMENT_LABELS.headroom, tokens: budget - tokensUsed, allotted: 0, share: total > 0 ? 1 - usedShare : 1 });
  }
  return segments;
}

export function exclusionText(reason: ExclusionReason, detail?: string): string {
  const label = EXCLUSION_LABELS[reason] ?? reason;
  return detail ? `${label}: ${detail}` : label;
}

/** Every candidate: included ones in the order they were placed, then the excluded ones by score. */
export function itemRows(result: Pick<AssembleResult, 'items' | 'excluded'>): ItemRow[] {
  const rows: ItemRow[] = result.items.map((item) => ({
    id: item.id,
    title: item.title,
    type: item.type,
    status: item.mode,
    layer: item.layer,
    tokens: item.tokens,
    score: item.score,
    components: item.components,
    reason: item.reason,
    ...(item.redacted ? { redacted: true } : {}),
  }));
  const excluded = [...result.excluded].sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const e of excluded) {
    rows.push({
      id: e.id,
      title: e.title,
      type: e.type,
      status: 'excluded',
      ...(e.layer !== undefined ? { layer: e.layer } : {}),
      ...(e.tokens !== undefined ? { tokens: e.tokens } : {}),
      ...(e.score !== undefined ? { score: e.score } : {}),
      ...(e.components ? { components: e.components } : {}),
      reason: exclusionText(e.reason, e.detail),
      reasonCode: e.reason,
    });
  }
  return rows;
}

export function buildInspectorModel(input: InspectorInput): InspectorModel {
  const { result } = input;
  const rows = itemRows(result);
  if (input.pinned) for (const row of rows) if (input.pinned.has(row.id)) row.pinned = true;
  const counts: Record<RowStatus, number> = { full: 0, preview: 0, title: 0, excluded: 0 };
  for (const row of rows) counts[row.status]++;
  const titles: Record<string, string> = { ...(input.titles ?? {}) };
  for (const row of rows) titles[row.id] = row.title;
  return {
    folderName: input.folderName,
    builtAt: input.builtAt.toISOString(),
    trigger: input.trigger,
    budget: result.budget,
    tokenizer: result.tokenizer,
    tokensUsed: result.tokensUsed,
    candidates: result.candidates,
    durationMs: result.durationMs,
    ...(result.task ? { task: result.task } : {}),
    paths: [...input.paths],
    counts,
    segments: barSegments(result),
    rows,
    estimate: estimateView(result.text, result.tokensUsed),
    redactions: result.redactions.count,
    history: [...(input.history ?? [])],
    current: input.current,
    titles,
    ...(input.agentFiles ? { agentFiles: input.agentFiles } : {}),
  };
}
