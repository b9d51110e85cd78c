import { type ArtifactType, type Feedback, FADING_HALF_LIFE_DAYS, STANDING_RULE_TYPES } from '../model';
import type { DocInfo } from './cache';
import { type ActivePath, LABEL_SPECIFICITY, type PathMatch, pathProximity } from './paths';
import type { AssembleOptions, ScoreComponents } from './types';

export const DAY_MS = 86_400_000;

export interface ScoreInput {
  /** BM25F score and the best BM25F score among the candidates (0 when the query is empty). */
  bm25: number;
  bm25Max: number;
  /** Cosine of task and artifact in the ledger's latent-meaning space (0..1), when the ledger has that model, and the best among the candidates. */
  meaning?: number;
  meaningMax?: number;
  /** The task names this artifact (its id, its title or one of its paths). */
  referenced: boolean;
  /** Specificity of the best glob match with an active path (0 = none). */
  pathSpecificity: number;
  /** For a path-scope artifact matching no active path: how near its globs are (0..1). */
  proximity: number;
  unmatchedPath: boolean;
  /** For such an artifact: a task label names one of its folders (`folderNamedByLabel`). */
  labelFolder?: boolean;
  ageDays: number;
  typePriority: number;
  maxTypePriority: number;
  feedback: Feedback | undefined;
  /** A standing rule (a convention): what the agent tools load for every file of its scope, whatever the task. */
  standing?: boolean;
  /** The path match is that of a rule loaded for every file (`everywhereMatch`), not of a glob naming the files in play. */
  everywhere?: boolean;
  /** How much the artifact's kind counts for this task, its age and the task's profile aside from text (1 = as is): see `kindFactor`. */
  kindFactor?: number;
}

/**
 * Research findings fade with age (FADING_HALF_LIFE_DAYS) and count more when the task is
 * itself research (a spike builds on the last spike); every other kind counts as it is.
 */
export function kindFactor(type: ArtifactType, ageDays: number, researchTask: () => boolean): number {
  const halfLife = FADING_HALF_LIFE_DAYS[type];
  if (halfLife === undefined) return 1;
  const fade = Math.pow(0.5, Math.max(0, ageDays) / halfLife);
  return fade * (type === 'research' && researchTask() ? RESEARCH_PROFILE_BOOST : 1);
}

/** A research task weighs earlier findings this much more: the profile weighs its own kind of knowledge, as it does its sources. */
const RESEARCH_PROFILE_BOOST = 1.3;

export function emptyComponents(): ScoreComponents {
  return { relevance: 0, reference: 0, path: 0, recency: 0, type: 0, feedback: 0 };
}

export function sumComponents(c: ScoreComponents): number {
  return c.relevance + c.reference + c.path + c.recency + c.type + c.feedback;
}

/**
 * Smoothed usefulness in (-1, 1): unanimous verdicts count more the more there are, and
 * injections never marked either way weigh it down a little (it was shown and nobody cared).
 */
export function feedbackSignal(feedback: Feedback | undefined): number {
  if (!feedback) return 0;
  const verdicts = feedback.useful + feedback.notUseful;
  if (verdicts === 0) return 0;
  const silent = Math.max(0, feedback.timesInjected - verdicts);
  return (feedback.useful - feedback.notUseful) / (verdicts + 2 + 0.1 * silent);
}

/** The text match (0..1) by words alone, and blended with meaning where meaning is read (else the same). */
function textMatch(input: Pick<ScoreInput, 'bm25' | 'bm25Max' | 'meaning' | 'meaningMax'>, options: AssembleOptions): { words: number; text: number } {
  const words = input.bm25Max > 0 ? input.bm25 / input.bm25Max : 0;
  // Meaning and words are two readings of the same question, so they share the relevance weight.
  // Each is read relative to the best match of the build, so the best match by either counts 1.
  const meaning = input.meaning !== undefined && input.meaningMax ? input.meaning / input.meaningMax : undefined;
  return { words, text: meaning === undefined ? words : (1 - options.meaning.weight) * words + options.meaning.weight * meaning };
}

/** Weighted score components; the score is their sum. */
export function scoreComponents(input: ScoreInput, options: AssembleOptions): ScoreComponents {
  const w = options.weights;
  const relevance = textMatch(input, options).text * (input.kindFactor ?? 1);
  // A path match says "this is about the files in play"; whether it is about the task is
  // the text's job. So the path signal grows with relevance, keeping `pathAlone` of it without.
  // A standing rule written for the folder of a file in play is what every agent tool loads
  // for that file without reading the task: its path match counts whole, and the files in
  // play name it as the task naming it would (the reference weight), scaled by the match's
  // specificity so the nearest folder's rules come first. A rule loaded for every file (a
  // root AGENTS.md) is in scope too, but no file in play names it more than any other file
  // would: its path match counts, the reference does not.
  const inScopeRule = input.standing === true && input.pathSpecificity > 0;
  const topical = inScopeRule ? 1 : options.pathAlone + (1 - options.pathAlone) * relevance;
  let path = input.pathSpecificity * topical;
  if (input.unmatchedPath) path = input.labelFolder ? LABEL_SPECIFICITY * topical : 0.5 * input.proximity * topical - options.unmatchedPathPenalty;
  const age = Math.max(0, input.ageDays);
  const recency = Math.pow(0.5, age / options.halfLifeDays);
  const type = input.maxTypePriority > 0 ? 1 - Math.min(input.typePriority, input.maxTypePriority) / input.maxTypePriority : 1;
  return {
    relevance: w.relevance * relevance,
    reference: input.referenced ? w.reference : inScopeRule && !input.everywhere ? w.reference * input.pathSpecificity : 0,
    path: w.path * path,
    recency: w.recency * recency,
    type: w.type * type,
    feedback: w.feedback * feedbackSignal(input.feedback),
  };
}

/**
 * The chance an artifact with this score is what the agent needs (see `worthSlope`). A rule
 * in scope valued against records (`asRule`, see `rulesAgainstRecords` in packing.ts) is worth
 * at least what such rules were measured to be worth (`ruleWorth`): the team wrote it for every
 * change there, and the task's words rarely name it, so its score says little of whether it is
 * needed; a strong match keeps the steep curve's worth.
 */
export function expectedWorth(score: number, options: AssembleOptions, asRule = false): number {
  const steep = 1 / (1 + Math.exp(-options.worthSlope * (score - options.worthMidpoint)));
  const { slope, midpoint } = options.ruleWorth;
  if (!asRule || slope <= 0) return steep;
  return Math.max(steep, 1 / (1 + Math.exp(-slope * (score - midpoint))));
}

/** What scoring knows about the build: the task's words, the BM25F scores and the options. */
export interface ScoreContext {
  options: AssembleOptions;
  now: Date;
  task: { id?: string } | undefined;
  taskText: string;
  /** The task text and labels folded by foldForPhrase, and its words. */
  foldedTask: string;
  taskWords: ReadonlySet<string>;
  /** BM25F score per index slot, and the best among the candidates. */
  bm25: ArrayLike<number>;
  bm25Max: number;
  /** Latent-meaning cosine per index slot, and the best among the candidates; undefined when the ledger has no model or the query no known word. */
  meaning?: ArrayLike<number>;
  meaningMax?: number;
  active: readonly ActivePath[];
  feedback: ReadonlyMap<string, Feedback>;
  maxTypePriority: number;
  isResearchTask: () => boolean;
}

export interface Scored {
  components: ScoreComponents;
  score: number;
  proximity: number;
  referenced: boolean;
  bm25: number;
  /** Latent-meaning cosine with the task (0 when unknown or negative). */
  meaning: number;
  /** How much meaning moved the weighted text relevance from the words' reading alone (0 when it was not read). */
  meaningLift: number;
}

/**
 * Whether the task names the artifact: its own task's knowledge, its id or title written in
 * the task text, or one of its literal paths.
 */
export function isReferenced(doc: DocInfo, ctx: ScoreContext): boolean {
  const a = doc.artifact;
  // Knowledge written for the active task is named by it as surely as by its title.
  const ownTask = a.scope === 'task' && ctx.task?.id !== undefined && a.taskId === ctx.task.id;
  return (
    ownTask ||
    (ctx.task !== undefined &&
      ((doc.foldedId.length > 4 && ctx.taskWords.has(doc.idHead) && ctx.foldedTask.includes(doc.foldedId)) ||
        (doc.foldedTitle.length >= 12 && ctx.taskWords.has(doc.titleHead) && doc.foldedTitle.trim().includes(' ') && ctx.foldedTask.includes(doc.foldedTitle)) ||
        doc.globs.some((g) => g.literal && g.glob.length >= 4 && ctx.taskText.includes(g.glob))))
  );
}

/** The scoring stage for one admitted artifact: its weighted components and their sum. */
export function scoreArtifact(doc: DocInfo, admitted: { pathMatch: PathMatch | undefined; unmatchedPath: boolean; labelFolder?: string }, ctx: ScoreContext): Scored {
  const a = doc.artifact;
  const { options } = ctx;
  const proximity = admitted.unmatchedPath ? pathProximity(doc.globs, ctx.active) : 0;
  const referenced = isReferenced(doc, ctx);
  const bm25 = doc.slot >= 0 ? ctx.bm25[doc.slot]! : 0;
  // Meaning reads records only. A decision, learning or module note is written in the words of
  // the problem it once solved, which a later task names in other words: the vocabulary
  // mismatch meaning bridges. A standing rule is written to be applied: it names the commands,
  // folders and kinds of change it governs, and its paths and the change's kinds bring it in;
  // blended with meaning, the workflow rules the change kind brings in lost their place to
  // topical neighbours (docs/benchmarks.md).
  const meaning = ctx.meaning && doc.slot >= 0 && !STANDING_RULE_TYPES.has(a.type) ? Math.max(0, ctx.meaning[doc.slot]!) : undefined;
  const ageDays = (ctx.now.getTime() - doc.updatedMs) / DAY_MS;
  const kind = kindFactor(a.type, ageDays, ctx.isResearchTask);
  const input: ScoreInput = {
    bm25,
    bm25Max: ctx.bm25Max,
    ...(meaning !== undefined ? { meaning, meaningMax: ctx.meaningMax ?? 0 } : {}),
    referenced,
    pathSpecificity: admitted.pathMatch?.specificity ?? 0,
    proximity,
    unmatchedPath: admitted.unmatchedPath,
    labelFolder: admitted.labelFolder !== undefined,
    ageDays,
    typePriority: options.typePriority[a.type] ?? ctx.maxTypePriority,
    maxTypePriority: ctx.maxTypePriority,
    feedback: ctx.feedback.get(a.id),
    standing: STANDING_RULE_TYPES.has(a.type),
    everywhere: admitted.pathMatch?.kind === 'everywhere',
    kindFactor: kind,
  };
  const components = scoreComponents(input, options);
  // What meaning moved the weighted relevance by: 0 where meaning is not read.
  const { words, text } = textMatch(input, options);
  const meaningLift = options.weights.relevance * kind * (text - words);
  return { components, score: sumComponents(components), proximity, referenced, bm25, meaning: meaning ?? 0, meaningLift };
}
