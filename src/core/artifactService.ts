/**
 * The one path to a new version of an artifact chain, and to a chain that replaces another.
 * Every writer goes through here: the CLI's update, revert, supersede and review, the
 * editor's save, revert, supersede and review, and the agents' propose_version and
 * propose_supersession. So the rules live once:
 * - A new version keeps its chain, creation time, status, supersession and pin; it takes the
 *   next version number and a free id; conditions merge; a change that alters no content,
 *   pin or source adds nothing (the latest version is returned, `changed: false`).
 * - Scope: `path` needs paths; `task` needs a task (the chain's, else the active one).
 * - An agent's version or replacement is unreviewed, with its provenance (`source`
 *   `agent:<name>`, `proposedBy/Via/At`, the reason as `changeNote`: src/core/artifactSchema.ts).
 * - A person's verdict on an agent's version is a new version with the same content
 *   (history shows who decided, when); a rejected chain is archived.
 * - A replacement is a new chain naming the old one in `supersedes`; the old chain becomes
 *   superseded and leaves every context.
 * The store (src/core/ledgerStore) only stores what this decides.
 */
import { withoutRecorded } from './artifactSchema';
import { newVersionId } from './ids';
import { type Artifact, type ArtifactInput, type ArtifactPatch, type Scope, UserError, oneLine } from './model';
import { type AgentProvenance, type ReviewState, asUnreviewed, markReviewed, reviewState } from './review';
import { CONTENT_FIELDS, sameContent } from './ledgerStore/artifactInput';
import type { LedgerStore } from './store';

/** An agent's proposal: who, through what, and why (shown to the reviewer). */
export interface Proposal {
  provenance: AgentProvenance;
  reason?: string;
}

export interface VersionChange {
  /** The fields that change; the rest are the latest version's. */
  patch?: ArtifactPatch;
  /** Written by an agent: the new version is unreviewed, with this provenance. */
  proposal?: Proposal;
  /** A person's verdict on the latest version, which an agent wrote; the content stays. */
  review?: { verdict: Exclude<ReviewState, 'unreviewed'>; reviewer: string };
}

export interface VersionOutcome {
  /** False when the change altered nothing: `artifact` is then the latest version, as it was. */
  changed: boolean;
  artifact: Artifact;
  /** The latest version before the change. */
  previous: Artifact;
}

/** A free id for a new version, named as the store names its versions (src/core/ids.ts). */
export function nextVersionId(store: Pick<LedgerStore, 'getArtifact'>, chainId: string, version: number): string {
  return newVersionId(chainId, version, (id) => store.getArtifact(id) !== undefined);
}

/**
 * The scope and task of a version: without a scope, `path` when it has paths, else
 * `global`; `path` needs paths; `task` takes the given task, else the active one.
 */
export function resolveScope(
  store: Pick<LedgerStore, 'getActiveTask'>,
  input: { scope?: Scope; paths?: readonly string[]; taskId?: string | null },
): { scope: Scope; taskId: string | null } {
  const scope = input.scope ?? ((input.paths?.length ?? 0) > 0 ? 'path' : 'global');
  if (scope === 'path' && (input.paths?.length ?? 0) === 0) {
    throw new UserError('Scope "path" needs at least one workspace-relative glob in "paths", e.g. ["src/api/**"].');
  }
  if (scope !== 'task') return { scope, taskId: input.taskId ?? null };
  const taskId = input.taskId ?? store.getActiveTask()?.id;
  if (!taskId) throw new UserError('Scope "task" needs an active task, and there is none. Use scope "global" or "path".');
  return { scope, taskId };
}

/** Adds a version to the chain of `ref` (any version of it); see the rules above. */
export function newVersion(store: LedgerStore, ref: string, change: VersionChange): VersionOutcome {
  const previous = store.latestOfChain(store.requireArtifact(ref).chainId)!;
  const patch = change.patch ?? {};
  const at = store.clock.now().toISOString();
  if (change.review) {
    const state = reviewState(previous);
    if (state === undefined) {
      throw new UserError(`${previous.id} was not written by an agent; there is nothing to review.`, 'List what awaits review with `context-ledger inbox`.');
    }
    if (state === change.review.verdict) return { changed: false, artifact: previous, previous };
  }
  const paths = patch.paths ?? previous.paths;
  const { scope, taskId } = resolveScope(store, { scope: patch.scope ?? previous.scope, paths, taskId: 'taskId' in patch ? patch.taskId : previous.taskId });
  const contentChanges = change.review === undefined;
  // Who wrote a version pulled from a teammate's file is not who writes the next one.
  let next: ArtifactInput = {
    ...(contentChanges ? withoutRecorded(previous, 'author') : previous),
    ...patch,
    scope,
    taskId,
    paths,
    conditions: patch.conditions ? { ...previous.conditions, ...patch.conditions } : previous.conditions,
    id: nextVersionId(store, previous.chainId, previous.version + 1),
    chainId: previous.chainId,
    version: previous.version + 1,
    status: previous.status,
    supersedes: previous.supersedes,
    createdAt: previous.createdAt,
    updatedAt: at,
  };
  if (contentChanges) {
    const candidate = store.normalizeInput(next);
    if (sameContent(previous, candidate) && candidate.pinned === previous.pinned && candidate.source === previous.source) {
      return { changed: false, artifact: previous, previous };
    }
  }
  if (change.proposal) {
    const reason = change.proposal.reason ? { changeNote: oneLine(change.proposal.reason) } : {};
    next = asUnreviewed({ ...next, previousVersion: previous.id, ...reason }, change.proposal.provenance, at);
  }
  if (change.review) next = { ...next, ...markReviewed(change.review.verdict, change.review.reviewer, at) };
  const review = change.review;
  const artifact = store.transaction(() => {
    const created = store.createArtifact(next);
    return review?.verdict === 'rejected' ? store.archive(created.id) : created;
  });
  return { changed: true, artifact, previous };
}

/**
 * Records a person's verdict on the latest version of the chain of `ref` (an agent's):
 * a new version with the same content; a rejected chain is archived. Returns the latest
 * version afterwards.
 */
export function applyReview(store: LedgerStore, ref: string, verdict: Exclude<ReviewState, 'unreviewed'>, reviewer = 'user'): Artifact {
  return newVersion(store, ref, { review: { verdict, reviewer } }).artifact;
}

/**
 * Brings an older version back: a new version of its chain with that version's content.
 * The versions in between stay in the history; status and pin stay as the chain has them.
 */
export function restoreVersion(store: LedgerStore, ref: string): Artifact {
  const old = store.requireArtifact(ref);
  const latest = store.latestOfChain(old.chainId)!;
  if (old.id === latest.id) throw new UserError(`"${old.title}" is already the latest version (v${old.version}); pick an older one to restore.`);
  const content = Object.fromEntries(CONTENT_FIELDS.map((field) => [field, old[field]])) as ArtifactPatch;
  const restored = newVersion(store, latest.id, { patch: content });
  if (!restored.changed) throw new UserError(`v${old.version} of "${old.title}" has the same content as the latest version (v${latest.version}): nothing to restore.`);
  return restored.artifact;
}

/** What replaces a chain: an artifact already in the ledger, or a new one (an agent's proposal, if `proposal`). */
export type Replacement = { by: string } | { input: ArtifactInput; proposal?: Proposal };

/** Marks the chain of `oldRef` superseded by `replacement`; see the rules above. */
export function supersedeChain(store: LedgerStore, oldRef: string, replacement: Replacement): { superseded: Artifact; by: Artifact } {
  if ('by' in replacement) return store.supersede(oldRef, replacement.by);
  const old = store.requireArtifact(oldRef);
  const { input, proposal } = replacement;
  // A person's replacement without a scope is global, as `add` makes it; an agent's is path-scoped when it names paths.
  const { scope, taskId } = resolveScope(store, { ...input, scope: input.scope ?? (proposal ? undefined : 'global') });
  let created: ArtifactInput = { ...input, scope, taskId };
  if (proposal) {
    const reason = proposal.reason ? { changeNote: oneLine(proposal.reason) } : {};
    created = asUnreviewed({ ...created, supersedesId: old.id, ...reason }, proposal.provenance, store.clock.now().toISOString());
  }
  return store.supersedeWith(old.id, created);
}
