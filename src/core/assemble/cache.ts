import { type Artifact, STANDING_RULE_TYPES, type TokenizerName } from '../model';
import { loadedForEveryFile } from '../formats/ruleFiles';
import { isUnreviewed } from '../review';
import type { LedgerStore } from '../store';
import { TokenCounter } from '../tokens';
import { cachedGlob } from './gating';
import type { CompiledGlob } from './paths';
import { MeaningModel } from './meaning';
import { type IndexParams, INDEX_BODY_CHARS, SearchIndex } from './relevance';
import { TermExtractor } from './docTerms';
import { TermVectors, extractionVersion } from './termVectors';
import { foldForPhrase } from './text';
import type { Layer } from './types';

export type ArtifactLayer = Exclude<Layer, 'workflow' | 'instructions'>;

/** Where an artifact goes before path matching: a path-scope one that matches nothing may rank in global instead. */
export function intendedLayer(a: Artifact): ArtifactLayer {
  return a.type === 'constitution' || a.pinned ? 'fixed' : a.scope === 'task' ? 'task' : a.scope === 'path' ? 'path' : 'global';
}

/**
 * A standing rule with no paths of its own that its tool loads for every file: imported from
 * a root file of a kind always loaded (AGENTS.md, CLAUDE.md, copilot-instructions.md…), or
 * from a file the tool itself marks always-on (Cursor's `alwaysApply: true`, Copilot's
 * `applyTo: "**"`), which the importer pins and tags `always`. Either way it is in scope for
 * whatever file is in play, as the tool treats it; a user's own pin is always in, but is not
 * a rule some tool loads, so it is not given a path match it does not have.
 */
function loadedEverywhere(a: Artifact): boolean {
  if (a.paths.length > 0 || !STANDING_RULE_TYPES.has(a.type)) return false;
  return loadedForEveryFile(a.source) || (a.pinned && a.tags.includes('always'));
}

export interface DocInfo {
  artifact: Artifact;
  layer: ArtifactLayer;
  /** Position in the search index, or -1 when the artifact is not indexed (not active). */
  slot: number;
  globs: CompiledGlob[];
  invalidGlobs: Array<{ glob: string; error: string }>;
  foldedTitle: string;
  foldedId: string;
  /** First words of the folded title and id: a phrase can only be in the task if its first word is. */
  titleHead: string;
  idHead: string;
  updatedMs: number;
  /** A standing rule its tool loads for every file, with no paths of its own (see `loadedEverywhere`). */
  everywhere: boolean;
  /**
   * Stands in for unreviewed agent knowledge while `unreviewed: 'hold'` keeps it out: the
   * reviewed version an agent's new version would replace, or the artifact its proposed
   * replacement supersedes. Until a person approves, the reviewed knowledge stays in.
   */
  standIn?: boolean;
}

export interface RenderMemo {
  body: string;
  bodyHash: string;
  redactions: Record<string, number>;
  redactionCount: number;
  preview?: string;
  previewRedactions?: Record<string, number>;
}

export interface LedgerIndex {
  generation: number;
  paramsKey: string;
  docs: DocInfo[];
  /** How many documents the search index holds (the docs with a slot): known without building it. */
  indexed: number;
  /**
   * The search index of the docs with a slot, built on first use: a build whose query has no
   * term (a hook at session start with no file in play) scores nothing and never builds it.
   */
  readonly index: SearchIndex;
  /** The index's latent-meaning model once a build asked for it (null: the ledger is too small to learn from); see `meaningModel`. */
  meaning?: MeaningModel | null;
  /** Each change kind's vocabulary scored over the index, by kind and weight: the same query in every build. */
  kindScores?: Map<string, Float64Array>;
  /** Rendered bodies and token counts, keyed by content hash and the options that shape them. */
  renders: Map<string, RenderMemo>;
  counts: Map<string, number>;
  /** Titles and ids folded for phrase look-ups, by their text: the next index after a change folds only the new ones. */
  folded: Map<string, string>;
}

const indexes = new WeakMap<LedgerStore, LedgerIndex>();
const counters = new WeakMap<LedgerStore, Map<TokenizerName, TokenCounter>>();

export function paramsKey(params: IndexParams): string {
  return JSON.stringify([params.fieldWeights, params.fieldB, params.k1]);
}

/** The first word of a `foldForPhrase` result (` word more `). */
export function firstWord(folded: string): string {
  const end = folded.indexOf(' ', 1);
  return end < 0 ? folded.slice(1) : folded.slice(1, end);
}

function parseTime(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

/**
 * The search index and per-artifact derived data for the store's current contents, built
 * once per store generation (and index parameters) and reused by every later build.
 */
export function ledgerIndex(store: LedgerStore, params: IndexParams): LedgerIndex {
  const key = paramsKey(params);
  const cached = indexes.get(store);
  if (cached && cached.generation === store.generation && cached.paramsKey === key) return cached;
  if (cached && cached.generation === store.generation) {
    // Same artifacts, other index parameters: keep the per-artifact data, rebuild only the index.
    const active = cached.docs.filter((d) => d.slot >= 0).map((d) => d.artifact);
    // Each field but the index (a getter, which a spread would call: building the old index first) and the meaning model.
    const { generation, docs, indexed, kindScores, renders, counts, folded } = cached;
    const rebuilt = withLazyIndex({ generation, paramsKey: key, docs, indexed, ...(kindScores ? { kindScores } : {}), renders, counts, folded }, () => SearchIndex.build(active, params, termExtractor(store)));
    indexes.set(store, rebuilt);
    return rebuilt;
  }
  const latest = store.latestArtifacts();
  const replacedByProposal = new Set<string>();
  for (const a of latest) if (a.supersedes && isUnreviewed(a)) replacedByProposal.add(a.supersedes);
  const artifacts: Array<{ artifact: Artifact; standIn: boolean }> = latest.map((a) => ({ artifact: a, standIn: a.status === 'superseded' && replacedByProposal.has(a.chainId) }));
  for (const a of latest) {
    if (a.version === 1 || !isUnreviewed(a)) continue;
    const reviewed = store.history(a.id).reverse().find((v) => v.version < a.version && !isUnreviewed(v));
    if (reviewed) artifacts.push({ artifact: reviewed, standIn: true });
  }
  // In id order, not the store's: the store lists artifacts in the order they were written,
  // which an import of the same files need not repeat, and the meaning model's topics depend on
  // the order of its documents. The same knowledge gives the same ranking on every machine.
  artifacts.sort((a, b) => (a.artifact.id < b.artifact.id ? -1 : a.artifact.id > b.artifact.id ? 1 : a.artifact.version - b.artifact.version));
  const docs: DocInfo[] = [];
  const active: Artifact[] = [];
  const folded = new Map<string, string>();
  const fold = (text: string): string => {
    let done = folded.get(text);
    if (done === undefined) {
      done = cached?.folded.get(text) ?? foldForPhrase(text);
      folded.set(text, done);
    }
    return done;
  };
  for (const { artifact, standIn } of artifacts) {
    const globs: CompiledGlob[] = [];
    const invalidGlobs: DocInfo['invalidGlobs'] = [];
    for (const raw of artifact.paths) {
      const compiled = cachedGlob(raw);
      if ('error' in compiled) invalidGlobs.push({ glob: raw, error: compiled.error });
      else globs.push(compiled);
    }
    const slot = artifact.status === 'active' || standIn ? active.length : -1;
    if (slot >= 0) active.push(artifact);
    const foldedTitle = fold(artifact.title);
    const foldedId = fold(artifact.id);
    docs.push({
      artifact,
      layer: intendedLayer(artifact),
      slot,
      globs,
      invalidGlobs,
      foldedTitle,
      foldedId,
      titleHead: firstWord(foldedTitle),
      idHead: firstWord(foldedId),
      updatedMs: parseTime(artifact.updatedAt),
      everywhere: loadedEverywhere(artifact),
      ...(standIn ? { standIn } : {}),
    });
  }
  const built = withLazyIndex(
    {
      generation: store.generation,
      paramsKey: key,
      docs,
      indexed: active.length,
      renders: cached?.renders ?? new Map<string, RenderMemo>(),
      counts: cached?.counts ?? new Map<string, number>(),
      folded,
    },
    () => SearchIndex.build(active, params, termExtractor(store)),
  );
  indexes.set(store, built);
  return built;
}

/** `fields` with an `index` built by `build` when first read, then kept. */
function withLazyIndex(fields: Omit<LedgerIndex, 'index'>, build: () => SearchIndex): LedgerIndex {
  let index: SearchIndex | undefined;
  return Object.defineProperty(fields, 'index', { get: () => (index ??= build()), enumerable: true }) as LedgerIndex;
}

/**
 * The latent-meaning model of the index's documents, learned on the first build that asks
 * and kept with the index (so once per ledger content and index parameters).
 */
export function meaningModel(idx: LedgerIndex): MeaningModel | undefined {
  if (idx.meaning === undefined) idx.meaning = MeaningModel.build(idx.index) ?? null;
  return idx.meaning ?? undefined;
}

let version: string | undefined;
const extractors = new WeakMap<LedgerStore, TermExtractor>();

/**
 * The store's term extractor: reads bodies' terms from the store's kept term vectors instead
 * of scanning text again, and keeps every document's terms for the next index of the store,
 * so an index after a change reads only the changed documents.
 */
function termExtractor(store: LedgerStore): TermExtractor {
  let extractor = extractors.get(store);
  if (!extractor) {
    version ??= extractionVersion(INDEX_BODY_CHARS);
    extractor = new TermExtractor(new TermVectors(store, version));
    extractors.set(store, extractor);
  }
  return extractor;
}

/**
 * The assembler's own writes (assembly log, injection counts) do not change artifacts;
 * carry the index over them so the next build does not re-read every row.
 */
export function carryIndexOverOwnWrites(store: LedgerStore, generationBefore: number): void {
  const cached = indexes.get(store);
  if (cached && cached.generation === generationBefore) cached.generation = store.generation;
}

/** The store's counter for `tokenizer`: it loads the tokenizer only for a count the store has not cached. */
export function tokenCounter(store: LedgerStore, tokenizer: TokenizerName): TokenCounter {
  let byName = counters.get(store);
  if (!byName) {
    byName = new Map();
    counters.set(store, byName);
  }
  let counter = byName.get(tokenizer);
  if (!counter) {
    counter = TokenCounter.lazy(tokenizer, store);
    byName.set(tokenizer, counter);
  }
  return counter;
}
