import { type Artifact, type Feedback, STANDING_RULE_TYPES } from '../model';
import type { BodySection } from '../sections';
import { type ArtifactLayer, type DocInfo, type LedgerIndex, meaningModel } from './cache';
import { type AdmitContext, admit, leftOutItem, moduleLabelKeys } from './admit';
import { changeKindsOf, kindNamedByTitle } from './changeKinds';
import { type ActivePath, type PathMatch, playNamesPattern } from './paths';
import { type QuerySource, buildQuery } from './relevance';
import type { ResolvedTask } from './request';
import { type ScoreContext, isReferenced, scoreArtifact } from './score';
import { foldForPhrase } from './text';
import type { AssembleOptions, AssembleResult, ExcludedItem, ScoreComponents } from './types';

/** An artifact that passed the gate and was scored well enough to compete for the budget. */
export interface Candidate {
  doc: DocInfo;
  artifact: Artifact;
  layer: ArtifactLayer;
  components: ScoreComponents;
  score: number;
  pathMatch?: PathMatch;
  proximity: number;
  unmatchedPath: boolean;
  /** For a path-scope artifact matching no file in play: the folder of its paths a task label names. */
  labelFolder?: string;
  referenced: boolean;
  bm25: number;
  /** The change kinds of the files in play whose rule vocabulary is a good part of this item's text match (see KIND_SHARE). */
  changeKinds?: string[];
  /** The latent-meaning cosine with the task when the artifact came in by meaning: no word of the task, but a cosine of at least `meaning.evidence`. */
  meaningMatch?: number;
  /** How much meaning raised (or lowered) the text relevance from the words' reading, when enough to name (MEANING_LIFT_SHOWN). */
  meaningLift?: number;
  /** For a section of a long artifact (sectionCandidates.ts): the artifact's own candidate, and which section. */
  sectionOf?: Candidate;
  section?: BodySection;
  /** The share of the artifact's match with the task that the section holds (0..1]. */
  sectionShare?: number;
  /** The file in play the section names, when that is why it is offered. */
  namesFile?: string;
  /** A part of a rule in scope the task does not single out: offered for room nothing else can use (sectionCandidates.ts). */
  roomLeft?: boolean;
  /** For a rule in scope: the change kind of the files in play its title names (`kindNamedByTitle`). */
  titledForKind?: string;
}

export interface CandidateInput {
  idx: LedgerIndex;
  options: AssembleOptions;
  task: ResolvedTask | undefined;
  taskText: string;
  active: readonly ActivePath[];
  now: Date;
  feedback: ReadonlyMap<string, Feedback>;
  /** Whether the task is research (its profile), for the weight of research findings. */
  isResearchTask?: () => boolean;
  /** The request's `leaveOut`: what the reader already has. */
  leaveOut?: (artifact: Artifact) => string | undefined;
}

export interface CandidateSet {
  /** Best first. */
  candidates: Candidate[];
  /**
   * What the gate or the score left out, in ledger order: a below-threshold artifact (most
   * of a large ledger) is kept as its candidate and becomes an ExcludedItem only if someone
   * reads `result.excluded`; most builds hand over their text and never look.
   */
  leftOut: Array<ExcludedItem | Candidate>;
  invalidGlobs: AssembleResult['invalidGlobs'];
  /** Neither task words nor paths: every artifact is as relevant as any other. */
  queryEmpty: boolean;
  /** The change kind of the files in play a rule's title or a part's heading names (`kindNamedByTitle`). */
  titleKind: (title: string) => string | undefined;
}

export function compareCandidates(a: Candidate, b: Candidate): number {
  return b.score - a.score || b.doc.updatedMs - a.doc.updatedMs || (a.artifact.id < b.artifact.id ? -1 : a.artifact.id > b.artifact.id ? 1 : 0);
}

/** Whether anything points to the candidate: a word or meaning match, the task naming it, its paths. Everything counts when the query is empty. */
export function hasEvidence(c: Candidate, queryEmpty: boolean): boolean {
  return queryEmpty || c.bm25 > 0 || c.meaningMatch !== undefined || c.referenced || c.pathMatch !== undefined || c.proximity > 0;
}

/** A text match too weak to take room, however much is left (the budget is a ceiling): under `minRelevance` of the best. */
export function isWeakMatch(c: Pick<Candidate, 'components'>, options: AssembleOptions): boolean {
  return c.components.relevance < options.minRelevance * options.weights.relevance;
}

/** The task's own words as query sources: its title, description and labels. */
export function taskSources(task: ResolvedTask | undefined, options: AssembleOptions): QuerySource[] {
  if (!task) return [];
  return [
    { text: task.title, weight: options.queryWeights.title },
    { text: task.description, weight: options.queryWeights.description },
    { text: task.labels.join(' '), weight: options.queryWeights.labels },
  ];
}

/** The weighted query: the task's title, description and labels, and the active paths' words. */
function taskQuery(task: ResolvedTask | undefined, active: readonly ActivePath[], options: AssembleOptions): Map<string, number> {
  const sources = taskSources(task, options);
  // Each path's words (its extension too) count alike, however many paths there are.
  sources.push({ paths: active.map((a) => a.path), weight: options.queryWeights.paths });
  return buildQuery(sources);
}

/**
 * `explain` names a change kind for an item when the kind's vocabulary makes up at least
 * this share of its text match: enough that without it the item would rank clearly lower.
 */
const KIND_SHARE = 0.25;

/**
 * The standing rules about the kinds of the files in play, by BM25F slot: each kind's
 * vocabulary scored as a query of its own at the `kinds` weight, kept apart so `explain`
 * can say which kind brought an item in. Only standing rules take it: a rule about tests
 * applies to every test change, while a decision or a learning that mentions tests is about
 * what it says, which the task's own words must reach.
 */
function kindScores(idx: LedgerIndex, active: readonly ActivePath[], options: AssembleOptions): Array<{ name: string; scores: Float64Array }> {
  if (options.queryWeights.kinds <= 0) return [];
  // A kind's vocabulary is the same query in every build: scored once per ledger content, kept with the index (read, never written).
  const kept = (idx.kindScores ??= new Map<string, Float64Array>());
  return changeKindsOf(active).map((kind) => {
    const key = `${kind.name}\u0000${options.queryWeights.kinds}`;
    let scores = kept.get(key);
    if (scores === undefined) {
      scores = idx.index.score(buildQuery([{ text: kind.vocabulary, weight: options.queryWeights.kinds }]));
      kept.set(key, scores);
    }
    return { name: kind.name, scores };
  });
}

/**
 * Candidates, gating and scoring: every artifact of the ledger passes the gate (`admit`) or
 * is left out with a reason; the admitted are scored (`scoreArtifact`) and kept when some
 * evidence points to them. Rules and pins stay whatever their score.
 */
export function collectCandidates(input: CandidateInput): CandidateSet {
  const { idx, options, task, taskText, active } = input;
  const query = taskQuery(task, active, options);
  // No query term scores nothing: the search index is not built for it.
  const bm25 = query.size === 0 ? new Float64Array(idx.indexed) : idx.index.score(query);
  const kinds = kindScores(idx, active, options);
  const kindsOf = new Map<number, string[]>();
  if (kinds.length > 0) {
    for (const doc of idx.docs) {
      if (doc.slot < 0 || !STANDING_RULE_TYPES.has(doc.artifact.type)) continue;
      let added = 0;
      for (const k of kinds) added += k.scores[doc.slot]!;
      if (added <= 0) continue;
      bm25[doc.slot]! += added;
      const named = kinds.filter((k) => k.scores[doc.slot]! >= KIND_SHARE * bm25[doc.slot]!).map((k) => k.name);
      if (named.length > 0) kindsOf.set(doc.slot, named);
    }
  }
  const queryEmpty = query.size === 0 && active.length === 0;
  const meaning = options.meaning.weight > 0 && query.size > 0 ? meaningModel(idx)?.similarity(query, (term) => idx.index.idf(term)) : undefined;
  const foldedTask = foldForPhrase(`${taskText} ${task?.labels.join(' ') ?? ''}`);
  const supersededBy = new Map<string, string>();
  for (const doc of idx.docs) if (doc.artifact.supersedes) supersededBy.set(doc.artifact.supersedes, doc.artifact.id);
  let bm25Max = 0;
  let meaningMax = 0;
  for (const doc of idx.docs) {
    if (doc.slot < 0) continue;
    if (bm25[doc.slot]! > bm25Max) bm25Max = bm25[doc.slot]!;
    if (meaning && meaning[doc.slot]! > meaningMax) meaningMax = meaning[doc.slot]!;
  }
  const scoreContext: ScoreContext = {
    options,
    now: input.now,
    task,
    taskText,
    foldedTask,
    taskWords: new Set(foldedTask.split(' ')),
    bm25,
    bm25Max,
    ...(meaning ? { meaning, meaningMax } : {}),
    active,
    feedback: input.feedback,
    isResearchTask: input.isResearchTask ?? (() => false),
    maxTypePriority: Math.max(0, ...Object.values(options.typePriority)),
  };

  const admitContext: AdmitContext = {
    options,
    taskId: task?.id,
    gate: { labels: new Set(task?.labels.map((l) => l.toLowerCase()) ?? []), foldedText: foldedTask, paths: active },
    active,
    supersededBy,
    namedByTask: (doc) => isReferenced(doc, scoreContext),
    labelKeys: moduleLabelKeys(task?.labels ?? [], idx.docs),
    playNames: playNamesPattern(active),
  };

  const titleKind = kindNamedByTitle(changeKindsOf(active));
  const leftOut: Array<ExcludedItem | Candidate> = [];
  const invalidGlobs: AssembleResult['invalidGlobs'] = [];
  const candidates: Candidate[] = [];
  for (const doc of idx.docs) {
    const a = doc.artifact;
    for (const bad of doc.invalidGlobs) invalidGlobs.push({ id: a.id, glob: bad.glob, error: bad.error });
    // An earlier version standing in for a held proposal counts only while holding.
    if (doc.standIn && options.unreviewed !== 'hold' && a.status !== 'superseded') continue;
    const given = input.leaveOut?.(a);
    if (given !== undefined) {
      leftOut.push(leftOutItem(a, doc.layer, 'given', given));
      continue;
    }
    const admitted = admit(doc, admitContext, invalidGlobs);
    if (!admitted.admitted) {
      leftOut.push(admitted.excluded);
      continue;
    }
    const scored = scoreArtifact(doc, admitted, scoreContext);
    const candidate: Candidate = {
      doc,
      artifact: a,
      layer: admitted.layer,
      components: scored.components,
      score: scored.score,
      proximity: scored.proximity,
      unmatchedPath: admitted.unmatchedPath,
      referenced: scored.referenced,
      bm25: scored.bm25,
      pathMatch: admitted.pathMatch,
      ...(admitted.labelFolder !== undefined ? { labelFolder: admitted.labelFolder } : {}),
    };
    const byKind = kindsOf.get(doc.slot);
    if (byKind) candidate.changeKinds = byKind;
    if (admitted.pathMatch !== undefined && STANDING_RULE_TYPES.has(a.type)) {
      const titled = titleKind(a.title);
      if (titled !== undefined) candidate.titledForKind = titled;
    }
    // A meaning match is named only where no word matched: then it is what points to the artifact.
    if (meaning !== undefined && scored.meaning >= options.meaning.evidence && scored.bm25 === 0) candidate.meaningMatch = scored.meaning;
    else if (Math.abs(scored.meaningLift) >= MEANING_LIFT_SHOWN) candidate.meaningLift = scored.meaningLift;
    const relevantEnough = !isWeakMatch(candidate, options) || candidate.referenced || candidate.pathMatch !== undefined;
    if (doc.layer !== 'fixed' && (!hasEvidence(candidate, queryEmpty) || !relevantEnough || candidate.score <= 0)) {
      leftOut.push(candidate);
      continue;
    }
    candidates.push(candidate);
  }
  candidates.sort(compareCandidates);
  return { candidates, leftOut, invalidGlobs, queryEmpty, titleKind };
}

/**
 * One rule per file stands for a kind of change: where several sections of one file are titled
 * for it ("Running tests", "Quarantined tests", "Disabled tests"), they are the kind's topics,
 * of which the work needs the one its words or paths favour, so only the best-ranked keeps the
 * kind's worth (`valuedAsRule`); the others rank on their words like any rule.
 */
export function keepOneTitledPerFile(set: CandidateSet): void {
  const kept = new Set<string>();
  for (const c of set.candidates) {
    if (c.titledForKind === undefined) continue;
    const file = `${c.titledForKind}\u0000${c.sectionOf?.artifact.id ?? c.artifact.source ?? c.artifact.id}`;
    if (kept.has(file)) delete c.titledForKind;
    else kept.add(file);
  }
}

/** A lift by meaning smaller than this is a rounding of the words' reading, not a reason worth a reader's attention. */
const MEANING_LIFT_SHOWN = 0.05;

/** Why a candidate is where it is, in words (`explain`, the log, the inspector). */
export function explainCandidate(c: Candidate, task: ResolvedTask | undefined): string {
  const parts: string[] = [];
  if (c.layer === 'fixed') parts.push(c.artifact.type === 'constitution' ? 'constitution rule (always in)' : 'pinned (always in)');
  if (c.referenced) parts.push('named in the task');
  if (c.pathMatch?.kind === 'everywhere') parts.push(`loaded by its tool for every file (${c.pathMatch.path} in play)`);
  else if (c.pathMatch) parts.push(`${c.pathMatch.kind} path match ${c.pathMatch.glob} ~ ${c.pathMatch.path}`);
  else if (c.labelFolder !== undefined) parts.push(`its folder ${c.labelFolder}/ is a label of the task`);
  else if (c.unmatchedPath) parts.push(c.proximity > 0 ? 'paths near the active files' : 'paths do not match the active files');
  if (c.components.relevance > 0 && c.meaningLift !== undefined) {
    const sign = c.meaningLift > 0 ? '+' : '−';
    parts.push(`text relevance ${c.components.relevance.toFixed(2)} (words ${(c.components.relevance - c.meaningLift).toFixed(2)}, meaning ${sign}${Math.abs(c.meaningLift).toFixed(2)})`);
  } else if (c.components.relevance > 0) parts.push(`text relevance ${c.components.relevance.toFixed(2)}`);
  if (c.changeKinds) parts.push(`change kind: ${c.changeKinds.join(', ')}`);
  if (c.titledForKind !== undefined) parts.push(`its title names the change kind ${c.titledForKind}`);
  if (c.meaningMatch !== undefined) parts.push(`meaning match ${c.meaningMatch.toFixed(2)}`);
  if (c.layer === 'task' && task?.id) parts.push(`task ${task.id}`);
  if (c.components.feedback > 0) parts.push('marked useful');
  if (c.components.feedback < 0) parts.push('marked not useful');
  if (parts.length === 0) parts.push('type and recency');
  return parts.join('; ');
}
