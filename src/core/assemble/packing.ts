import { STANDING_RULE_TYPES, type TaskEvent } from '../model';
import type { LivePlan } from '../sources/live';
import { type Build, artifactCost, artifactEstimate } from './blocks';
import type { Candidate } from './candidates';
import { DuplicateFinder, type Fingerprint, fingerprintOf } from './duplicates';
import { type Level, type PackEntry, type PackState, packGreedy, takeOut } from './pack';
import { redactSecrets } from './redact';
import { type SectionKey, SECTION_TITLES, sectionFor, taskBrief } from './render';
import type { ResolvedTask } from './request';
import { expectedWorth } from './score';
import { SECTION_MIN_CHARS, settleSections } from './sectionCandidates';
import type { AssembleOptions, Layer } from './types';
import { LAYERS } from './types';
import { instructionsFor, workflowNarrative } from './workflow';

export interface BriefState {
  level: Level;
  title: string;
  full: string;
}

/** A block of fixed text (workflow memory, recording instructions) and its cost; '' when left out. */
export interface FixedText {
  text: string;
  cost: number;
}

/** What the packing stage decided: each entry's level, what the budget still holds, and the pieces around the knowledge. */
export interface Packing {
  budget: number;
  state: PackState;
  entryOf: Map<PackEntry, Candidate>;
  brief: BriefState;
  briefCost: { title: number; full: number };
  fixedEntries: PackEntry[];
  /** Rules and pins, then the task, path and global layers' entries. */
  allEntries: PackEntry[];
  livePlan: LivePlan | undefined;
  liveEntries: PackEntry[];
  liveUsage: ReturnType<LivePlan['pack']> | undefined;
  workflow: FixedText;
  instructions: FixedText;
  layerBudget: Record<Layer, { budget: number; used: number }>;
  /** Entries taken out as saying what a kept one says, with the kept one's id. */
  duplicateOf: Map<PackEntry, string>;
}

export interface PackInput {
  build: Build;
  budget: number;
  task: ResolvedTask | undefined;
  candidates: readonly Candidate[];
  /** Live sources' plan, when the request asked for live sources. */
  livePlan: LivePlan | undefined;
}

const VALUE_OF_LEVEL = (options: AssembleOptions): readonly [number, number, number, number] => [
  0,
  options.titles ? options.modeValue.title : 0,
  options.previews ? options.modeValue.preview : 0,
  1,
];

/** A standing rule its tool loads for a file in play: a folder's, a glob's or one loaded for every file (or a part of one). */
function isRuleInScope(c: Candidate): boolean {
  return c.pathMatch !== undefined && STANDING_RULE_TYPES.has(c.artifact.type);
}

/**
 * Whether a candidate is valued on the rules' curve (`ruleWorth`) rather than the records'
 * steep one: the rules loaded for every file where records compete (`rulesAgainstRecords`),
 * and a short rule in scope whose title names the kind of change in play ("Linting",
 * "Testing", "Build and Development Commands" for a code change). The latter govern every
 * change of their kind and share no word with most tasks, so on words alone they are worth a
 * twentieth of a rule about the task's topic; graders of every development set marked them
 * needed by most tasks. A long rule so titled ("Go Style Rules") is many rules, each on its
 * own topic: the sections stage says which parts the work needs.
 */
function valuedAsRule(c: Candidate, againstRecords: boolean): boolean {
  if (againstRecords && isRuleInScope(c)) return true;
  return c.titledForKind !== undefined && c.artifact.body.length < SECTION_MIN_CHARS;
}

/** Whether the ledger's records (decisions, learnings, notes, plans) compete with the rules for the room. */
function recordsCompete(candidates: readonly Candidate[]): boolean {
  return candidates.some((c) => c.layer !== 'fixed' && !STANDING_RULE_TYPES.has(c.artifact.type));
}

/**
 * Whether the rules in scope are valued at least at what such rules were measured to be worth
 * (`ruleWorth`) instead of on the records' steep curve: where records compete with them and
 * the only rules in scope are those loaded for every file (a root AGENTS.md or CLAUDE.md,
 * copilot-instructions.md, always-on rules). Records long and rich in the task's words then
 * outrank, on words alone, the team's whole standing word for the file (test first, change
 * scope, where the instructions are), which such rules hold one time in four or five
 * (docs/benchmarks.md). Where a folder's or a glob's rules are in scope, they are the nearer
 * word and come first in the packer's order; raising the root's rules beside them let short
 * root sections take the room of the folder's own (measured: agent-framework lower). Among
 * rules alone the steep curve orders them as the development sets chose.
 */
function rulesAgainstRecords(candidates: readonly Candidate[]): boolean {
  return recordsCompete(candidates) && !candidates.some((c) => isRuleInScope(c) && c.pathMatch!.kind !== 'everywhere');
}

/** A candidate as the packer sees it: a value, a cost per level and the levels it may take. */
function makeEntry(build: Build, c: Candidate, entryOf: Map<PackEntry, Candidate>, againstRecords: boolean): PackEntry {
  const { options } = build;
  const a = c.artifact;
  // Bit `level` set: that level's cost was asked for exactly (and is memoised since).
  let exact = 0;
  const entry: PackEntry = {
    key: a.id,
    // Rules and pins are always named (packFixedTier); their text is bought, like the rest,
    // by its worth to the task: valued alike, the fixed share went to the cheapest pins first
    // (growthbook: a short overview no task needed over the guidelines every task did).
    // A section is worth its share of its artifact's match (sectionCandidates.ts).
    value: c.layer === 'fixed' ? expectedWorth(Math.max(0, c.score), options) : expectedWorth(c.score, options, valuedAsRule(c, againstRecords)) * (c.sectionShare ?? 1),
    updatedMs: c.doc.updatedMs,
    // A pin's sections are shown under it, beside its preview, though they rank with the rest.
    section: sectionFor(c.sectionOf?.layer ?? c.layer, a),
    // A section is shown whole or not at all: its artifact's own title line and preview point to it.
    allowed: c.sectionOf ? [true, false, false, true] : [true, options.titles || c.layer === 'fixed', options.previews || c.layer === 'fixed', true],
    cost: (level, wantExact) => {
      if (wantExact || (exact & (1 << level)) !== 0) {
        exact |= 1 << level;
        return artifactCost(build, a, level);
      }
      return artifactEstimate(a, level, options.previewChars);
    },
    isExact: (level) => (exact & (1 << level)) !== 0,
    level: 0,
  };
  entryOf.set(entry, c);
  return entry;
}

/** The task brief, in full or as its title, if the budget allows. */
function packBrief(build: Build, task: ResolvedTask | undefined, state: PackState): { brief: BriefState; briefCost: { title: number; full: number } } {
  const { options, counter } = build;
  const brief: BriefState = { level: 0, title: '', full: '' };
  let briefCost = { title: 0, full: 0 };
  if (task && options.includeTaskBrief && (task.title || task.description)) {
    const red = (t: string): string => (options.redact ? redactSecrets(t, options.redactAllow).text : t);
    const meta = [task.labels.length ? `Labels: ${task.labels.join(', ')}.` : '', task.stage ? `Stage: ${task.stage}.` : ''].filter(Boolean).join(' ');
    const said = taskBrief(red(task.title), red(task.description), meta);
    brief.title = said.title;
    brief.full = said.full;
    const header = state.headerCost('brief');
    briefCost = { title: counter.count(brief.title) + header, full: counter.count(brief.full) + header };
    if (briefCost.full <= state.remaining) {
      brief.level = 3;
      state.remaining -= briefCost.full;
    } else if (briefCost.title <= state.remaining) {
      brief.level = 1;
      state.remaining -= briefCost.title;
    }
  }
  return { brief, briefCost };
}

/** Rules and pins: every one named if the budget allows at all, then full text or previews within the fixed share. */
function packFixedTier(fixedEntries: PackEntry[], state: PackState, budget: number, options: AssembleOptions): number {
  const { sectionCounts } = state;
  // Every rule and pin is at least named (in value order) if the budget allows at all...
  for (const entry of fixedEntries) {
    const cost = entry.cost(1, true) + ((sectionCounts.get('noted') ?? 0) === 0 ? state.headerCost('noted') : 0);
    if (cost <= state.remaining) {
      entry.level = 1;
      state.remaining -= cost;
      sectionCounts.set('noted', (sectionCounts.get('noted') ?? 0) + 1);
    }
  }
  // ...and shown in full or as a preview within the fixed tier's share.
  const fixedCap = Math.max(0, Math.floor(budget * options.fixedShare) - (budget - state.remaining));
  packGreedy(fixedEntries, state, fixedCap);
  return budget - state.remaining;
}

/** Workflow memory (L4) within its share: the longest narrative of the task's events that fits. */
function packWorkflow(build: Build, task: ResolvedTask | undefined, state: PackState, budget: number): FixedText {
  const { options, counter } = build;
  const events: TaskEvent[] = task?.id && options.includeWorkflow ? build.store.taskEvents(task.id) : [];
  const workflow: FixedText = { text: '', cost: 0 };
  if (events.length === 0) return workflow;
  const cap = Math.min(state.remaining, Math.floor(budget * options.workflowShare));
  for (let limit = 8; limit >= 1; limit = Math.floor(limit / 2)) {
    const text = workflowNarrative(events, limit);
    if (!text) break;
    const red = options.redact ? redactSecrets(text, options.redactAllow).text : text;
    const cost = counter.count(red) + state.headerCost('workflow');
    if (cost <= cap) {
      workflow.text = red;
      workflow.cost = cost;
      break;
    }
  }
  state.remaining -= workflow.cost;
  return workflow;
}

/** Recording instructions (L5) for the task's stage, within their share. */
function packInstructions(build: Build, task: ResolvedTask | undefined, state: PackState, budget: number): FixedText {
  const { options, counter } = build;
  const instructions: FixedText = { text: '', cost: 0 };
  if (task && task.stage && options.includeInstructions) {
    const text = instructionsFor(task.stage, options.stagePrompts);
    const cost = counter.count(text) + state.headerCost('instructions');
    if (text !== '' && cost <= Math.min(state.remaining, Math.floor(budget * options.instructionsShare))) {
      instructions.text = text;
      instructions.cost = cost;
      state.remaining -= cost;
    }
  }
  return instructions;
}

/**
 * The rules the agent tools load for the files in play (a folder's AGENTS.md, a glob-scoped
 * instructions file, a root AGENTS.md or CLAUDE.md) are, like rules and pins, what the team
 * asked every agent to read. Where the ledger's records compete with them for the room, the
 * part of the fixed tier's share that rules and pins left unused goes to these rules first,
 * in the packer's order (the nearest folder's first): records, long and rich in the task's
 * words, would otherwise push them out on a relevance measured against the records themselves.
 * With no records the layers rank the rules among themselves as before.
 */
function packRulesInScope(
  entries: Record<'task' | 'path' | 'global', PackEntry[]>,
  candidates: readonly Candidate[],
  entryOf: ReadonlyMap<PackEntry, Candidate>,
  state: PackState,
  room: number,
): void {
  if (room <= 0 || !recordsCompete(candidates)) return;
  const inScope = [...entries.task, ...entries.path, ...entries.global].filter((e) => {
    const c = entryOf.get(e)!;
    // A part offered only for room nothing else can use does not take this room from the layers.
    return STANDING_RULE_TYPES.has(c.artifact.type) && c.pathMatch !== undefined && c.roomLeft !== true;
  });
  packGreedy(inScope, state, room);
}

/**
 * Task, path and global layers, each within its share with roll-over to the next, then
 * back-fill of whatever is left with the best of everything.
 */
function packLayers(
  build: Build,
  candidates: readonly Candidate[],
  entryOf: Map<PackEntry, Candidate>,
  state: PackState,
  budget: number,
  layerBudget: Record<Layer, { budget: number; used: number }>,
  unusedFixedShare: number,
): Record<'task' | 'path' | 'global', PackEntry[]> {
  const { options } = build;
  // A title line costs at least this many tokens, so no more entries than this can ever be shown.
  const maxShown = Math.ceil(budget / 6) + 16;
  // The rules loaded for every file are worth what such rules were measured to be worth
  // (`ruleWorth`) where records compete with them and no folder or glob rule of the files in
  // play is nearer: see `rulesAgainstRecords`.
  const againstRecords = rulesAgainstRecords(candidates);
  const entriesOf = (layer: 'task' | 'path' | 'global'): PackEntry[] =>
    candidates
      .filter((c) => c.layer === layer)
      .slice(0, maxShown)
      .map((c) => makeEntry(build, c, entryOf, againstRecords));
  const entries = { task: entriesOf('task'), path: entriesOf('path'), global: entriesOf('global') };
  packRulesInScope(entries, candidates, entryOf, state, unusedFixedShare);
  const rest = state.remaining;
  // A layer with nothing to offer gives its share to the others in proportion, not all of
  // it to whichever layer happens to be packed next.
  const present = (['task', 'path', 'global'] as const).filter((l) => entries[l].length > 0);
  const presentShare = present.reduce((sum, l) => sum + options.split[l], 0);
  let rollover = 0;
  let bestWorth = 0;
  for (const layer of ['task', 'path', 'global'] as const) for (const e of entries[layer]) if (e.value > bestWorth) bestWorth = e.value;
  const floor = options.layerFloor * bestWorth;
  const strong = (list: PackEntry[]): PackEntry[] => (floor > 0 ? list.filter((e) => e.value >= floor) : list);
  for (const layer of ['task', 'path', 'global'] as const) {
    const fraction = entries[layer].length === 0 ? 0 : presentShare > 0 ? options.split[layer] / presentShare : 0;
    const share = Math.floor(rest * fraction) + rollover;
    layerBudget[layer].budget = share;
    const spent = packGreedy(strong(entries[layer]), state, share);
    rollover = share - spent;
  }
  // What the floor held back goes first to strong matches another layer's share cut short,
  // then, as before, to the best of everything (rules and pins first).
  if (floor > 0) packGreedy(strong([...entries.task, ...entries.path, ...entries.global]), state, state.remaining);
  return entries;
}

/**
 * The packing stage: the task brief, the fixed tier (rules and pins), workflow memory and
 * recording instructions, live sources, then the layers and back-fill, then duplicates
 * taken out. Levels are chosen on estimated and exact costs per block; the degradation
 * stage corrects for what only the whole document's count shows.
 */
export function packContext(input: PackInput): Packing {
  const { build, budget, task, candidates, livePlan } = input;
  const { options, counter } = build;
  const headerCosts = new Map<SectionKey, number>();
  const headerCost = (section: SectionKey): number => {
    let n = headerCosts.get(section);
    if (n === undefined) {
      n = counter.count(`${SECTION_TITLES[section]}\n\n`) + 1;
      headerCosts.set(section, n);
    }
    return n;
  };
  const state: PackState = { remaining: budget, sectionCounts: new Map(), headerCost, levelValue: VALUE_OF_LEVEL(options) };
  const liveEntries = livePlan?.allEntries() ?? [];
  const entryOf = new Map<PackEntry, Candidate>();
  const { brief, briefCost } = packBrief(build, task, state);

  const fixedEntries = candidates.filter((c) => c.layer === 'fixed').map((c) => makeEntry(build, c, entryOf, false));
  const fixedUsed = packFixedTier(fixedEntries, state, budget, options);
  const workflow = packWorkflow(build, task, state, budget);
  const instructions = packInstructions(build, task, state, budget);

  // Live sources take their share (each within its cap) before the ledger's layers split the rest.
  const liveUsage = livePlan?.pack(state, state.remaining);
  const layerBudget = Object.fromEntries(LAYERS.map((l) => [l, { budget: 0, used: 0 }])) as Record<Layer, { budget: number; used: number }>;
  const fixedShare = Math.floor(budget * options.fixedShare);
  layerBudget.fixed.budget = Math.max(fixedUsed, fixedShare);
  layerBudget.workflow.budget = workflow.cost;
  layerBudget.instructions.budget = instructions.cost;
  const entries = packLayers(build, candidates, entryOf, state, budget, layerBudget, fixedShare - fixedUsed);
  const allEntries = [...fixedEntries, ...entries.task, ...entries.path, ...entries.global];
  packGreedy(allEntries, state, state.remaining);
  settleSections(allEntries, entryOf, state);
  const duplicateOf = options.dedupe ? dropDuplicates(allEntries, entryOf, state) : new Map<PackEntry, string>();
  return { budget, state, entryOf, brief, briefCost, fixedEntries, allEntries, livePlan, liveEntries, liveUsage, workflow, instructions, layerBudget, duplicateOf };
}

/**
 * Takes out shown artifacts that say what a more valuable shown one already says (the
 * same decision recorded twice, a note pasted into a learning) and spends what that frees
 * on the next best. Rules and pins are never the ones taken out. Returns each taken-out
 * entry with the id of the artifact kept.
 */
export function dropDuplicates(entries: readonly PackEntry[], entryOf: ReadonlyMap<PackEntry, Candidate>, state: PackState): Map<PackEntry, string> {
  const duplicateOf = new Map<PackEntry, string>();
  const print = (entry: PackEntry): Fingerprint => {
    const a = entryOf.get(entry)!.artifact;
    return fingerprintOf(a.contentHash, a.body);
  };
  // What the freed budget brings in is checked again; the last round only takes out.
  for (let round = 0; ; round++) {
    const shown = entries
      .filter((e) => e.level > 0)
      .sort((a, b) => Number(entryOf.get(b)!.layer === 'fixed') - Number(entryOf.get(a)!.layer === 'fixed') || b.value - a.value || b.updatedMs - a.updatedMs || (a.key < b.key ? -1 : 1));
    const kept = new DuplicateFinder<PackEntry>();
    let dropped = false;
    for (const entry of shown) {
      const title = entryOf.get(entry)!.artifact.title;
      const same = entryOf.get(entry)!.layer === 'fixed' ? undefined : kept.find(print(entry), title);
      if (!same) {
        kept.keep(entry, print(entry), title);
        continue;
      }
      takeOut(entry, state);
      entry.allowed = [true, false, false, false];
      duplicateOf.set(entry, same.key);
      dropped = true;
    }
    if (!dropped || round === 4) break;
    packGreedy(entries, state, state.remaining);
  }
  return duplicateOf;
}
