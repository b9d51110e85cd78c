import { ARTIFACT_TYPES, DEFAULT_TYPE_PRIORITY, UserError } from '../model';
import type { AssembleOptions, PartialOptions } from './types';
import { DEFAULT_STAGE_PROMPTS } from './workflow';

export const DEFAULT_BUDGET = 8000;
/** Far beyond any model's window; a bigger number is a typo, not a request. */
export const MAX_BUDGET = 2_000_000;

/** The measured blend for matching by meaning (the default): words stay the main reading. */
export const MEANING_ON = Object.freeze({ weight: 0.3 });
/** Matching by words alone (`--no-meaning`, `contextLedger.meaning: false`). */
export const MEANING_OFF = Object.freeze({ weight: 0 });

export const DEFAULT_ASSEMBLE_OPTIONS: AssembleOptions = Object.freeze({
  // Recency only breaks near-ties: knowledge is not news. An accepted decision from two
  // years ago binds as much as last week's; what makes knowledge stale is supersession
  // (chains) and code moving on (stale flags), both handled on their own.
  weights: Object.freeze({ relevance: 1, reference: 0.6, path: 0.7, recency: 0.03, type: 0.1, feedback: 0.15 }),
  fixedShare: 0.2,
  split: Object.freeze({ global: 0.5, task: 0.3, path: 0.2 }),
  layerFloor: 0.05,
  dedupe: true,
  typePriority: Object.freeze({ ...DEFAULT_TYPE_PRIORITY }),
  halfLifeDays: 90,
  fieldWeights: Object.freeze({ title: 3, tags: 1.5, paths: 1.5, body: 1 }),
  fieldB: Object.freeze({ title: 0.3, tags: 0.3, paths: 0.3, body: 0.75 }),
  k1: 2,
  // A label is a topic someone chose for the task ("security", "journal"): it weighs as much as a word of the description.
  // The kind of a file in play is certain, but what it says of the task is broad (every test
  // change, not this one): its vocabulary weighs as the paths' own words do.
  queryWeights: Object.freeze({ title: 1, description: 0.8, labels: 0.8, paths: 0.25, kinds: 0.25 }),
  previews: true,
  titles: true,
  previewChars: 140,
  modeValue: Object.freeze({ preview: 0.5, title: 0.15 }),
  worthSlope: 8,
  worthMidpoint: 1,
  // How often a rule in scope held a unit the task needed, by its score: a logistic fitted by
  // maximum likelihood on realbench's and the devset's 959 rules in scope, within slope 1.0-1.75,
  // midpoint 1.15-1.525 with any one repository left out (bench/devset/calibrate.mjs). Used only
  // for the rules loaded for every file against records (`rulesAgainstRecords` in packing.ts).
  ruleWorth: Object.freeze({ slope: 1.25, midpoint: 1.4 }),
  unmatchedPathArtifacts: 'rules',
  unmatchedPathPenalty: 0.15,
  pathAlone: 0.3,
  // Blended into the text relevance of records (decisions, learnings, notes), not of standing
  // rules (see scoreArtifact): public 0.604 -> 0.617, realbench 0.831 -> 0.838, devset unchanged
  // (docs/benchmarks.md). 0.3: words stay the main reading. A meaning match alone lets an artifact
  // in only at a cosine where the development sets admitted almost nothing unjudged.
  meaning: Object.freeze({ weight: MEANING_ON.weight, evidence: 0.7 }),
  // The budget is a ceiling, not a target: a text match under a twentieth of the best one's,
  // with nothing else pointing to it (not named by the task, no path match), shares a word or
  // two with the task and is not worth the agent's reading, however much room is left.
  minRelevance: 0.05,
  redact: true,
  redactAllow: Object.freeze([]) as unknown as string[],
  includeTaskBrief: true,
  includeWorkflow: true,
  includeInstructions: true,
  workflowShare: 0.08,
  instructionsShare: 0.05,
  reportOlderVersions: false,
  reportExcludedTokens: false,
  unreviewed: 'include',
  stagePrompts: Object.freeze({ ...DEFAULT_STAGE_PROMPTS }),
});

function finiteNumber(value: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new UserError(`Option "${name}" must be a number between ${min} and ${max}; got ${JSON.stringify(value)}.`);
  }
  return value;
}

function mergeNumbers<T extends object>(base: T, patch: object | undefined, name: string, max?: number): T {
  if (patch === undefined) return { ...base };
  if (patch === null || typeof patch !== 'object') throw new UserError(`Option "${name}" must be an object.`);
  const out = { ...base } as Record<string, number>;
  for (const [key, value] of Object.entries(patch)) {
    if (!(key in base)) throw new UserError(`Unknown option "${name}.${key}".`, `Known: ${Object.keys(base).join(', ')}.`);
    if (value === undefined) continue;
    out[key] = finiteNumber(value, `${name}.${key}`, 0, max);
  }
  return out as T;
}

function flag(value: unknown, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new UserError(`Option "${name}" must be true or false.`);
  return value;
}

/** Defaults overlaid with what the caller set; unknown or out-of-range settings are user errors. */
export function resolveOptions(patch: PartialOptions | undefined): AssembleOptions {
  const d = DEFAULT_ASSEMBLE_OPTIONS;
  const p = patch ?? {};
  if (typeof p !== 'object') throw new UserError('Assemble options must be an object.');
  const known = new Set(Object.keys(d));
  for (const key of Object.keys(p)) if (!known.has(key)) throw new UserError(`Unknown assemble option "${key}".`);
  const typePriority = mergeNumbers(d.typePriority, p.typePriority, 'typePriority', 100);
  for (const type of ARTIFACT_TYPES) if (typePriority[type] === undefined) typePriority[type] = 9;
  const split = mergeNumbers(d.split, p.split, 'split', 1);
  const sum = split.global + split.task + split.path;
  if (sum <= 0) throw new UserError('Option "split" needs at least one positive share.');
  const unmatched = p.unmatchedPathArtifacts ?? d.unmatchedPathArtifacts;
  if (unmatched !== 'rank' && unmatched !== 'rules' && unmatched !== 'exclude') throw new UserError('Option "unmatchedPathArtifacts" must be "rank", "rules" or "exclude".');
  const unreviewed = p.unreviewed ?? d.unreviewed;
  if (unreviewed !== 'include' && unreviewed !== 'hold') throw new UserError('Option "unreviewed" must be "include" or "hold".');
  const prompts = p.stagePrompts ?? {};
  if (prompts === null || typeof prompts !== 'object' || Array.isArray(prompts) || Object.values(prompts).some((v) => typeof v !== 'string')) {
    throw new UserError('Option "stagePrompts" must map stage names to text.', 'For example { "plan": "Record the plan (plan)." }.');
  }
  const allow = p.redactAllow ?? d.redactAllow;
  if (!Array.isArray(allow) || allow.some((x) => typeof x !== 'string')) throw new UserError('Option "redactAllow" must be a list of strings.');
  return {
    weights: mergeNumbers(d.weights, p.weights, 'weights', 100),
    fixedShare: finiteNumber(p.fixedShare ?? d.fixedShare, 'fixedShare', 0, 1),
    split: { global: split.global / sum, task: split.task / sum, path: split.path / sum },
    layerFloor: finiteNumber(p.layerFloor ?? d.layerFloor, 'layerFloor', 0, 1),
    dedupe: flag(p.dedupe, d.dedupe, 'dedupe'),
    typePriority,
    halfLifeDays: finiteNumber(p.halfLifeDays ?? d.halfLifeDays, 'halfLifeDays', 0.01, 1e6),
    fieldWeights: mergeNumbers(d.fieldWeights, p.fieldWeights, 'fieldWeights', 100),
    fieldB: mergeNumbers(d.fieldB, p.fieldB, 'fieldB', 1),
    k1: finiteNumber(p.k1 ?? d.k1, 'k1', 0.01, 100),
    queryWeights: mergeNumbers(d.queryWeights, p.queryWeights, 'queryWeights', 100),
    previews: flag(p.previews, d.previews, 'previews'),
    titles: flag(p.titles, d.titles, 'titles'),
    previewChars: Math.floor(finiteNumber(p.previewChars ?? d.previewChars, 'previewChars', 20, 100_000)),
    modeValue: mergeNumbers(d.modeValue, p.modeValue, 'modeValue', 1),
    worthSlope: finiteNumber(p.worthSlope ?? d.worthSlope, 'worthSlope', 0, 100),
    worthMidpoint: finiteNumber(p.worthMidpoint ?? d.worthMidpoint, 'worthMidpoint', 0, 100),
    ruleWorth: mergeNumbers(d.ruleWorth, p.ruleWorth, 'ruleWorth', 100),
    unmatchedPathArtifacts: unmatched,
    unmatchedPathPenalty: finiteNumber(p.unmatchedPathPenalty ?? d.unmatchedPathPenalty, 'unmatchedPathPenalty', 0, 100),
    pathAlone: finiteNumber(p.pathAlone ?? d.pathAlone, 'pathAlone', 0, 1),
    meaning: mergeNumbers(d.meaning, p.meaning, 'meaning', 1),
    minRelevance: finiteNumber(p.minRelevance ?? d.minRelevance, 'minRelevance', 0, 100),
    redact: flag(p.redact, d.redact, 'redact'),
    redactAllow: [...allow],
    includeTaskBrief: flag(p.includeTaskBrief, d.includeTaskBrief, 'includeTaskBrief'),
    includeWorkflow: flag(p.includeWorkflow, d.includeWorkflow, 'includeWorkflow'),
    includeInstructions: flag(p.includeInstructions, d.includeInstructions, 'includeInstructions'),
    workflowShare: finiteNumber(p.workflowShare ?? d.workflowShare, 'workflowShare', 0, 1),
    instructionsShare: finiteNumber(p.instructionsShare ?? d.instructionsShare, 'instructionsShare', 0, 1),
    reportOlderVersions: flag(p.reportOlderVersions, d.reportOlderVersions, 'reportOlderVersions'),
    reportExcludedTokens: flag(p.reportExcludedTokens, d.reportExcludedTokens, 'reportExcludedTokens'),
    unreviewed,
    stagePrompts: { ...d.stagePrompts, ...(prompts as Record<string, string>) },
  };
}

/** The budget must be a whole, non-negative, sane number of tokens. */
export function validateBudget(budget: unknown): number {
  if (typeof budget !== 'number' || !Number.isFinite(budget)) {
    throw new UserError(`The budget must be a number of tokens; got ${JSON.stringify(budget)}.`, 'For example --budget 8000.');
  }
  if (!Number.isInteger(budget) || budget < 0) {
    throw new UserError(`The budget must be a whole number of tokens, 0 or more; got ${budget}.`);
  }
  if (budget > MAX_BUDGET) {
    throw new UserError(`A budget of ${budget} tokens is more than any model reads (the limit here is ${MAX_BUDGET}).`);
  }
  return budget;
}
