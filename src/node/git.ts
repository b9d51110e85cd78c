/**
 * The one place that runs git (the CLI, the live git source and the extension when the
 * Git extension's API is missing all come here). Read-only commands, no optional locks,
 * paths unquoted; a folder that is no repository, or no git at all, gives undefined or
 * nothing rather than an error. Parsing lives in src/core/git.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GIT_LOG_FORMAT, parseGitLog, type StaleFlag, staleMemories, stalenessHorizon } from '../core/git';
import type { Artifact } from '../core/model';
import type { GitChange, GitCommit, GitState } from '../core/sources';
import { SourceCache } from '../core/sources/cache';
import { writeFileInside } from './files';

const EXEC = {
  encoding: 'utf8' as const,
  timeout: 10_000,
  maxBuffer: 16 * 1024 * 1024,
  // Reading must not take the index lock a person's own git command is about to need.
  env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
};
/** Non-ASCII file names as they are, not as octal escapes. */
const CONFIG = ['-c', 'core.quotePath=false'];

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', [...CONFIG, ...args], { ...EXEC, cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

function gitAsync(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = execFile('git', [...CONFIG, ...args], { ...EXEC, cwd: root }, (error, stdout) => resolve(error ? undefined : stdout));
    child.stdin?.end();
  });
}

/** Commits read back for staleness: older history than this many commits is not checked. */
const MAX_HISTORY = 2000;

/** What a branch is compared with, first found wins. */
const BASES = ['origin/main', 'main', 'origin/master', 'master'];

/** Paths from git are relative to the repository; the workspace may be a folder inside it. */
function localizer(prefix: string): (p: string) => string | undefined {
  return (p) => (p.startsWith(prefix) ? p.slice(prefix.length) : undefined);
}

export interface GitHead {
  /** The commit HEAD points at; undefined in a repository without commits. */
  head?: string;
  /** The branch name; undefined when HEAD is detached. */
  branch?: string;
}

/** Where HEAD is, in one git call; undefined when `root` is not inside a repository (or git is missing). */
export async function gitHead(root: string): Promise<GitHead | undefined> {
  const out = await gitAsync(root, ['rev-parse', '--show-prefix', 'HEAD', '--abbrev-ref', 'HEAD']);
  if (out === undefined) {
    // A repository without commits: rev-parse HEAD fails, but the folder is still a repository.
    return (await gitAsync(root, ['rev-parse', '--show-toplevel'])) !== undefined ? {} : undefined;
  }
  const [, head, branch] = out.split('\n').map((l) => l.trim());
  return { ...(head && /^[0-9a-f]{7,64}$/.test(head) ? { head } : {}), ...(branch && branch !== 'HEAD' ? { branch } : {}) };
}

export interface LogOptions {
  /** A revision range such as `abc123..def456`. */
  range?: string;
  /** Only commits committed after this ISO time. */
  since?: string;
  /** At most this many commits (default 500). */
  max?: number;
}

/** Commits with the workspace files each touched, newest first, merges left out. */
export async function gitCommits(root: string, options: LogOptions = {}): Promise<GitCommit[]> {
  const prefix = (await gitAsync(root, ['rev-parse', '--show-prefix']))?.trim();
  if (prefix === undefined) return [];
  const args = ['log', `-n${Math.max(1, Math.floor(options.max ?? 500))}`, '--no-merges', GIT_LOG_FORMAT, '--name-only'];
  if (options.since) args.push(`--since=${options.since}`);
  if (options.range) {
    // A range comes from HEAD values we read ourselves; anything else is refused rather than passed to git as an option.
    if (!/^[0-9a-f]{7,64}(\.\.[0-9a-f]{7,64})?$/.test(options.range)) return [];
    args.push(options.range);
  }
  args.push('--', '.');
  return parseGitLog((await gitAsync(root, args)) ?? '', localizer(prefix));
}

/** Branch, changes since the branch left its base (plus uncommitted work), recent commits with files. */
export function readGit(root: string): GitState | undefined {
  const top = git(root, ['rev-parse', '--show-toplevel'])?.trim();
  if (!top) return undefined;
  const branch = git(root, ['rev-parse', '--abbrev-ref', 'HEAD'])?.trim();
  let base: string | undefined;
  let baseRef: string | undefined;
  for (const candidate of BASES) {
    if (candidate === branch) continue;
    const mergeBase = git(root, ['merge-base', 'HEAD', candidate])?.trim();
    if (mergeBase) {
      base = candidate;
      baseRef = mergeBase;
      break;
    }
  }
  const prefix = git(root, ['rev-parse', '--show-prefix'])?.trim() ?? '';
  const local = localizer(prefix);
  const changes = new Map<string, GitChange>();
  const against = baseRef ?? (git(root, ['rev-parse', '--verify', '-q', 'HEAD']) ? 'HEAD' : undefined);
  if (against) {
    for (const line of (git(root, ['diff', '--name-status', '-M', against]) ?? '').split('\n')) {
      const parts = line.split('\t');
      if (parts.length < 2) continue;
      const status = parts[0]!.charAt(0);
      const to = local(parts[parts.length - 1]!);
      if (!to) continue;
      const from = parts.length > 2 ? local(parts[1]!) : undefined;
      changes.set(to, { path: to, status, ...(from ? { oldPath: from } : {}) });
    }
    for (const line of (git(root, ['diff', '--numstat', '-M', against]) ?? '').split('\n')) {
      const m = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
      if (!m) continue;
      const file = m[3]!.includes(' => ') ? m[3]!.replace(/\{?([^{}]*?) => ([^{}]*?)\}?/, '$2').replace(/\/\//g, '/') : m[3]!;
      const rel = local(file);
      const change = rel ? changes.get(rel) : undefined;
      if (change) {
        change.added = m[1] === '-' ? 0 : Number(m[1]);
        change.deleted = m[2] === '-' ? 0 : Number(m[2]);
      }
    }
  }
  for (const line of (git(root, ['status', '--porcelain=v1', '-uall']) ?? '').split('\n')) {
    if (!line.startsWith('??')) continue;
    const rel = local(line.slice(3).replace(/^"|"$/g, ''));
    if (rel && !changes.has(rel) && changes.size < 500) changes.set(rel, { path: rel, status: '?' });
  }
  const commits = parseGitLog(git(root, ['log', '-n', '40', '--no-merges', GIT_LOG_FORMAT, '--name-only', '--', '.']) ?? '', local);
  return {
    ...(branch && branch !== 'HEAD' ? { branch } : {}),
    ...(base ? { base } : {}),
    changes: [...changes.values()],
    commits,
  };
}

/**
 * The workspace files the current branch changed: committed since it left its base and,
 * unless `committedOnly` (when the Git extension reports the rest), staged, unstaged and
 * new ones. Deleted files are left out. Asynchronous, for the editor.
 */
export async function branchFiles(root: string, options: { committedOnly?: boolean } = {}): Promise<string[]> {
  const committedOnly = options.committedOnly === true;
  // Started at once with the rest (a hook at session start waits on these processes): its answer is dropped where there is no repository.
  const untracked = committedOnly ? undefined : gitAsync(root, ['ls-files', '--others', '--exclude-standard']);
  const head = await gitHead(root);
  if (!head) return [];
  let against = head.head;
  for (const candidate of BASES) {
    if (!head.head || candidate === head.branch) continue;
    const mergeBase = (await gitAsync(root, ['merge-base', 'HEAD', candidate]))?.trim();
    if (mergeBase) {
      against = mergeBase;
      break;
    }
  }
  const out = new Set<string>();
  // `git diff <commit>` compares the working tree with it: the branch's commits and uncommitted edits together.
  const diff = against === undefined ? [] : committedOnly ? [`${against}..HEAD`] : [against];
  if (against) for (const f of ((await gitAsync(root, ['diff', '--name-only', '--diff-filter=d', '--relative', ...diff])) ?? '').split('\n')) if (f) out.add(f);
  if (untracked) for (const f of ((await untracked) ?? '').split('\n')) if (f) out.add(f);
  return [...out].sort();
}

/** Module memories whose paths changed in commits after their last update (one `git log` back to the oldest of them). */
export async function staleFlagsFor(root: string, artifacts: readonly Artifact[]): Promise<Map<string, StaleFlag>> {
  const since = stalenessHorizon(artifacts);
  if (since === undefined) return new Map();
  return staleMemories(artifacts, await gitCommits(root, { since, max: MAX_HISTORY }));
}

const gitCache = new SourceCache<GitState | undefined>(20);
const repositories = new Map<string, { top: string; common: string } | undefined>();
/** The files that hold the BASES branches' commits (when not packed). */
const BASE_REFS = BASES.map((name) => (name.startsWith('origin/') ? `refs/remotes/${name}` : `refs/heads/${name}`));

function fileStamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}

/**
 * What `readGit` depends on, in one git call instead of its nine: HEAD and the branch
 * (status), every path that differs from HEAD or is untracked, with its size and mtime so
 * a further edit of a changed file shows too, and the files that hold the base branches'
 * commits. Undefined when git cannot answer (no repository, no git): nothing is cached then.
 */
export function gitStamp(root: string): string | undefined {
  if (!repositories.has(root)) {
    const [top, common] = (git(root, ['rev-parse', '--show-toplevel', '--git-common-dir']) ?? '').split('\n').map((l) => l.trim());
    repositories.set(root, top && common ? { top, common: path.resolve(root, common) } : undefined);
  }
  const repository = repositories.get(root);
  if (!repository) return undefined;
  const status = git(root, ['status', '--porcelain=v2', '--branch', '-uall', '-z']);
  if (status === undefined) return undefined;
  const stamps = [...BASE_REFS, 'packed-refs'].map((ref) => fileStamp(path.join(repository.common, ref)));
  const records = status.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    // Fields before the path: 8 for a change, 9 for a rename or copy (its old path is the next record), 10 for a conflict.
    const skip = { '1': 8, '2': 9, u: 10, '?': 1, '!': 1 }[record.charAt(0)];
    if (skip === undefined) continue;
    if (record.startsWith('2')) i++;
    stamps.push(fileStamp(path.join(repository.top, record.split(' ').slice(skip).join(' '))));
  }
  return `${status}\n${stamps.join(',')}`;
}

/** `readGit`, reused while `gitStamp` is unchanged. */
export function cachedGit(root: string): GitState | undefined {
  const stamp = gitStamp(root);
  return stamp === undefined ? readGit(root) : gitCache.get(root, stamp, () => readGit(root));
}

/**
 * Who last committed each of `files` (paths relative to `folder`), as `Name <email>`, for
 * the files whose working copy is what that commit holds: a file edited since (or never
 * committed) is this person's, and gets no entry. One `git status` and one `git log`
 * over the folder, however many files; nothing when the folder is no repository.
 */
export function lastCommitAuthors(folder: string, files: readonly string[]): Map<string, string> {
  const authors = new Map<string, string>();
  if (files.length === 0) return authors;
  const wanted = new Set(files);
  const status = git(folder, ['status', '--porcelain', '-z', '--untracked-files=all', '--', '.']);
  if (status === undefined) return authors;
  const prefix = git(folder, ['rev-parse', '--show-prefix'])?.trim() ?? '';
  for (const entry of status.split('\0')) {
    const file = entry.slice(3);
    if (entry.length > 3 && file.startsWith(prefix)) wanted.delete(file.slice(prefix.length));
  }
  if (wanted.size === 0) return authors;
  const log = git(folder, ['log', `-n${MAX_HISTORY}`, '--no-merges', '--format=%x01%an <%ae>', '--name-only', '--relative', '--', '.']);
  let author = '';
  for (const line of (log ?? '').split('\n')) {
    if (line.startsWith('\u0001')) author = line.slice(1);
    else if (line !== '' && wanted.delete(line)) authors.set(line, author);
    if (wanted.size === 0) break;
  }
  return authors;
}

/**
 * Keeps a generated file out of `git status` without touching the team's `.gitignore`:
 * lists `relative` (to `root`) in the repository's own `.git/info/exclude`, which is never
 * committed. Returns 'excluded' when it added the line, 'ignored' when git ignores the file
 * already, 'tracked' when it is committed (an exclude cannot hide that), and undefined
 * when `root` is in no repository.
 */
export function excludeFromGit(root: string, relative: string, why = 'its auto-inject file is generated, not for commits'): 'excluded' | 'ignored' | 'tracked' | undefined {
  const out = git(root, ['rev-parse', '--show-prefix', '--git-path', 'info/exclude']);
  if (out === undefined) return undefined;
  const [prefix = '', excludePath = ''] = out.split('\n');
  if (git(root, ['ls-files', '--error-unmatch', '--', relative]) !== undefined) return 'tracked';
  if (git(root, ['check-ignore', '-q', '--no-index', '--', relative]) !== undefined) return 'ignored';
  const file = path.resolve(root, excludePath.trim());
  const line = `/${prefix.trim()}${relative.replace(/\\/g, '/')}`.replace(/([*?[\]!#\\])/g, '\\$1');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let existing = '';
  try {
    existing = fs.readFileSync(file, 'utf8');
  } catch {
    // No exclude file yet.
  }
  const text = `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}# Written by Context Ledger: ${why}.\n${line}\n`;
  writeFileInside(path.dirname(file), file, text, "git's exclude file");
  return 'excluded';
}
