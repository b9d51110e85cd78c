import { type Artifact, STANDING_RULE_TYPES } from '../model';
import { isUnreviewed } from '../review';
import type { ArtifactLayer, DocInfo } from './cache';
import { type GateContext, passesGate } from './gating';
import { type ActivePath, type CompiledGlob, type PathMatch, everywhereMatch, folderNamedByLabel, labelKey, matchGlob } from './paths';
import type { AssembleOptions, ExcludedItem } from './types';

/** What the gate knows about the build: the task, the files in play and the options. */
export interface AdmitContext {
  options: AssembleOptions;
  /** The active task's id, when there is one. */
  taskId: string | undefined;
  gate: GateContext;
  active: readonly ActivePath[];
  /** Chain id → id of the artifact that supersedes it. */
  supersededBy: ReadonlyMap<string, string>;
  /** Whether the task names the artifact (its id, its title or one of its paths). */
  namedByTask?: (doc: DocInfo) => boolean;
  /** The task's labels that name a module, as folder keys (`moduleLabelKeys`): evidence for ranking a record of that folder, not a scope. */
  labelKeys?: ReadonlySet<string>;
  /** The names of the files in play and their folders (`playNamesPattern`): another module's notes that use one concern them. */
  playNames?: RegExp;
}

/** An artifact the gate lets through: the layer it ranks in and how its paths meet the files in play. */
export interface Admitted {
  layer: ArtifactLayer;
  pathMatch: PathMatch | undefined;
  /** A path-scope artifact that matches no active path, ranked in the global layer instead. */
  unmatchedPath: boolean;
  /** For such an artifact, the folder of its paths a task label names (`folderNamedByLabel`). */
  labelFolder?: string;
}

export type AdmitOutcome = (Admitted & { admitted: true }) | { admitted: false; excluded: ExcludedItem };

export function leftOutItem(a: Artifact, layer: ArtifactLayer, reason: ExcludedItem['reason'], detail: string | undefined): ExcludedItem {
  return { id: a.id, title: a.title, type: a.type, layer, reason, ...(detail ? { detail } : {}) };
}

/** Per ledger generation: how many path-scoped artifacts there are ('' key) and how many have a folder each label key names. */
const labelCounts = new WeakMap<readonly DocInfo[], Map<string, number>>();

function namedCount(docs: readonly DocInfo[], key: string): { named: number; scoped: number } {
  let counts = labelCounts.get(docs);
  if (counts === undefined) {
    counts = new Map([['', docs.filter((d) => d.layer === 'path' && d.globs.length > 0).length]]);
    labelCounts.set(docs, counts);
  }
  let named = counts.get(key);
  if (named === undefined) {
    const one = new Set([key]);
    named = docs.filter((d) => d.layer === 'path' && folderNamedByLabel(d.globs, one) !== undefined).length;
    counts.set(key, named);
  }
  return { named, scoped: counts.get('')! };
}

/**
 * The task's labels that name a module, as folder keys (see `folderNamedByLabel`). A label
 * naming a folder of more than half of the path-scoped knowledge (`src`, `internal`) names a
 * container, not a module: evidence that applies to most of the knowledge tells none of it apart.
 */
export function moduleLabelKeys(labels: readonly string[], docs: readonly DocInfo[]): Set<string> {
  const keys = new Set<string>();
  for (const label of labels) {
    const key = labelKey(label);
    if (key === '' || keys.has(key)) continue;
    const { named, scoped } = namedCount(docs, key);
    if (named > 0 && named <= scoped / 2) keys.add(key);
  }
  return keys;
}

/** The best match of any of the artifact's globs with any active path (most specific wins). */
export function bestPathMatch(globs: readonly CompiledGlob[], active: readonly ActivePath[]): PathMatch | undefined {
  let pathMatch: PathMatch | undefined;
  for (const glob of globs) {
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
  return pathMatch;
}

/**
 * The gating stage: whether an artifact may be a candidate at all, whatever its score.
 * Superseded, archived, held (unreviewed), another task's, failing its conditions, or
 * path-scoped away from the files in play: left out with the reason `explain` shows.
 * Invalid globs met on the way are pushed to `invalidGlobs`.
 */
export function admit(doc: DocInfo, ctx: AdmitContext, invalidGlobs: Array<{ id: string; glob: string; error: string }>): AdmitOutcome {
  const a = doc.artifact;
  const intended = doc.layer;
  const out = (reason: ExcludedItem['reason'], detail: string | undefined): AdmitOutcome => ({ admitted: false, excluded: leftOutItem(a, intended, reason, detail) });
  // The reviewed version a held proposal would replace stays in until a person approves.
  const standingIn = doc.standIn === true && ctx.options.unreviewed === 'hold';
  if (a.status === 'superseded' && !standingIn) {
    const by = ctx.supersededBy.get(a.chainId) ?? a.supersededBy;
    return out('superseded', by ? `superseded by ${by}` : undefined);
  }
  if (a.status === 'archived') return out('archived', undefined);
  if (ctx.options.unreviewed === 'hold' && isUnreviewed(a)) return out('unreviewed', `written by ${a.source}; held until a person approves it`);
  if (a.scope === 'task' && (!ctx.taskId || a.taskId !== ctx.taskId)) return out('other-task', `belongs to task ${a.taskId ?? '(none)'}`);
  const c = a.conditions;
  if (c.labels.length + c.keywords.length + c.paths.length > 0) {
    const gated = passesGate(c, ctx.gate);
    for (const bad of gated.invalidGlobs) invalidGlobs.push({ id: a.id, glob: bad.glob, error: bad.error });
    if (!gated.pass) return out('gated', gated.detail || undefined);
  }
  const pathMatch = bestPathMatch(doc.globs, ctx.active) ?? (doc.everywhere ? everywhereMatch(ctx.active) : undefined);
  if (intended === 'path' && !pathMatch) {
    // Path scope as every agent tool reads it: a standing rule scoped to other folders stays
    // out while files are in play, unless the task names it. A record's paths say what it
    // concerns, not where it applies: it is ranked with a penalty instead. With no file in
    // play there is no scope to judge by, and everything is ranked on its text.
    const mode = ctx.options.unmatchedPathArtifacts;
    // A task label naming one of its folders ("journal" for the notes on internal/journal/**)
    // says the task concerns that module, though no file of it is in play: evidence for the
    // ranking, not a scope. A label is a topic, not a name, and no agent tool loads a rule for one.
    const labelFolder = ctx.labelKeys ? folderNamedByLabel(doc.globs, ctx.labelKeys) : undefined;
    const scopedAway = ctx.active.length > 0 && !(ctx.namedByTask?.(doc) ?? false);
    // A module's notes are scoped by what they are: they describe that module, so with other
    // files in play they stay out unless the task names the module (its id, title, a path, or a
    // label naming its folder), or the notes name a file in play or its folder (the memory
    // module that derives ProjectSlug from slug/ concerns a change to slug.go). The budget is a
    // ceiling: what no evidence ties to this work stays out, however much room is left.
    const otherModule = a.type === 'module_memory' && labelFolder === undefined && !(ctx.playNames?.test(a.body) ?? false);
    const outOfScope = mode === 'exclude' || (mode === 'rules' && scopedAway && (STANDING_RULE_TYPES.has(a.type) || otherModule));
    if (outOfScope || doc.globs.length === 0) return out('path-mismatch', `paths ${a.paths.join(', ')} match no active path`);
    return { admitted: true, layer: 'global', pathMatch: undefined, unmatchedPath: true, ...(labelFolder !== undefined ? { labelFolder } : {}) };
  }
  return { admitted: true, layer: intended, pathMatch, unmatchedPath: false };
}
