import type { LiveItem } from '../sources/report';
import type { LedgerStore } from '../store';
import { isUnreviewed } from '../review';
import { UNREVIEWED_MARKER, artifactUrn } from '../model';
import { contentHash } from '../tokens';
import { type Build, artifactCost, countRedactionMarkers, rendered } from './blocks';
import { intendedLayer } from './cache';
import { type Candidate, type CandidateSet, explainCandidate, hasEvidence, isWeakMatch } from './candidates';
import type { CompressedBlock } from './compressLeftover';
import type { Fitted } from './degrade';
import type { PackEntry } from './pack';
import type { Packing } from './packing';
import { redactSecrets } from './redact';
import { shownBySections } from './sectionCandidates';
import type { ResolvedTask } from './request';
import type { AssembleResult, ExcludedItem, ExcludedSummary, ItemMode, ResultItem, ScoreComponents } from './types';

export interface ReportInput {
  build: Build;
  task: ResolvedTask | undefined;
  set: CandidateSet;
  packing: Packing;
  compressed: ReadonlyMap<PackEntry, CompressedBlock>;
  fitted: Fitted;
}

/** Secrets masked in what was shown, by kind. */
class RedactionTally {
  readonly kinds: Record<string, number> = {};
  count = 0;
  add(kinds: Record<string, number> | undefined): void {
    for (const [kind, n] of Object.entries(kinds ?? {})) {
      this.kinds[kind] = (this.kinds[kind] ?? 0) + n;
      this.count += n;
    }
  }
}

/** Each shown artifact as the result reports it, in document order; charges each to its layer. */
function shownItems(input: ReportInput, tally: RedactionTally): ResultItem[] {
  const { build, task, packing, compressed } = input;
  const { entryOf, layerBudget } = packing;
  const shownCost = (entry: PackEntry): number => compressed.get(entry)?.tokens ?? entry.cost(entry.level as 1 | 2 | 3, true);
  const items: ResultItem[] = [];
  const shownOrder = [...packing.allEntries].filter((e) => e.level > 0);
  const sectionRank = (e: PackEntry): number => {
    const key = e.level === 1 ? 'noted' : e.section;
    return ['rules', 'pinned', 'task', 'path', 'global', 'noted'].indexOf(key);
  };
  const packOrder = new Map(shownOrder.map((e, i) => [e, i]));
  shownOrder.sort((a, b) => sectionRank(a) - sectionRank(b) || packOrder.get(a)! - packOrder.get(b)!);
  // The sections of one artifact are one item with its id, whether or not its own preview or title line is shown.
  const sectionsOf = new Map<string, { at: number; first: Candidate; shown: NonNullable<ResultItem['sections']>; tokens: number; why: string[]; redacted: boolean }>();
  for (const entry of shownOrder) {
    const c = entryOf.get(entry)!;
    if (c.sectionOf && c.section) {
      const cost = shownCost(entry);
      layerBudget[c.layer].used += cost;
      const { title, memo } = rendered(build, c.artifact);
      tally.add(memo.redactions);
      let known = sectionsOf.get(c.sectionOf.artifact.id);
      if (!known) sectionsOf.set(c.sectionOf.artifact.id, (known = { at: items.length, first: c, shown: [], tokens: 0, why: [], redacted: false }));
      known.shown.push({ slug: c.section.slug, heading: c.section.heading, tokens: cost });
      known.tokens += cost;
      known.why.push(`section "${c.section.heading || 'introduction'}" (${c.roomLeft ? 'a part of a rule in scope, given room nothing else could use' : c.titledForKind !== undefined ? `its heading names the change kind ${c.titledForKind}` : `${Math.round((c.sectionShare ?? 1) * 100)}% of its match`}${c.namesFile !== undefined ? `; names ${c.namesFile}, in play` : ''}) at ${artifactUrn(c.artifact.id)}`);
      if (memo.redactionCount > 0 || title !== c.artifact.title) known.redacted = true;
      continue;
    }
    const { title, memo } = rendered(build, c.artifact);
    let mode: ItemMode = entry.level === 3 ? 'full' : entry.level === 2 ? 'preview' : 'title';
    let reason = explainCandidate(c, task);
    let redacted = false;
    if (entry.level === 3 && memo.redactionCount > 0) {
      tally.add(memo.redactions);
      // What was shown is not the stored body any more: say so instead of claiming "full".
      mode = 'preview';
      redacted = true;
      reason += `; full text with ${memo.redactionCount} secret${memo.redactionCount === 1 ? '' : 's'} masked`;
    } else if (entry.level === 2 && compressed.has(entry)) {
      const shown = compressed.get(entry)!;
      const kinds = countRedactionMarkers(shown.block);
      tally.add(kinds);
      if (Object.keys(kinds).length > 0) redacted = true;
      reason += `; compressed (${shown.how.level}) to ${Math.round(shown.how.ratio * 100)}% of its text: the full text did not fit`;
    } else if (entry.level === 2) {
      tally.add(memo.previewRedactions);
      if (Object.keys(memo.previewRedactions ?? {}).length > 0) redacted = true;
      reason += entry.cost(3, false) > 0 ? '; preview: the full text did not fit' : '';
    } else if (entry.level === 1) {
      reason += '; title only: a preview did not fit';
    }
    if (title !== c.artifact.title) redacted = true;
    const unreviewed = isUnreviewed(c.artifact);
    if (unreviewed) reason += `; unreviewed: written by ${c.artifact.source}, shown under the ${UNREVIEWED_MARKER} marker`;
    items.push({
      id: c.artifact.id,
      chainId: c.artifact.chainId,
      title,
      type: c.artifact.type,
      mode,
      layer: c.layer,
      tokens: shownCost(entry),
      score: round(c.score),
      components: roundComponents(c.components),
      reason,
      ...(redacted ? { redacted: true } : {}),
      ...(unreviewed ? { unreviewed: true, source: c.artifact.source } : {}),
      ...(compressed.has(entry) ? { compression: compressed.get(entry)!.how } : {}),
    });
    layerBudget[c.layer].used += shownCost(entry);
  }
  // Sections join their artifact's item, or stand for it where the first of them is.
  const standalone: Array<{ at: number; item: ResultItem }> = [];
  for (const [id, s] of sectionsOf) {
    const parent = s.first.sectionOf!;
    const reason = `shown by ${s.why.join(', ')}`;
    const item = items.find((i) => i.id === id);
    if (item) {
      // Its title line with its sections says more than a title: a cut of the body, like a preview.
      item.mode = 'preview';
      item.tokens += s.tokens;
      item.sections = s.shown;
      item.reason += `; ${reason}`;
      if (s.redacted) item.redacted = true;
      continue;
    }
    const unreviewed = isUnreviewed(parent.artifact);
    standalone.push({
      at: s.at,
      item: {
        id,
        chainId: parent.artifact.chainId,
        title: rendered(build, parent.artifact).title,
        type: parent.artifact.type,
        // A section is a cut of the body: never reported as the whole.
        mode: 'preview',
        layer: parent.layer,
        tokens: s.tokens,
        score: round(parent.score),
        components: roundComponents(parent.components),
        reason: `${explainCandidate(parent, task)}; ${reason}`,
        sections: s.shown,
        ...(s.redacted ? { redacted: true } : {}),
        ...(unreviewed ? { unreviewed: true, source: parent.artifact.source } : {}),
      },
    });
  }
  for (const { at, item } of standalone.reverse()) items.splice(at, 0, item);
  return items;
}

/**
 * Everything left out, in the order reported: the candidate stage's, then what the budget
 * left out, then older versions. `visit` gets each one's id and reason, and its full entry
 * on demand: the assembly log needs only the first two, for every artifact of the ledger.
 */
function walkExcluded(input: ReportInput, olderVersions: readonly ExcludedItem[], visit: (id: string, reason: ExcludedItem['reason'], item: () => ExcludedItem) => void): void {
  const { set, packing } = input;
  const { entryOf, duplicateOf } = packing;
  for (const e of set.leftOut) {
    if (!('doc' in e)) {
      visit(e.id, e.reason, () => e);
      continue;
    }
    const a = e.artifact;
    visit(a.id, 'below-threshold', () => {
      const evidence = hasEvidence(e, set.queryEmpty);
      const { options } = input.build;
      const weak = evidence && isWeakMatch(e, options);
      const detail = !evidence
        ? 'nothing in the task or paths points to it'
        : weak
          ? `a weak text match (under ${Math.round(options.minRelevance * 100)}% of the best match's): left out however much room is left`
          : 'score too low';
      return { id: a.id, title: a.title, type: a.type, layer: e.layer, reason: 'below-threshold', score: e.score, components: e.components, detail };
    });
  }
  // An artifact shown by its sections is not left out; a section left out is not an artifact of the ledger.
  const bySections = shownBySections(packing.allEntries, entryOf);
  for (const entry of packing.allEntries) {
    if (entry.level > 0) continue;
    const c = entryOf.get(entry)!;
    if (c.sectionOf || bySections.has(c)) continue;
    const same = duplicateOf.get(entry);
    visit(c.artifact.id, same ? 'duplicate' : 'budget', () => ({
      id: c.artifact.id,
      title: c.artifact.title,
      type: c.artifact.type,
      layer: c.layer,
      reason: same ? 'duplicate' : 'budget',
      score: round(c.score),
      components: roundComponents(c.components),
      ...(same ? { detail: `says what ${same} says` } : {}),
    }));
  }
  const inPack = new Set<Candidate>(packing.allEntries.map((e) => entryOf.get(e)!));
  for (const c of set.candidates) {
    if (inPack.has(c) || c.sectionOf) continue;
    visit(c.artifact.id, 'budget', () => ({ id: c.artifact.id, title: c.artifact.title, type: c.artifact.type, layer: c.layer, reason: 'budget', score: round(c.score), components: roundComponents(c.components), detail: 'ranked below what could ever fit' }));
  }
  for (const e of olderVersions) visit(e.id, e.reason, () => e);
}

function excludedList(input: ReportInput, olderVersions: readonly ExcludedItem[]): ExcludedItem[] {
  const excluded: ExcludedItem[] = [];
  walkExcluded(input, olderVersions, (_id, _reason, item) => excluded.push(item()));
  // Titles leave the ledger here too (JSON, explain, the inspector, MCP): masked like bodies.
  const { build } = input;
  const { options } = build;
  if (options.redact) {
    // Room for every title this list can hold: a memo smaller than the ledger starts over
    // on every build and masks all its titles again (10,000 artifacts: ~20 ms a build).
    const room = excluded.length + build.idx.docs.length;
    for (const e of excluded) e.title = shownTitle(e.title, options.redactAllow, room);
  }
  return excluded;
}

const LOGGED_EXCLUSIONS = 500;

function excludedSummary(input: ReportInput, olderVersions: readonly ExcludedItem[]): ExcludedSummary {
  const counts: Record<string, number> = {};
  const items: Array<[string, string]> = [];
  let truncated = 0;
  walkExcluded(input, olderVersions, (id, reason) => {
    counts[reason] = (counts[reason] ?? 0) + 1;
    if (reason === 'below-threshold') return;
    if (items.length < LOGGED_EXCLUSIONS) items.push([id, reason]);
    else truncated++;
  });
  return { counts: sortKeys(counts), items, truncated };
}

/** Titles as they may leave the ledger: secrets masked, memoized across builds (bounded by `room`). */
const shownTitles = new Map<string, string>();
const MIN_TITLE_MEMO = 10_000;
function shownTitle(title: string, allow: readonly string[], room = 0): string {
  const key = `${allow.join('\u0000')}\u0001${title}`;
  let shown = shownTitles.get(key);
  if (shown === undefined) {
    if (shownTitles.size > Math.max(MIN_TITLE_MEMO, room)) shownTitles.clear();
    shownTitles.set(key, (shown = redactSecrets(title, allow).text));
  }
  return shown;
}

/**
 * The report stage: the result's items (what was shown, how and why), each layer's use,
 * the secrets masked, and what was left out (listed on first read: most builds never look).
 */
export function reportResult(input: ReportInput, startedMs: number): { result: AssembleResult; liveItems: LiveItem[] } {
  const { build, task, set, packing, fitted } = input;
  const { store, options } = build;
  const { layerBudget, brief, briefCost, livePlan } = packing;
  const tally = new RedactionTally();
  const items = shownItems(input, tally);
  if (brief.level > 0) {
    layerBudget.fixed.used += brief.level === 3 ? briefCost.full : briefCost.title;
    tally.add(redactSecrets(brief.level === 3 ? brief.full : brief.title, []).kinds);
  }
  if (fitted.extras.workflow) {
    layerBudget.workflow.used = packing.workflow.cost;
    tally.add(redactSecrets(packing.workflow.text, []).kinds);
  }
  if (fitted.extras.instructions) layerBudget.instructions.used = packing.instructions.cost;
  if (!fitted.extras.workflow) layerBudget.workflow.budget = 0;
  if (!fitted.extras.instructions) layerBudget.instructions.budget = 0;

  // Older versions need the database: listed now, while the store is surely open.
  const olderVersions: ExcludedItem[] = [];
  if (options.reportOlderVersions) {
    const latestIds = new Set(build.idx.docs.filter((d) => !d.standIn || d.artifact.status === 'superseded').map((d) => d.artifact.id));
    for (const a of store.listArtifacts({ allVersions: true })) {
      if (!latestIds.has(a.id)) olderVersions.push({ id: a.id, title: a.title, type: a.type, layer: intendedLayer(a), reason: 'older-version', detail: `version ${a.version} of ${a.chainId}` });
    }
  }
  let excluded: ExcludedItem[] | undefined;
  if (options.reportExcludedTokens) {
    excluded = excludedList(input, olderVersions);
    const byId = new Map(build.idx.docs.map((d) => [d.artifact.id, d.artifact]));
    for (const e of excluded) {
      const a = byId.get(e.id) ?? store.getArtifact(e.id);
      if (a) e.tokens = artifactCost(build, a, 3);
    }
  }

  const live = livePlan?.finish();
  if (livePlan && live) {
    for (const [source, usage] of packing.liveUsage ?? []) layerBudget[source] = { budget: usage.budget, used: 0 };
    for (const [source, used] of live.layers) layerBudget[source] = { budget: layerBudget[source]?.budget ?? 0, used };
    tally.add(live.redactions);
  }

  const result: AssembleResult = {
    budget: packing.budget,
    tokenizer: build.tokenizer,
    tokensUsed: fitted.tokensUsed,
    text: fitted.text,
    items,
    // Listed on first read (a reader may come after the store closed: the list needs only memory).
    get excluded(): ExcludedItem[] {
      excluded ??= excludedList(input, olderVersions);
      return excluded;
    },
    set excluded(list: ExcludedItem[]) {
      excluded = list;
    },
    layers: layerBudget,
    redactions: { count: tally.count, kinds: sortKeys(tally.kinds) },
    candidates: set.candidates.filter((c) => !c.sectionOf).length,
    durationMs: 0,
    outputHash: contentHash(fitted.text),
    invalidGlobs: set.invalidGlobs,
    ...(task ? { task: { ...(task.id ? { id: task.id } : {}), title: options.redact ? shownTitle(task.title, options.redactAllow) : task.title, ...(task.stage ? { stage: task.stage } : {}) } } : {}),
    ...(livePlan ? { live: livePlan.report } : {}),
  };
  // For the log: ids and reasons without building every entry, unless the list was built (or replaced) already.
  summaries.set(result, () => (excluded ? summarizeExcluded(excluded) : excludedSummary(input, olderVersions)));
  result.durationMs = round(performance.now() - startedMs);
  return { result, liveItems: live?.items ?? [] };
}

/** The assembly log keeps what was shown, degraded and left out, so `explain` and the inspector can replay a build. */
export function logBuild(store: LedgerStore, result: AssembleResult, taskId: string | undefined, liveItems: readonly LiveItem[], trigger: unknown): number {
  const items = result.items;
  return store.logAssembly({
    at: store.clock.now().toISOString(),
    taskId: taskId ?? null,
    budget: result.budget,
    tokensUsed: result.tokensUsed,
    tokenizer: result.tokenizer,
    candidates: result.candidates,
    included: [
      // Compressed items carry their level and ratio, so the log shows what was shrunk and by how much.
      ...items.map((i) => ({ id: i.id, mode: i.mode, layer: i.layer, tokens: i.tokens, score: i.score, ...(i.compression ? { compression: i.compression.level, ratio: i.compression.ratio } : {}) })),
      ...liveItems.map((i) => ({ id: i.key, mode: i.mode, layer: i.source, tokens: i.tokens, score: i.relevance, ...(i.compression ? { compression: i.compression.level, ratio: i.compression.ratio } : {}) })),
    ],
    degraded: items.filter((i) => i.mode !== 'full').map((i) => ({ id: i.id, mode: i.mode })),
    excluded: excludedSummaryOf(result),
    layers: result.layers,
    durationMs: result.durationMs,
    outputHash: result.outputHash,
    trigger: typeof trigger === 'string' && trigger !== '' ? trigger : 'api',
  });
}

const summaries = new WeakMap<AssembleResult, () => ExcludedSummary>();

/**
 * What the assembly log keeps of `result.excluded`. For a result straight from the
 * assembler it is worked out from the build, without listing (and masking the titles of)
 * every artifact of the ledger; for any other (a copy), from its list.
 */
export function excludedSummaryOf(result: AssembleResult): ExcludedSummary {
  return summaries.get(result)?.() ?? summarizeExcluded(result.excluded);
}

/** The summary of a list already built (or replaced by a caller). */
function summarizeExcluded(excluded: readonly ExcludedItem[]): ExcludedSummary {
  const counts: Record<string, number> = {};
  const items: Array<[string, string]> = [];
  for (const e of excluded) {
    counts[e.reason] = (counts[e.reason] ?? 0) + 1;
    if (e.reason !== 'below-threshold' && items.length < LOGGED_EXCLUSIONS) items.push([e.id, e.reason]);
  }
  return { counts: sortKeys(counts), items, truncated: Math.max(0, excluded.filter((e) => e.reason !== 'below-threshold').length - LOGGED_EXCLUSIONS) };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

function roundComponents(c: ScoreComponents): ScoreComponents {
  return {
    relevance: round(c.relevance),
    reference: round(c.reference),
    path: round(c.path),
    recency: round(c.recency),
    type: round(c.type),
    feedback: round(c.feedback),
  };
}
