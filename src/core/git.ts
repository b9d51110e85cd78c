/**
 * What the ledger makes of git history, pure: parsing `git log` output, the commits a
 * task made (as `commit` task events), and module memories the code moved on from
 * ("possibly stale"). Running git is the job of src/node/git.ts; the extension feeds it
 * the HEAD changes the Git extension reports.
 */
import { cachedGlob } from './assemble/gating';
import { type CompiledGlob, matchGlob, toActivePath } from './assemble/paths';
import type { AssembleResult, StaleCommit, StaleFlag } from './assemble/types';
import type { Artifact, TaskEvent } from './model';
import type { GitCommit } from './sources/git';

// The flag's shape is part of a build's result (an item's `stale`); staleMemories makes it.
export type { StaleCommit, StaleFlag } from './assemble/types';

/** The `git log` format parseGitLog reads: a record separator, then hash, committer date and subject. */
export const GIT_LOG_FORMAT = '--format=%x1e%H%x09%cI%x09%s';

/**
 * Commits from `git log <GIT_LOG_FORMAT> --name-only`, newest first. `local` maps a
 * repository-relative path to a workspace-relative one, or undefined for files outside
 * the workspace folder (they are dropped; the commit stays).
 */
export function parseGitLog(text: string, local: (repoPath: string) => string | undefined = (p) => p): GitCommit[] {
  const commits: GitCommit[] = [];
  for (const block of text.split('\x1e')) {
    const [head, ...rest] = block.split('\n');
    const m = /^([0-9a-f]{7,64})\t(\S+)\t(.*)$/.exec(head ?? '');
    if (!m) continue;
    const files = rest.map((f) => local(f.trim())).filter((f): f is string => f !== undefined && f !== '');
    commits.push({ hash: m[1]!, date: m[2]!, subject: m[3]!, files });
  }
  return commits;
}

/** Bounds on one commit event, so a commit touching thousands of files cannot bloat the task. */
const MAX_EVENT_FILES = 50;
const MAX_SUBJECT = 200;

export interface CommitEventPayload {
  hash: string;
  subject: string;
  date?: string;
  files: string[];
  /** How many files the commit touched when `files` was cut to MAX_EVENT_FILES. */
  filesTotal?: number;
}

/** The `commit` task event of one commit: what stage summaries and workflow memory read (hash, subject, files). */
export function commitEventPayload(commit: GitCommit): CommitEventPayload {
  const subject = commit.subject.replace(/\s+/g, ' ').trim();
  return {
    hash: commit.hash,
    subject: subject.length > MAX_SUBJECT ? `${subject.slice(0, MAX_SUBJECT - 1)}…` : subject,
    ...(commit.date ? { date: commit.date } : {}),
    files: commit.files.slice(0, MAX_EVENT_FILES),
    ...(commit.files.length > MAX_EVENT_FILES ? { filesTotal: commit.files.length } : {}),
  };
}

/** Hashes a task's `commit` events already name. */
export function recordedCommits(events: readonly TaskEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) {
    if (e.kind !== 'commit') continue;
    const hash = e.payload.hash ?? e.payload.sha ?? e.payload.commit;
    if (typeof hash === 'string' && hash !== '') out.add(hash);
  }
  return out;
}

/** A task's recorded commits as `<short hash> <subject>` lines, newest first. */
export function commitLines(events: readonly TaskEvent[]): string[] {
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return events
    .filter((e) => e.kind === 'commit')
    .map((e) => `${text(e.payload.hash ?? e.payload.sha).slice(0, 8)} ${text(e.payload.subject ?? e.payload.message).split('\n', 1)[0]!.replace(/\s+/g, ' ')}`.trim())
    .filter((line) => line !== '')
    .reverse();
}

/**
 * The commits to record as events of a task, oldest first: not recorded yet, and not
 * older than the task (a branch switch can bring in history made before it).
 */
export function commitsToRecord(commits: readonly GitCommit[], taskCreatedAt: string, events: readonly TaskEvent[]): GitCommit[] {
  const known = recordedCommits(events);
  // Commit dates have whole seconds: a commit in the task's first second counts.
  const since = Math.floor(Date.parse(taskCreatedAt) / 1000) * 1000;
  return commits
    .filter((c) => !known.has(c.hash))
    .filter((c) => {
      const at = c.date ? Date.parse(c.date) : NaN;
      // A commit without a readable date is kept: HEAD moved while the task was active.
      return Number.isNaN(at) || Number.isNaN(since) || at >= since;
    })
    .reverse();
}

/** Commits listed per flag (the count is kept). */
const MAX_STALE_COMMITS = 10;

/** Artifacts that can go stale with the code: active module memories that name paths. */
export function stalenessCandidates(artifacts: readonly Artifact[]): Artifact[] {
  return artifacts.filter((a) => a.type === 'module_memory' && a.status === 'active' && a.paths.length > 0);
}

/** The oldest update among the candidates: how far back the history must go (undefined: none to check). */
export function stalenessHorizon(artifacts: readonly Artifact[]): string | undefined {
  let oldest: string | undefined;
  for (const a of stalenessCandidates(artifacts)) if (oldest === undefined || a.updatedAt < oldest) oldest = a.updatedAt;
  return oldest;
}

/**
 * Module memories whose paths changed in commits made after the memory's last update,
 * by artifact id. `commits` are newest first, with committer dates; a commit without a
 * date cannot be placed and is ignored.
 */
export function staleMemories(artifacts: readonly Artifact[], commits: readonly GitCommit[]): Map<string, StaleFlag> {
  const out = new Map<string, StaleFlag>();
  // Each file's active path once, not once per memory: a long history times thousands of memories.
  const dated = commits
    .map((c) => ({ commit: c, at: c.date ? Date.parse(c.date) : NaN, files: c.files.map((file) => ({ file, active: toActivePath(file) })) }))
    .filter((c) => !Number.isNaN(c.at));
  if (dated.length === 0) return new Map();
  for (const a of stalenessCandidates(artifacts)) {
    const updated = Date.parse(a.updatedAt);
    if (Number.isNaN(updated)) continue;
    const globs = a.paths.map(cachedGlob).filter((g): g is CompiledGlob => !('error' in g));
    if (globs.length === 0) continue;
    const hits: StaleCommit[] = [];
    for (const { commit, at, files: commitFiles } of dated) {
      if (at <= updated) continue;
      const files: string[] = [];
      for (const { file, active } of commitFiles) {
        if (active !== undefined && globs.some((g) => matchGlob(g, active) !== undefined)) files.push(file);
      }
      if (files.length > 0) hits.push({ hash: commit.hash, subject: commit.subject, ...(commit.date ? { date: commit.date } : {}), files });
    }
    if (hits.length > 0) {
      out.set(a.id, { since: a.updatedAt, commits: hits.slice(0, MAX_STALE_COMMITS), ...(hits.length > MAX_STALE_COMMITS ? { total: hits.length } : {}) });
    }
  }
  return out;
}

/** One line for a tooltip, the explain output or a chat answer. */
export function describeStale(flag: StaleFlag): string {
  const count = flag.total ?? flag.commits.length;
  const newest = flag.commits[0];
  const files = [...new Set(flag.commits.flatMap((c) => c.files))];
  const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` +${files.length - 3}` : '');
  return (
    `possibly stale: ${shown} changed in ${count} commit${count === 1 ? '' : 's'} since its last update (${flag.since.slice(0, 10)})` +
    (newest ? `, latest ${newest.hash.slice(0, 8)} "${newest.subject.replace(/\s+/g, ' ').trim()}"` : '')
  );
}

/** The result with the stale flags on its items and exclusions (by artifact id); unchanged when there are none. */
export function markStale(result: AssembleResult, flags: ReadonlyMap<string, StaleFlag>): AssembleResult {
  if (flags.size === 0) return result;
  return {
    ...result,
    items: result.items.map((i) => (flags.has(i.id) ? { ...i, stale: flags.get(i.id)! } : i)),
    excluded: result.excluded.map((e) => (flags.has(e.id) ? { ...e, stale: flags.get(e.id)! } : e)),
  };
}
