import { type Artifact, type Task, type TaskEvent, type TokenizerName, UserError, isTokenizerName } from '../model';
import type { LedgerStore } from '../store';
import { contentHash, type TokenCounter } from '../tokens';
import { type ArtifactLayer, type DocInfo, type LedgerIndex, type RenderMemo, carryIndexOverOwnWrites, intendedLayer, ledgerIndex, tokenCounter } from './cache';
import { type GateContext, passesGate } from './gating';
import { DuplicateFinder, type Fingerprint, fingerprintOf } from './duplicates';
import { type Level, type PackEntry, type PackState, packGreedy } from './pack';
import { type ActivePath, type PathMatch, matchGlob, pathProximity, toActivePath } from './paths';
import { makePreview } from './preview';
import { DEFAULT_BUDGET, resolveOptions, validateBudget } from './options';
import { redactSecrets } from './redact';
import { isUnreviewed } from '../review';
import { type QuerySource, buildQuery } from './relevance';
import {
  type SectionKey,
  SECTION_TITLES,
  UNREVIEWED_MARKER,
  demoteHeadings,
  compressedBlock,
  fullBlock,
  previewBlock,
  renderDocument,
  sectionFor,
  taskBrief,
  titleLine,
  trimBlankLines,
} from './render';
import { DAY_MS, expectedWorth, scoreComponents, sumComponents } from './score';
import { foldForPhrase } from './text';
import type * as Compress from '../compress';
import type {
  AssembleOptions,
  AssembleRequest,
  AssembleResult,
  AssembleTask,
  ExcludedItem,
  ItemMode,
  Layer,
  ResultItem,
  ScoreComponents,
} from './types';
import { LAYERS } from './types';
import { instructionsFor, workflowNarrative } from './workflow';

interface ResolvedTask {
  id?: string;
  title: string;
  description: string;
  labels: string[];
  stage?: string;
}

function stringArray(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new UserError(`"${name}" must be a list of strings.`);
  return value as string[];
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new UserError(`"${name}" must be text.`);
  return value;
}

function resolveTask(store: LedgerStore, requested: AssembleTask | undefined): ResolvedTask | undefined {
  let stored: Task | undefined;
  if (requested === undefined) {
    stored = store.getActiveTask();
    if (!stored) return undefined;
  } else {
    if (requested === null || typeof requested !== 'object') throw new UserError('"task" must be an object.');
    const id = optionalString(requested.id, 'task.id');
    if (id !== undefined && id.trim() !== '') {
      stored = store.getTask(id);
      if (!stored) throw new UserError(`No task "${id}".`, 'List tasks with `context-ledger task list`.');
    }
  }
  const title = optionalString(requested?.title, 'task.title') ?? stored?.title ?? '';
  const description = optionalString(requested?.description, 'task.description') ?? stored?.description ?? '';
  const labels = requested?.labels !== undefined ? stringArray(requested.labels, 'task.labels') : (stored?.labels ?? []);
  const stage = optionalString(requested?.stage, 'task.stage') ?? stored?.stage;
  const task: ResolvedTask = { title: title.trim(), description: description.trim(), labels: labels.map((l) => l.trim()).filter(Boolean) };
  if (stored) task.id = stored.id;
  if (stage && stage.trim() !== '') task.stage = stage.trim();
  return task;
}

const PATH_IN_TEXT =
  /(?:^|[\s`'"(])(\.?(?:[\w.-]+\/)+[\w.*-]*|\.?[\w-]+\.(?:go|ts|tsx|js|jsx|mjs|cjs|rs|py|java|kt|rb|php|cs|cpp|cc|c|h|hpp|swift|md|mdx|yml|yaml|json|toml|ini|sh|sql|proto|css|scss|html|vue|svelte|lock|txt))(?=$|[\s`'"),:;])/g;

/** Paths written in the task text (`internal/rc/`, `.golangci.yml`) count as active paths. */
export function pathsInText(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH_IN_TEXT)) {
    const path = match[1]!;
    if (/^\.+\/?$/.test(path) || /^https?:/.test(path) || /\/\//.test(path)) continue;
    if (!found.includes(path)) found.push(path);
  }
  return found;
}

/** Without explicit paths, recently worked-on files stand in for the editor's state. */
function recentFiles(store: LedgerStore, now: Date): string[] {
  const horizon = now.getTime() - 7 * DAY_MS;
  const rows = store
    .fileActivity()
    .map((f) => {
      const times = [f.lastEditedAt, f.lastSavedAt, f.lastOpenedAt].map((t) => (t ? Date.parse(t) : 0)).filter((t) => !Number.isNaN(t));
      return { path: f.path, at: Math.max(0, ...times) };
    })
    .filter((f) => f.at >= horizon)
    .sort((a, b) => b.at - a.at || (a.path < b.path ? -1 : 1));
  return rows.slice(0, 20).map((f) => f.path);
}

interface Candidate {
  doc: DocInfo;
  artifact: Artifact;
  layer: ArtifactLayer;
  components: ScoreComponents;
  score: number;
  pathMatch?: PathMatch;
  proximity: number;
  unmatchedPath: boolean;
  referenced: boolean;
  bm25: number;
}

function leftOutItem(a: Artifact, layer: ArtifactLayer, reason: ExcludedItem['reason'], detail: string | undefined): ExcludedItem {
  return { id: a.id, title: a.title, type: a.type, layer, reason, ...(detail ? { detail } : {}) };
}

interface Rendered {
  title: string;
  memo: RenderMemo;
}

/** Everything one build needs, passed around instead of a dozen parameters. */
interface Build {
  store: LedgerStore;
  options: AssembleOptions;
  counter: TokenCounter;
  tokenizer: TokenizerName;
  idx: LedgerIndex;
  optionsKey: string;
  /** The tokenizer and the options key: what an `ArtifactMemo` depends on. */
  memoKey: string;
}

function renderKey(build: Build, artifact: Artifact): string {
  return `${artifact.contentHash}|${build.optionsKey}`;
}

/**
 * What a build derives from one artifact object for one tokenizer and set of rendering
 * options: its shown title and body and its cost per level (-1: not counted yet). Artifact
 * objects live as long as the store's generation, so warm builds look these up instead of
 * redacting titles and assembling cache keys again for every candidate.
 */
interface ArtifactMemo {
  key: string;
  rendered: Rendered;
  costs: [number, number, number, number];
}
const artifactMemos = new WeakMap<Artifact, ArtifactMemo>();

function artifactMemo(build: Build, artifact: Artifact): ArtifactMemo {
  let memo = artifactMemos.get(artifact);
  if (memo === undefined || memo.key !== build.memoKey) {
    memo = { key: build.memoKey, rendered: renderUncached(build, artifact), costs: [-1, -1, -1, -1] };
    artifactMemos.set(artifact, memo);
  }
  return memo;
}

function rendered(build: Build, artifact: Artifact): Rendered {
  return artifactMemo(build, artifact).rendered;
}

function renderUncached(build: Build, artifact: Artifact): Rendered {
  const key = renderKey(build, artifact);
  let memo = build.idx.renders.get(key);
  if (!memo) {
    let body = trimBlankLines(demoteHeadings(artifact.body));
    let redactions: Record<string, number> = {};
    let redactionCount = 0;
    if (build.options.redact) {
      const result = redactSecrets(body, build.options.redactAllow);
      body = result.text;
      redactions = result.kinds;
      redactionCount = result.count;
    }
    memo = { body, bodyHash: body === artifact.body ? artifact.contentHash : contentHash(body), redactions, redactionCount };
    if (build.idx.renders.size > 50_000) build.idx.renders.clear();
    build.idx.renders.set(key, memo);
  }
  const title = build.options.redact ? redactSecrets(artifact.title, build.options.redactAllow).text : artifact.title;
  return { title, memo };
}

/** The secrets masked in a part of an already redacted body, by kind. */
function countRedactionMarkers(text: string): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const match of text.matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)) kinds[match[1]!] = (kinds[match[1]!] ?? 0) + 1;
  return kinds;
}

function previewOf(build: Build, artifact: Artifact, memo: RenderMemo): string {
  if (memo.preview === undefined) {
    const preview = makePreview(memo.body, build.options.previewChars, artifact.summary ? redactSecrets(artifact.summary, build.options.redactAllow).text : null, artifact.title);
    memo.preview = preview;
    memo.previewRedactions = memo.redactionCount > 0 ? countRedactionMarkers(preview) : {};
  }
  return memo.preview;
}

/** Compressing must gain at least this many tokens over the preview to be worth it. */
const MIN_COMPRESSION_GAIN = 24;
/** A compression that keeps more than this share of the full block is not worth showing instead of it. */
const MAX_COMPRESSED_SHARE = 0.8;

function countCached(build: Build, key: string, text: () => string): number {
  const full = `${build.tokenizer}|${key}`;
  let n = build.idx.counts.get(full);
  if (n === undefined) {
    n = build.counter.count(text());
    if (build.idx.counts.size > 200_000) build.idx.counts.clear();
    build.idx.counts.set(full, n);
  }
  return n;
}

/** Token cost of an artifact at a level, as a block in the document (its separator included). */
function artifactCost(build: Build, artifact: Artifact, level: 1 | 2 | 3): number {
  const known = artifactMemo(build, artifact);
  if (known.costs[level] >= 0) return known.costs[level];
  const cost = artifactCostUncached(build, artifact, level);
  known.costs[level] = cost;
  return cost;
}

function artifactCostUncached(build: Build, artifact: Artifact, level: 1 | 2 | 3): number {
  const { title, memo } = rendered(build, artifact);
  const base = `${artifact.id}|${renderKey(build, artifact)}`;
  if (level === 1) return countCached(build, `t|${base}`, () => titleLine(artifact, title)) + 1;
  if (level === 2) return countCached(build, `p|${base}`, () => previewBlock(artifact, title, previewOf(build, artifact, memo))) + 2;
  const head = countCached(build, `h|${base}`, () => `${fullBlock(artifact, title, '')}\n\n`);
  const body = memo.body === '' ? 0 : build.counter.countWithHash(memo.body, memo.bodyHash);
  return head + body + 2;
}

/** A lower-bound-ish guess used to order work before counting exactly. */
function artifactEstimate(artifact: Artifact, level: 1 | 2 | 3, previewChars: number): number {
  const head = artifact.title.length + artifact.id.length + 24;
  if (level === 1) return Math.ceil(head / 4.5);
  if (level === 2) return Math.ceil((head + Math.min(previewChars, artifact.body.length)) / 4.5);
  return Math.ceil((head + artifact.body.length) / 5);
}

const VALUE_OF_LEVEL = (options: AssembleOptions): readonly [number, number, number, number] => [
  0,
  options.titles ? options.modeValue.title : 0,
  options.previews ? options.modeValue.preview : 0,
  1,
];

/**
 * Takes out shown artifacts that say what a more valuable shown one already says (the
 * same decision recorded twice, a note pasted into a learning) and spends what that frees
 * on the next best. Rules and pins are never the ones taken out. Returns each taken-out
 * entry with the id of the artifact kept.
 */
function dropDuplicates(entries: readonly PackEntry[], entryOf: ReadonlyMap<PackEntry, Candidate>, state: PackState): Map<PackEntry, string> {
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
      const section = entry.level === 1 ? 'noted' : entry.section;
      state.remaining += entry.cost(entry.level as 1 | 2 | 3, true);
      state.sectionCounts.set(section, (state.sectionCounts.get(section) ?? 1) - 1);
      entry.level = 0;
      entry.allowed = [true, false, false, false];
      duplicateOf.set(entry, same.key);
      dropped = true;
    }
    if (!dropped || round === 4) break;
    packGreedy(entries, state, state.remaining);
  }
  return duplicateOf;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return b.score - a.score || b.doc.updatedMs - a.doc.updatedMs || (a.artifact.id < b.artifact.id ? -1 : a.artifact.id > b.artifact.id ? 1 : 0);
}

function explainCandidate(c: Candidate, task: ResolvedTask | undefined): string {
  const parts: string[] = [];
  if (c.layer === 'fixed') parts.push(c.artifact.type === 'constitution' ? 'constitution rule (always in)' : 'pinned (always in)');
  if (c.referenced) parts.push('named in the task');
  if (c.pathMatch) parts.push(`${c.pathMatch.kind} path match ${c.pathMatch.glob} ~ ${c.pathMatch.path}`);
  else if (c.unmatchedPath) parts.push(c.proximity > 0 ? 'paths near the active files' : 'paths do not match the active files');
  if (c.components.relevance > 0) parts.push(`text relevance ${c.components.relevance.toFixed(2)}`);
  if (c.layer === 'task' && task?.id) parts.push(`task ${task.id}`);
  if (c.components.feedback > 0) parts.push('marked useful');
  if (c.components.feedback < 0) parts.push('marked not useful');
  if (parts.length === 0) parts.push('type and recency');
  return parts.join('; ');
}

interface BriefState {
  level: Level;
  title: string;
  full: string;
}

/**
 * Builds the context for a task within a token budget. See DESIGN.md section 4: fixed
 * tier, then global / task / path layers with roll-over and back-fill, previews and
 * title lines as the budget tightens, workflow memory and recording instructions, secrets
 * masked, and a final count of the whole text that never exceeds the budget.
 */
export async function assembleContext(store: LedgerStore, request: AssembleRequest): Promise<AssembleResult> {
  const started = performance.now();
  if (request === null || typeof request !== 'object') throw new UserError('An assemble request must be an object.');
  const budget = validateBudget(request.budget === undefined ? DEFAULT_BUDGET : request.budget);
  const tokenizer = request.tokenizer ?? 'o200k_base';
  if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer ${JSON.stringify(tokenizer)}.`, 'Use o200k_base or cl100k_base.');
  const options = resolveOptions(request.options);
  const now = request.now ?? store.clock.now();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new UserError('"now" must be a valid date.');
  const requestedPaths = request.paths === undefined ? undefined : stringArray(request.paths, 'paths');
  const counter = tokenCounter(store, tokenizer);
  // Live sources pull in the Markdown lexer and the compressors: loaded only when asked for.
  const liveModule = request.sources === undefined ? undefined : await import('../sources/live.js');

  // Everything below is synchronous, so no other write can slip in between reading and logging.
  const generationBefore = store.generation;
  const task = resolveTask(store, request.task);
  const taskText = task ? `${task.title}\n${task.description}` : '';
  const rawPaths = [...(requestedPaths ?? recentFiles(store, now)), ...pathsInText(taskText)];
  const active: ActivePath[] = [];
  for (const raw of rawPaths) {
    const p = toActivePath(raw);
    if (p && !active.some((a) => a.path === p.path && a.isDir === p.isDir)) active.push(p);
  }
  const idx = ledgerIndex(store, { fieldWeights: options.fieldWeights, fieldB: options.fieldB, k1: options.k1 });
  const optionsKey = JSON.stringify([options.redact, options.redactAllow, options.previewChars]);
  const build: Build = {
    store,
    options,
    counter,
    tokenizer,
    idx,
    optionsKey,
    memoKey: `${tokenizer}|${optionsKey}`,
  };

  const sources: QuerySource[] = [];
  if (task) {
    sources.push({ text: task.title, weight: options.queryWeights.title });
    sources.push({ text: task.description, weight: options.queryWeights.description });
    sources.push({ text: task.labels.join(' '), weight: options.queryWeights.labels });
  }
  sources.push({ text: active.map((a) => a.path).join(' '), weight: options.queryWeights.paths, isPath: true });
  const query = buildQuery(sources);
  const bm25 = idx.index.score(query);
  const queryEmpty = query.size === 0 && active.length === 0;
  const foldedTask = foldForPhrase(`${taskText} ${task?.labels.join(' ') ?? ''}`);
  const taskWords = new Set(foldedTask.split(' '));
  const gate: GateContext = { labels: new Set(task?.labels.map((l) => l.toLowerCase()) ?? []), foldedText: foldedTask, paths: active };
  const feedback = store.allFeedback();
  const maxTypePriority = Math.max(0, ...Object.values(options.typePriority));

  // What the candidate loop left out, in ledger order: a below-threshold artifact (most of
  // a large ledger) is kept as its candidate and becomes an ExcludedItem only if someone
  // reads `result.excluded`; most builds hand over their text and never look.
  const leftOut: Array<ExcludedItem | Candidate> = [];
  const invalidGlobs: AssembleResult['invalidGlobs'] = [];
  const supersededBy = new Map<string, string>();
  for (const doc of idx.docs) if (doc.artifact.supersedes) supersededBy.set(doc.artifact.supersedes, doc.artifact.id);

  // ---- candidates ----------------------------------------------------------------
  const candidates: Candidate[] = [];
  let bm25Max = 0;
  for (const doc of idx.docs) if (doc.slot >= 0 && bm25[doc.slot]! > bm25Max) bm25Max = bm25[doc.slot]!;
  for (const doc of idx.docs) {
    const a = doc.artifact;
    for (const bad of doc.invalidGlobs) invalidGlobs.push({ id: a.id, glob: bad.glob, error: bad.error });
    const intended = doc.layer;
    const standingIn = doc.standIn === true && options.unreviewed === 'hold';
    // An earlier version standing in for a held one counts only while holding.
    if (doc.standIn && !standingIn && a.status !== 'superseded') continue;
    if (a.status === 'superseded' && !standingIn) {
      const by = supersededBy.get(a.chainId) ?? (typeof a.extra.supersededBy === 'string' ? a.extra.supersededBy : undefined);
      leftOut.push(leftOutItem(a, intended, 'superseded', by ? `superseded by ${by}` : undefined));
      continue;
    }
    if (a.status === 'archived') {
      leftOut.push(leftOutItem(a, intended, 'archived', undefined));
      continue;
    }
    if (options.unreviewed === 'hold' && isUnreviewed(a)) {
      leftOut.push(leftOutItem(a, intended, 'unreviewed', `written by ${a.source}; held until a person approves it`));
      continue;
    }
    if (a.scope === 'task' && (!task?.id || a.taskId !== task.id)) {
      leftOut.push(leftOutItem(a, intended, 'other-task', `belongs to task ${a.taskId ?? '(none)'}`));
      continue;
    }
    const c = a.conditions;
    if (c.labels.length + c.keywords.length + c.paths.length > 0) {
      const gated = passesGate(c, gate);
      for (const bad of gated.invalidGlobs) invalidGlobs.push({ id: a.id, glob: bad.glob, error: bad.error });
      if (!gated.pass) {
        leftOut.push(leftOutItem(a, intended, 'gated', gated.detail || undefined));
        continue;
      }
    }
    let pathMatch: PathMatch | undefined;
    for (const glob of doc.globs) {
      for (const p of active) {
        // Cheap rejection before minimatch: a glob with a literal prefix only matches under it.
        if (!glob.matchBase && glob.staticSegments.length > 0 && !p.isDir) {
          const first = glob.staticSegments[0]!;
          if (!p.path.startsWith(first)) continue;
        }
        const m = matchGlob(glob, p);
        if (m && (!pathMatch || m.specificity > pathMatch.specificity)) pathMatch = m;
      }
    }
    const fixed = intended === 'fixed';
    let layer = intended;
    let unmatchedPath = false;
    if (layer === 'path' && !pathMatch) {
      if (options.unmatchedPathArtifacts === 'exclude' || doc.globs.length === 0) {
        leftOut.push(leftOutItem(a, intended, 'path-mismatch', `paths ${a.paths.join(', ')} match no active path`));
        continue;
      }
      layer = 'global';
      unmatchedPath = true;
    }
    const proximity = unmatchedPath ? pathProximity(doc.globs, active) : 0;
    // Knowledge written for the active task is named by it as surely as by its title.
    const ownTask = a.scope === 'task' && task?.id !== undefined && a.taskId === task.id;
    const referenced =
      ownTask ||
      (task !== undefined &&
      ((doc.foldedId.length > 4 && taskWords.has(doc.idHead) && foldedTask.includes(doc.foldedId)) ||
        (doc.foldedTitle.length >= 12 && taskWords.has(doc.titleHead) && doc.foldedTitle.trim().includes(' ') && foldedTask.includes(doc.foldedTitle)) ||
        doc.globs.some((g) => g.literal && g.glob.length >= 4 && taskText.includes(g.glob))));
    const score = doc.slot >= 0 ? bm25[doc.slot]! : 0;
    const components = scoreComponents(
      {
        bm25: score,
        bm25Max,
        referenced,
        pathSpecificity: pathMatch?.specificity ?? 0,
        proximity,
        unmatchedPath,
        ageDays: (now.getTime() - doc.updatedMs) / DAY_MS,
        typePriority: options.typePriority[a.type] ?? maxTypePriority,
        maxTypePriority,
        feedback: feedback.get(a.id),
      },
      options,
    );
    const candidate: Candidate = {
      doc,
      artifact: a,
      layer,
      components,
      score: sumComponents(components),
      proximity,
      unmatchedPath,
      referenced,
      bm25: score,
      pathMatch,
    };
    const evidence = queryEmpty || score > 0 || referenced || pathMatch !== undefined || proximity > 0;
    const relevantEnough = components.relevance >= options.minRelevance * options.weights.relevance || referenced || pathMatch !== undefined;
    if (!fixed && (!evidence || !relevantEnough || candidate.score <= 0)) {
      leftOut.push(candidate);
      continue;
    }
    candidates.push(candidate);
  }
  candidates.sort(compareCandidates);

  // ---- fixed tier ----------------------------------------------------------------
  const levelValue = VALUE_OF_LEVEL(options);
  const sectionCounts = new Map<SectionKey, number>();
  const headerCosts = new Map<SectionKey, number>();
  const headerCost = (section: SectionKey): number => {
    let n = headerCosts.get(section);
    if (n === undefined) {
      n = counter.count(`${SECTION_TITLES[section]}\n\n`) + 1;
      headerCosts.set(section, n);
    }
    return n;
  };
  const state: PackState = { remaining: budget, sectionCounts, headerCost, levelValue };
  const livePlan = request.sources === undefined || !liveModule ? undefined : new liveModule.LivePlan(request.sources, task, counter, options);
  const liveEntries = livePlan?.allEntries() ?? [];
  const entryOf = new Map<PackEntry, Candidate>();
  const makeEntry = (c: Candidate): PackEntry => {
    const a = c.artifact;
    // Bit `level` set: that level's cost was asked for exactly (and is memoised since).
    let exact = 0;
    const entry: PackEntry = {
      key: a.id,
      // Rules and pins are worth as much as the best match; the rest by score.
      value: c.layer === 'fixed' ? 1.5 + Math.max(0, c.score) * 0.01 : expectedWorth(c.score, options),
      updatedMs: c.doc.updatedMs,
      section: sectionFor(c.layer, a),
      allowed: [true, options.titles || c.layer === 'fixed', options.previews || c.layer === 'fixed', true],
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
  };

  const brief: BriefState = { level: 0, title: '', full: '' };
  let briefCost = { title: 0, full: 0 };
  if (task && options.includeTaskBrief && (task.title || task.description)) {
    const red = (t: string): string => (options.redact ? redactSecrets(t, options.redactAllow).text : t);
    const meta = [task.labels.length ? `Labels: ${task.labels.join(', ')}.` : '', task.stage ? `Stage: ${task.stage}.` : ''].filter(Boolean).join(' ');
    const said = taskBrief(red(task.title), red(task.description), meta);
    brief.title = said.title;
    brief.full = said.full;
    const header = headerCost('brief');
    briefCost = { title: counter.count(brief.title) + header, full: counter.count(brief.full) + header };
    if (briefCost.full <= state.remaining) {
      brief.level = 3;
      state.remaining -= briefCost.full;
    } else if (briefCost.title <= state.remaining) {
      brief.level = 1;
      state.remaining -= briefCost.title;
    }
  }

  const fixedEntries = candidates.filter((c) => c.layer === 'fixed').map(makeEntry);
  // Every rule and pin is at least named (in value order) if the budget allows at all...
  for (const entry of fixedEntries) {
    const cost = entry.cost(1, true) + ((sectionCounts.get('noted') ?? 0) === 0 ? headerCost('noted') : 0);
    if (cost <= state.remaining) {
      entry.level = 1;
      state.remaining -= cost;
      sectionCounts.set('noted', (sectionCounts.get('noted') ?? 0) + 1);
    }
  }
  // ...and shown in full or as a preview within the fixed tier's share.
  const fixedCap = Math.max(0, Math.floor(budget * options.fixedShare) - (budget - state.remaining));
  packGreedy(fixedEntries, state, fixedCap);
  const fixedUsed = budget - state.remaining;

  // ---- workflow memory (L4) and recording instructions (L5) -----------------------
  let workflowText = '';
  let workflowCost = 0;
  let instructionsText = '';
  let instructionsCost = 0;
  const events: TaskEvent[] = task?.id && options.includeWorkflow ? store.taskEvents(task.id) : [];
  if (events.length > 0) {
    const cap = Math.min(state.remaining, Math.floor(budget * options.workflowShare));
    for (let limit = 8; limit >= 1; limit = Math.floor(limit / 2)) {
      const text = workflowNarrative(events, limit);
      if (!text) break;
      const red = options.redact ? redactSecrets(text, options.redactAllow).text : text;
      const cost = counter.count(red) + headerCost('workflow');
      if (cost <= cap) {
        workflowText = red;
        workflowCost = cost;
        break;
      }
    }
    state.remaining -= workflowCost;
  }
  if (task && task.stage && options.includeInstructions) {
    const text = instructionsFor(task.stage, options.stagePrompts);
    const cost = counter.count(text) + headerCost('instructions');
    if (text !== '' && cost <= Math.min(state.remaining, Math.floor(budget * options.instructionsShare))) {
      instructionsText = text;
      instructionsCost = cost;
      state.remaining -= cost;
    }
  }

  // ---- layers: task, path, global shares with roll-over, then back-fill -----------
  // Live sources take their share (each within its cap) before the ledger's layers split the rest.
  const liveUsage = livePlan?.pack(state, state.remaining);
  const rest = state.remaining;
  const layerEntries = {
    task: candidates.filter((c) => c.layer === 'task'),
    path: candidates.filter((c) => c.layer === 'path'),
    global: candidates.filter((c) => c.layer === 'global'),
  };
  // A title line costs at least this many tokens, so no more entries than this can ever be shown.
  const maxShown = Math.ceil(budget / 6) + 16;
  const entries = {
    task: layerEntries.task.slice(0, maxShown).map(makeEntry),
    path: layerEntries.path.slice(0, maxShown).map(makeEntry),
    global: layerEntries.global.slice(0, maxShown).map(makeEntry),
  };
  const layerBudget: Record<Layer, { budget: number; used: number }> = Object.fromEntries(LAYERS.map((l) => [l, { budget: 0, used: 0 }])) as Record<
    Layer,
    { budget: number; used: number }
  >;
  layerBudget.fixed.budget = Math.max(fixedUsed, Math.floor(budget * options.fixedShare));
  layerBudget.workflow.budget = workflowCost;
  layerBudget.instructions.budget = instructionsCost;
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
  const allEntries = [...fixedEntries, ...entries.task, ...entries.path, ...entries.global];
  packGreedy(allEntries, state, state.remaining);
  const duplicateOf = options.dedupe ? dropDuplicates(allEntries, entryOf, state) : new Map<PackEntry, string>();

  // ---- compress before falling back to a preview --------------------------------------
  // An artifact whose full text did not fit is shown compressed instead of as a preview
  // when the budget the packing left over has room: the most valuable first. Only what is
  // left over is spent, so compressing one artifact never pushes another out of full text.
  const compressed = new Map<PackEntry, { block: string; tokens: number; how: NonNullable<ResultItem['compression']> }>();
  const previews = state.remaining >= MIN_COMPRESSION_GAIN ? allEntries.filter((e) => e.level === 2 && e.allowed[3] && entryOf.get(e)!.layer !== 'fixed') : [];
  if (previews.length > 0) {
    // Loaded on first use, synchronously (this part must not yield): the compressors bring
    // the Markdown lexer, which builds that never compress should not load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { compressText, taskTerms } = require('../compress') as typeof Compress;
    const query = taskTerms(`${taskText}\n${task?.labels.join(' ') ?? ''}`);
    previews.sort((a, b) => b.value - a.value);
    for (const entry of previews) {
      if (state.remaining < MIN_COMPRESSION_GAIN) break;
      const c = entryOf.get(entry)!;
      const { title, memo } = rendered(build, c.artifact);
      const previewCost = entry.cost(2, true);
      const fullCost = entry.cost(3, true);
      if (fullCost - previewCost < 2 * MIN_COMPRESSION_GAIN) continue;
      const bodyTokens = counter.countWithHash(memo.body, memo.bodyHash);
      for (const level of ['medium', 'heavy'] as const) {
        const body = compressText({ text: memo.body, kind: 'markdown', query }, level).trim();
        if (body === '') break;
        const how = { level, ratio: Math.round((counter.count(body) / Math.max(1, bodyTokens)) * 1000) / 1000, tokensBefore: bodyTokens };
        const block = compressedBlock(c.artifact, title, body, how);
        const tokens = counter.count(block) + 2;
        if (tokens > fullCost * MAX_COMPRESSED_SHARE) continue;
        const delta = tokens - previewCost;
        if (delta < MIN_COMPRESSION_GAIN) break;
        if (delta > state.remaining) continue;
        compressed.set(entry, { block, tokens, how });
        state.remaining -= delta;
        break;
      }
    }
  }
  const shownCost = (entry: PackEntry): number => compressed.get(entry)?.tokens ?? entry.cost(entry.level as 1 | 2 | 3, true);

  // ---- render, count, and degrade until it fits -----------------------------------
  let includeWorkflow = workflowText !== '';
  let includeInstructions = instructionsText !== '';
  const render = (): string => {
    const sections = new Map<SectionKey, string[]>();
    const push = (key: SectionKey, block: string): void => {
      const list = sections.get(key);
      if (list) list.push(block);
      else sections.set(key, [block]);
    };
    if (brief.level > 0) push('brief', brief.level === 3 ? brief.full : brief.title);
    for (const entry of allEntries) {
      if (entry.level === 0) continue;
      const c = entryOf.get(entry)!;
      const { title, memo } = rendered(build, c.artifact);
      if (entry.level === 1) push('noted', titleLine(c.artifact, title));
      else if (entry.level === 2) push(entry.section, compressed.get(entry)?.block ?? previewBlock(c.artifact, title, previewOf(build, c.artifact, memo)));
      else push(entry.section, fullBlock(c.artifact, title, memo.body));
    }
    for (const entry of liveEntries) {
      const shown = livePlan!.rendered(entry);
      if (shown) push(shown.section, shown.block);
    }
    if (includeWorkflow) push('workflow', workflowText);
    if (includeInstructions) push('instructions', instructionsText);
    return renderDocument(sections);
  };
  // Entries are already in value order within each list; order the shown ones globally for degrading.
  const degradable = (): PackEntry[] =>
    [...allEntries, ...liveEntries]
      .filter((e) => e.level > 0 && entryOf.get(e)?.layer !== 'fixed')
      .sort((a, b) => a.value - b.value || a.updatedMs - b.updatedMs || (a.key < b.key ? 1 : -1));
  const stepDown = (entry: PackEntry): number => {
    compressed.delete(entry);
    const from = entry.level as 1 | 2 | 3;
    let to = (from - 1) as Level;
    while (to > 0 && !entry.allowed[to]) to = (to - 1) as Level;
    const saved = entry.cost(from, true) - (to === 0 ? 0 : entry.cost(to, true));
    entry.level = to;
    return Math.max(1, saved);
  };
  let text = render();
  let tokensUsed = counter.count(text);
  let guard = 0;
  while (tokensUsed > budget) {
    if (++guard > 100_000) throw new Error('assembleContext: could not fit the budget (bug)');
    let excess = tokensUsed - budget;
    // Compressions only spent what the packing left over: they go first, least valuable first.
    for (const entry of [...compressed.keys()].sort((a, b) => a.value - b.value)) {
      if (excess <= 0) break;
      excess -= Math.max(1, compressed.get(entry)!.tokens - entry.cost(2, true));
      compressed.delete(entry);
    }
    const order = degradable();
    for (const entry of order) {
      while (excess > 0 && entry.level > 0) excess -= stepDown(entry);
      if (excess <= 0) break;
    }
    if (excess > 0 && includeInstructions) {
      includeInstructions = false;
      excess -= instructionsCost;
    }
    if (excess > 0 && includeWorkflow) {
      includeWorkflow = false;
      excess -= workflowCost;
    }
    if (excess > 0) {
      const fixedShown = fixedEntries.filter((e) => e.level > 0).sort((a, b) => a.value - b.value || a.updatedMs - b.updatedMs);
      for (const entry of fixedShown) {
        while (excess > 0 && entry.level > 0) excess -= stepDown(entry);
        if (excess <= 0) break;
      }
    }
    if (excess > 0 && brief.level === 3) {
      brief.level = 1;
      excess -= briefCost.full - briefCost.title;
    }
    if (excess > 0 && brief.level === 1) brief.level = 0;
    text = render();
    tokensUsed = counter.count(text);
    if (text === '') break;
  }
  if (tokensUsed > budget) throw new Error(`assembleContext: ${tokensUsed} tokens over a budget of ${budget} (bug)`);

  // ---- result -----------------------------------------------------------------------
  const items: ResultItem[] = [];
  const redactionKinds: Record<string, number> = {};
  let redactionCount = 0;
  const addRedactions = (kinds: Record<string, number> | undefined): void => {
    for (const [kind, n] of Object.entries(kinds ?? {})) {
      redactionKinds[kind] = (redactionKinds[kind] ?? 0) + n;
      redactionCount += n;
    }
  };
  const shownOrder = [...allEntries].filter((e) => e.level > 0);
  const sectionRank = (e: PackEntry): number => {
    const key = e.level === 1 ? 'noted' : e.section;
    return ['rules', 'pinned', 'task', 'path', 'global', 'noted'].indexOf(key);
  };
  const packOrder = new Map(shownOrder.map((e, i) => [e, i]));
  shownOrder.sort((a, b) => sectionRank(a) - sectionRank(b) || packOrder.get(a)! - packOrder.get(b)!);
  for (const entry of shownOrder) {
    const c = entryOf.get(entry)!;
    const { title, memo } = rendered(build, c.artifact);
    let mode: ItemMode = entry.level === 3 ? 'full' : entry.level === 2 ? 'preview' : 'title';
    let reason = explainCandidate(c, task);
    let redacted = false;
    if (entry.level === 3 && memo.redactionCount > 0) {
      addRedactions(memo.redactions);
      // What was shown is not the stored body any more: say so instead of claiming "full".
      mode = 'preview';
      redacted = true;
      reason += `; full text with ${memo.redactionCount} secret${memo.redactionCount === 1 ? '' : 's'} masked`;
    } else if (entry.level === 2 && compressed.has(entry)) {
      const shown = compressed.get(entry)!;
      const kinds = countRedactionMarkers(shown.block);
      addRedactions(kinds);
      if (Object.keys(kinds).length > 0) redacted = true;
      reason += `; compressed (${shown.how.level}) to ${Math.round(shown.how.ratio * 100)}% of its text: the full text did not fit`;
    } else if (entry.level === 2) {
      addRedactions(memo.previewRedactions);
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
      title: c.artifact.title,
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
  if (brief.level > 0) {
    layerBudget.fixed.used += brief.level === 3 ? briefCost.full : briefCost.title;
    addRedactions(redactSecrets(brief.level === 3 ? brief.full : brief.title, []).kinds);
  }
  if (includeWorkflow) {
    layerBudget.workflow.used = workflowCost;
    addRedactions(redactSecrets(workflowText, []).kinds);
  }
  if (includeInstructions) layerBudget.instructions.used = instructionsCost;
  if (!includeWorkflow) layerBudget.workflow.budget = 0;
  if (!includeInstructions) layerBudget.instructions.budget = 0;

  // Older versions need the database: listed now, while the store is surely open.
  const olderVersions: ExcludedItem[] = [];
  if (options.reportOlderVersions) {
    const latestIds = new Set(idx.docs.filter((d) => !d.standIn || d.artifact.status === 'superseded').map((d) => d.artifact.id));
    for (const a of store.listArtifacts({ allVersions: true })) {
      if (!latestIds.has(a.id)) olderVersions.push({ id: a.id, title: a.title, type: a.type, layer: intendedLayer(a), reason: 'older-version', detail: `version ${a.version} of ${a.chainId}` });
    }
  }
  /** Everything left out, in the order reported: the candidate loop's, then what the budget left out, then older versions. */
  const listExcluded = (): ExcludedItem[] => {
    const excluded: ExcludedItem[] = [];
    for (const e of leftOut) {
      if (!('doc' in e)) {
        excluded.push(e);
        continue;
      }
      const evidence = queryEmpty || e.bm25 > 0 || e.referenced || e.pathMatch !== undefined || e.proximity > 0;
      const a = e.artifact;
      excluded.push({ id: a.id, title: a.title, type: a.type, layer: e.layer, reason: 'below-threshold', score: e.score, components: e.components, detail: evidence ? 'score too low' : 'nothing in the task or paths points to it' });
    }
    for (const entry of allEntries) {
      if (entry.level > 0) continue;
      const c = entryOf.get(entry)!;
      const same = duplicateOf.get(entry);
      excluded.push({
        id: c.artifact.id,
        title: c.artifact.title,
        type: c.artifact.type,
        layer: c.layer,
        reason: same ? 'duplicate' : 'budget',
        score: round(c.score),
        components: roundComponents(c.components),
        ...(same ? { detail: `says what ${same} says` } : {}),
      });
    }
    const inPack = new Set(allEntries.map((e) => entryOf.get(e)!));
    for (const c of candidates) {
      if (inPack.has(c)) continue;
      excluded.push({ id: c.artifact.id, title: c.artifact.title, type: c.artifact.type, layer: c.layer, reason: 'budget', score: round(c.score), components: roundComponents(c.components), detail: 'ranked below what could ever fit' });
    }
    excluded.push(...olderVersions);
    return excluded;
  };
  let excluded: ExcludedItem[] | undefined;

  if (options.reportExcludedTokens) {
    excluded = listExcluded();
    const byId = new Map(idx.docs.map((d) => [d.artifact.id, d.artifact]));
    for (const e of excluded) {
      const a = byId.get(e.id) ?? store.getArtifact(e.id);
      if (a) e.tokens = artifactCost(build, a, 3);
    }
  }

  const live = livePlan?.finish();
  if (livePlan && live) {
    for (const [source, usage] of liveUsage ?? []) layerBudget[source] = { budget: usage.budget, used: 0 };
    for (const [source, used] of live.layers) layerBudget[source] = { budget: layerBudget[source]?.budget ?? 0, used };
    addRedactions(live.redactions);
  }

  const outputHash = contentHash(text);
  const result: AssembleResult = {
    budget,
    tokenizer,
    tokensUsed,
    text,
    items,
    // Listed on first read (a reader may come after the store closed: the list needs only memory).
    get excluded(): ExcludedItem[] {
      excluded ??= listExcluded();
      return excluded;
    },
    set excluded(list: ExcludedItem[]) {
      excluded = list;
    },
    layers: layerBudget,
    redactions: { count: redactionCount, kinds: sortKeys(redactionKinds) },
    candidates: candidates.length,
    durationMs: 0,
    outputHash,
    invalidGlobs,
    ...(task ? { task: { ...(task.id ? { id: task.id } : {}), title: task.title, ...(task.stage ? { stage: task.stage } : {}) } } : {}),
    ...(livePlan ? { live: livePlan.report } : {}),
  };
  result.durationMs = round(performance.now() - started);
  if (request.log !== false) {
    result.logId = store.logAssembly({
      at: store.clock.now().toISOString(),
      taskId: task?.id ?? null,
      budget,
      tokensUsed,
      tokenizer,
      candidates: candidates.length,
      included: [
        // Compressed items carry their level and ratio, so the log shows what was shrunk and by how much.
        ...items.map((i) => ({ id: i.id, mode: i.mode, layer: i.layer, tokens: i.tokens, score: i.score, ...(i.compression ? { compression: i.compression.level, ratio: i.compression.ratio } : {}) })),
        ...(live?.items ?? []).map((i) => ({ id: i.key, mode: i.mode, layer: i.source, tokens: i.tokens, score: i.relevance, ...(i.compression ? { compression: i.compression.level, ratio: i.compression.ratio } : {}) })),
      ],
      degraded: items.filter((i) => i.mode !== 'full').map((i) => ({ id: i.id, mode: i.mode })),
      excluded: summarizeExcluded(result.excluded),
      layers: layerBudget,
      durationMs: result.durationMs,
      outputHash,
      trigger: typeof request.trigger === 'string' && request.trigger !== '' ? request.trigger : 'api',
    });
    store.recordInjected(items.map((i) => i.id));
    carryIndexOverOwnWrites(store, generationBefore);
  }
  return result;
}

/** The log keeps every exclusion that says something; the long tail of unrelated artifacts only as a count. */
function summarizeExcluded(excluded: readonly ExcludedItem[]): unknown {
  const counts: Record<string, number> = {};
  const listed: Array<[string, string]> = [];
  const LIMIT = 500;
  for (const e of excluded) {
    counts[e.reason] = (counts[e.reason] ?? 0) + 1;
    if (e.reason !== 'below-threshold' && listed.length < LIMIT) listed.push([e.id, e.reason]);
  }
  return { counts: sortKeys(counts), items: listed, truncated: Math.max(0, excluded.filter((e) => e.reason !== 'below-threshold').length - LIMIT) };
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
