import type { Artifact, ArtifactType, TokenizerName } from '../model';
import type { LiveReport, LiveSourcesRequest } from '../sources/report';
import type { SourceKind } from '../sources/types';

/** Artifact layers, then one layer per live source (present in a result only when sources were given). */
export type Layer = 'fixed' | 'global' | 'task' | 'path' | 'workflow' | 'instructions' | SourceKind;
export const LAYERS = ['fixed', 'global', 'task', 'path', 'workflow', 'instructions'] as const;

export type ItemMode = 'full' | 'preview' | 'title';

export type ExclusionReason =
  | 'superseded'
  | 'archived'
  | 'older-version'
  | 'gated'
  | 'budget'
  | 'below-threshold'
  | 'other-task'
  | 'path-mismatch'
  /** Agent-written and not yet approved, with `unreviewed: 'hold'`. */
  | 'unreviewed'
  /** Says what a more valuable artifact in the context already says (`dedupe`). */
  | 'duplicate'
  /** The reader already has it (the request's `leaveOut`): an agent loaded it itself, or a hook gave it earlier in the session. */
  | 'given';

/** Each component already multiplied by its weight; `score` is their sum. */
export interface ScoreComponents {
  relevance: number;
  reference: number;
  path: number;
  recency: number;
  type: number;
  feedback: number;
}

export interface ScoreWeights {
  relevance: number;
  reference: number;
  path: number;
  recency: number;
  type: number;
  feedback: number;
}

export interface AssembleOptions {
  weights: ScoreWeights;
  /**
   * Rules, pins and the brief are always named; shown in full only up to this share of
   * the budget, beyond it the lowest-value ones become previews or title lines.
   */
  fixedShare: number;
  /** Share of the budget left after the fixed tier; unused shares roll over, then back-fill. */
  split: { global: number; task: number; path: number };
  /**
   * A layer's share is spent only on artifacts worth at least this fraction of the best
   * candidate's worth; weaker ones wait for the back-fill. Without it a layer with nothing
   * good fills its share with near-misses in full while a strong match of another layer
   * stays a title line.
   */
  layerFloor: number;
  /** Leave out an artifact whose text a more valuable one in the context already has (word 3-grams, 90%). */
  dedupe: boolean;
  /** Lower is more important. */
  typePriority: Record<ArtifactType, number>;
  /** Recency halves every this many days (relative to `now`). */
  halfLifeDays: number;
  /** BM25F: field boosts, length normalisation per field, saturation. */
  fieldWeights: { title: number; tags: number; paths: number; body: number };
  fieldB: { title: number; tags: number; paths: number; body: number };
  k1: number;
  /**
   * Query term weights by where the term came from; `kinds`: the vocabulary of the change
   * kinds of the files in play (changeKinds.ts), added for standing rules only.
   */
  queryWeights: { title: number; description: number; labels: number; paths: number; kinds: number };
  /** Degrade to previews and titles; off means full bodies only. */
  previews: boolean;
  titles: boolean;
  /** Preview length in characters (cut at a grapheme and, where possible, a word boundary). */
  previewChars: number;
  /** What a preview and a title line are worth relative to the full text, for packing. */
  modeValue: { preview: number; title: number };
  /**
   * Expected worth of an artifact for packing: the chance it is what the agent needs, a
   * logistic function of its score, 1 / (1 + e^(-worthSlope x (score - worthMidpoint))).
   * An absolute scale, not one relative to the best match: when nothing matches well,
   * the budget goes to several previews and titles rather than one weak match in full.
   */
  worthSlope: number;
  worthMidpoint: number;
  /**
   * The least expected worth of a rule loaded for every file (a root AGENTS.md or CLAUDE.md,
   * copilot-instructions.md, an always-on rule, and their parts) where records compete with it
   * and no folder's or glob's rule is in scope: the same logistic with its own slope and
   * midpoint, fitted by maximum likelihood to how often rules in scope held a unit the task
   * needed on realbench and the devset (bench/devset/calibrate.mjs; docs/benchmarks.md).
   * Slope 0 turns it off.
   */
  ruleWorth: { slope: number; midpoint: number };
  /**
   * Path-scope artifacts whose globs match no active path: 'rank' lets them compete in
   * the global layer on their text relevance (with a penalty), 'exclude' leaves them out,
   * 'rules' (the default) leaves out standing rules (conventions: their paths are where they
   * apply, as for the agent tools) and ranks records (their paths say what they concern).
   * Anything the task names, and everything when no file is in play, is ranked.
   */
  unmatchedPathArtifacts: 'rank' | 'rules' | 'exclude';
  unmatchedPathPenalty: number;
  /** Share of the path signal an artifact gets with no text relevance at all (0..1). */
  pathAlone: number;
  /**
   * Matching by meaning (latent semantic analysis of the ledger's own text): `weight` is the
   * share of a record's text relevance that comes from it (0 = words only; standing rules are
   * always matched by words), `evidence` the cosine at which a meaning match alone lets a
   * record compete, as a word match does.
   */
  meaning: { weight: number; evidence: number };
  /**
   * Candidates with no evidence of relevance (no term, path or reference match) are left out,
   * and so are those whose text relevance (relative to the best match, 0..1) is under this
   * with neither a reference nor a path match: weak matches do not fill left-over room.
   */
  minRelevance: number;
  /** Redaction: 'off' disables; `allow` lists exact strings or /regex/ sources never redacted. */
  redact: boolean;
  redactAllow: string[];
  includeTaskBrief: boolean;
  /** L4 workflow memory and L5 knowledge-production instructions. */
  includeWorkflow: boolean;
  includeInstructions: boolean;
  /** Caps for L4 / L5 as a share of the budget. */
  workflowShare: number;
  instructionsShare: number;
  /** Explain mode: also report older versions of chains (bigger result). */
  reportOlderVersions: boolean;
  /**
   * Inspector: give every excluded artifact its token count in full. Counts are cached per
   * body, but the first build of a large ledger counts every body once, so it is opt-in.
   */
  reportExcludedTokens: boolean;
  /**
   * Agent-written artifacts no person has approved: 'include' shows them under a visible
   * "unreviewed" marker, 'hold' leaves them out (reason `unreviewed`) until approved.
   */
  unreviewed: 'include' | 'hold';
  /** Knowledge prompt per stage name (L5), over the defaults; '' asks for nothing at that stage. */
  stagePrompts: Record<string, string>;
}

export interface AssembleTask {
  id?: string;
  title?: string;
  description?: string;
  labels?: string[];
  stage?: string;
}

export interface AssembleRequest {
  /** Tokens; a finite integer >= 0. */
  budget: number;
  tokenizer?: TokenizerName;
  now?: Date;
  /** When omitted, the store's active task. */
  task?: AssembleTask;
  /** Active workspace-relative paths (open editors, edited files, named in the task). */
  paths?: string[];
  options?: PartialOptions;
  /** Who asked: 'cli' | 'command' | 'status-bar' | 'auto-inject' | 'lm-tool' | ... */
  trigger?: string;
  /** Default true: write an assembly_log row and count injections. */
  log?: boolean;
  /** Live sources (code, diagnostics, docs, deployment, git, conversation) the caller collected. */
  sources?: LiveSourcesRequest;
  /**
   * What the reader already has, so the budget buys only the rest: for an artifact to leave
   * out, why (e.g. "Claude Code loads CLAUDE.md itself"); undefined to rank it as usual.
   * Agent hooks use it for what the agent loads on its own and what the session received.
   */
  leaveOut?: (artifact: Artifact) => string | undefined;
}

export type PartialOptions = {
  [K in keyof AssembleOptions]?: AssembleOptions[K] extends string[]
    ? string[]
    : AssembleOptions[K] extends object
      ? Partial<AssembleOptions[K]>
      : AssembleOptions[K];
};

export interface ResultItem {
  id: string;
  chainId: string;
  title: string;
  type: ArtifactType;
  mode: ItemMode;
  layer: Layer;
  tokens: number;
  score: number;
  components: ScoreComponents;
  reason: string;
  /** Secrets were masked in what was rendered (a redacted body is never reported `full`). */
  redacted?: boolean;
  /** Agent-written, not yet approved: rendered under the "unreviewed" marker. */
  unreviewed?: boolean;
  /** Who wrote it (`agent:<name>`); set only for unreviewed items. */
  source?: string;
  /** A module memory whose paths changed in commits after its last update (src/core/git.ts markStale). */
  stale?: StaleFlag;
  /**
   * Shown by its sections (mode `preview`): the parts of a long artifact that match the
   * task, each whole, at `ledger://artifact/<id>#<slug>`.
   */
  sections?: Array<{ slug: string; heading: string; tokens: number }>;
  /** Shown compressed (mode `preview`): the full text did not fit, the budget left had room for more than a preview. */
  compression?: { level: 'medium' | 'heavy'; ratio: number; tokensBefore: number };
}

export interface ExcludedItem {
  id: string;
  title: string;
  type: ArtifactType;
  /** The layer it was (or would have been) placed in. */
  layer?: Layer;
  /** What it would cost in full, with `reportExcludedTokens`. */
  tokens?: number;
  reason: ExclusionReason;
  detail?: string;
  score?: number;
  components?: ScoreComponents;
  stale?: StaleFlag;
}

/** What the assembly log keeps of what was left out: every exclusion that says something (the first 500); the long tail of unrelated artifacts only as a count. */
export interface ExcludedSummary {
  counts: Record<string, number>;
  items: Array<[string, string]>;
  truncated: number;
}

export interface AssembleResult {
  budget: number;
  tokenizer: TokenizerName;
  tokensUsed: number;
  text: string;
  items: ResultItem[];
  excluded: ExcludedItem[];
  layers: Partial<Record<Layer, { budget: number; used: number }>> & Record<(typeof LAYERS)[number], { budget: number; used: number }>;
  redactions: { count: number; kinds: Record<string, number> };
  candidates: number;
  durationMs: number;
  outputHash: string;
  logId?: number;
  /** The task the context was built for, if any (for explain). */
  task?: { id?: string; title: string; stage?: string };
  /** Globs that could not be parsed, with the artifact that holds them. */
  invalidGlobs: Array<{ id: string; glob: string; error: string }>;
  /** Live sources: the task profile, what was included (with compression) and what was not. */
  live?: LiveReport;
}

/** A commit that changed files a module memory's paths cover. */
export interface StaleCommit {
  hash: string;
  subject: string;
  date?: string;
  /** The commit's files that the memory's paths cover. */
  files: string[];
}

/** A module memory whose paths changed in commits after its last update (made by core/git.ts staleMemories). */
export interface StaleFlag {
  /** The memory's last update: commits after it count. */
  since: string;
  /** Newest first, at most MAX_STALE_COMMITS (core/git.ts). */
  commits: StaleCommit[];
  /** How many commits there were, when more than are listed. */
  total?: number;
}
