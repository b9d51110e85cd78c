import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathsInText } from '../../core/assemble';
import { UserError } from '../../core/model';
import {
  type CodeFile,
  type DocSection,
  type PlainDiagnostic,
  diagnosticCandidates,
  type GitChange,
  type GitCommit,
  type GitState,
  type LiveCandidate,
  type SourceKind,
  SOURCE_KINDS,
  SourceCache,
  codeCandidates,
  deploymentCandidates,
  deploymentKind,
  sectionCandidates,
  gitCandidates,
  importSpecifiers,
  resolveImport,
  splitDoc,
} from '../../core/sources';
import { languageOf } from '../../core/compress';

/**
 * Reads the live sources of a workspace from the disk and git, for the CLI (and anything
 * else with a folder but no editor). Everything it reads stays inside `root`; the pure
 * adapters in src/core/sources turn it into candidates.
 */
export interface CollectOptions {
  root: string;
  kinds: readonly SourceKind[];
  task?: { title?: string; description?: string; labels?: readonly string[] };
  /** Workspace-relative files in play (the CLI's `--path`, the editor's visible files), most important first. */
  paths?: readonly string[];
  /** Other open editors (weaker than `paths`). */
  open?: readonly string[];
  /** Unsaved editor text wins over the disk. */
  textOf?: (rel: string) => string | undefined;
  /** Outlines from an editor's symbol providers, by workspace-relative path. */
  outlines?: ReadonlyMap<string, string>;
  /** Problems the editor reports (workspace-relative paths). */
  diagnostics?: readonly PlainDiagnostic[];
}

/** Folders that hold dependencies, builds or tool state, never the project's own docs or deployment. */
const SKIPPED_DIRS = new Set([
  'node_modules', '.git', 'dist', 'out', 'build', 'coverage', '.next', '.nuxt', '.venv', 'venv', '__pycache__', 'target', 'vendor',
  '.context-ledger', '.vscode-test', '.cache', '.turbo', '.idea', 'bower_components', '.terraform', '.gradle', 'Pods',
]);
const MAX_WALK = 50_000;
const MAX_TEXT_BYTES = 2 * 1024 * 1024;
const MAX_DOC_FILES = 300;
const MAX_DEPLOYMENT_FILES = 200;

const textCache = new SourceCache<string | undefined>(10_000);
const docCache = new SourceCache<DocSection[]>(2_000);
const deploymentCache = new SourceCache<LiveCandidate[]>(1_000);

/** The source kinds a `--sources code,docs` list names (`all` for every one). */
export function parseSourceKinds(raw: string): SourceKind[] {
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('all')) return SOURCE_KINDS.filter((k) => k !== 'conversation');
  const out: SourceKind[] = [];
  for (const name of names) {
    const kind = name === 'logs' ? 'diagnostics' : name;
    if (!(SOURCE_KINDS as readonly string[]).includes(kind) || kind === 'conversation' || kind === 'diagnostics') {
      throw new UserError(`Unknown or unavailable source "${name}" for the CLI.`, 'Use code, docs, git, deployment or all (diagnostics and conversation come from the editor).');
    }
    if (!out.includes(kind as SourceKind)) out.push(kind as SourceKind);
  }
  if (out.length === 0) throw new UserError('--sources needs at least one source.', 'e.g. --sources code,docs,git,deployment');
  return out;
}

/** A workspace-relative `/` path, or undefined if it leaves the workspace. */
function relativeInside(root: string, p: string): string | undefined {
  const abs = path.resolve(root, p);
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** UTF-8 text of a workspace file, or undefined for folders, binaries, huge or unreadable files. */
function readText(root: string, rel: string, maxBytes = MAX_TEXT_BYTES): string | undefined {
  const abs = path.join(root, rel);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(abs);
  } catch {
    return undefined;
  }
  if (!stat.isFile() || stat.size > maxBytes) return undefined;
  return textCache.get(rel, `${root}|${stat.mtimeMs}|${stat.size}`, () => {
    try {
      const bytes = fs.readFileSync(abs);
      if (bytes.includes(0)) return undefined;
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
    } catch {
      return undefined;
    }
  });
}

function stampOf(root: string, rel: string): string {
  try {
    const stat = fs.statSync(path.join(root, rel));
    return `${root}|${stat.mtimeMs}|${stat.size}`;
  } catch {
    return 'missing';
  }
}

/** Workspace files (relative paths), dependency and build folders skipped, symlinks not followed. */
export function walkWorkspace(root: string, limit = MAX_WALK): string[] {
  const out: string[] = [];
  const stack = [''];
  while (stack.length > 0 && out.length < limit) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) stack.push(rel);
      } else if (entry.isFile()) {
        out.push(rel);
        if (out.length >= limit) break;
      }
    }
  }
  return out.sort();
}

function isDoc(rel: string): boolean {
  if (!/\.(md|mdx|markdown)$/i.test(rel)) return false;
  if (!rel.includes('/')) return true;
  return /^(docs?|documentation|adr|design)\//i.test(rel);
}

/** Candidates of the requested sources. Missing files and a folder that is no git repository give none, not an error. */
export function collectLiveSources(options: CollectOptions): LiveCandidate[] {
  const root = path.resolve(options.root);
  const kinds = new Set(options.kinds);
  const taskText = `${options.task?.title ?? ''}\n${options.task?.description ?? ''}`;
  const named = pathsInText(taskText)
    .map((p) => relativeInside(root, p))
    .filter((p): p is string => p !== undefined);
  const active = (options.paths ?? []).map((p) => relativeInside(root, p)).filter((p): p is string => p !== undefined);
  const inPlay = [...new Set([...named, ...active])];
  const out: LiveCandidate[] = [];
  const needsWalk = kinds.has('docs') || kinds.has('deployment');
  const files = needsWalk ? walkWorkspace(root) : [];

  const open = (options.open ?? []).map((p) => relativeInside(root, p)).filter((p): p is string => p !== undefined);
  const read = (rel: string): string | undefined => options.textOf?.(rel) ?? readText(root, rel);
  if (kinds.has('code')) {
    const files = codeFiles(root, read, named, active, open);
    for (const file of files) {
      const outline = options.outlines?.get(file.path);
      if (outline !== undefined) file.outline = outline;
    }
    out.push(...codeCandidates(files));
  }
  if (kinds.has('diagnostics') && options.diagnostics && options.diagnostics.length > 0) {
    out.push(...diagnosticCandidates(options.diagnostics, { inPlay: [...inPlay, ...open], fileText: read }));
  }
  if (kinds.has('docs')) {
    const docs = files.filter(isDoc).slice(0, MAX_DOC_FILES);
    for (const rel of docs) {
      const text = readText(root, rel);
      if (text === undefined) continue;
      // Sections are cached per file version; the adapter only labels them.
      const sections = docCache.get(rel, stampOf(root, rel), () => splitDoc(text));
      out.push(...sectionCandidates(rel, sections, { inPlay }));
    }
  }
  if (kinds.has('deployment')) {
    const deployment = files.filter((rel) => deploymentKind(rel) !== undefined).slice(0, MAX_DEPLOYMENT_FILES);
    for (const rel of deployment) {
      // Sanitising is the costly part: cached per file version (and whether it is in play).
      const candidates = deploymentCache.get(rel, `${stampOf(root, rel)}|${inPlay.includes(rel)}`, () => {
        const text = readText(root, rel, 512 * 1024);
        return text === undefined ? [] : deploymentCandidates([{ path: rel, text }], { inPlay });
      });
      out.push(...candidates);
    }
  }
  if (kinds.has('git')) {
    const state = cachedGit(root);
    if (state) out.push(...gitCandidates(state, { inPlay }));
  }
  return out;
}

function codeFiles(root: string, read: (rel: string) => string | undefined, named: readonly string[], active: readonly string[], open: readonly string[]): CodeFile[] {
  const files: CodeFile[] = [];
  const add = (rel: string, role: CodeFile['role'], importedBy?: string): string | undefined => {
    const text = read(rel);
    if (text === undefined) return undefined;
    files.push({ path: rel, text, role, ...(importedBy ? { importedBy } : {}) });
    return text;
  };
  const primary: Array<[string, string]> = [];
  for (const [list, role] of [[named, 'named'], [active, 'active'], [open, 'open']] as const) {
    for (const rel of list) {
      const text = add(rel, role);
      // One hop of imports from what the user works on, not from every open tab.
      if (text !== undefined && role !== 'open') primary.push([rel, text]);
    }
  }
  const exists = (rel: string): boolean => {
    try {
      return fs.statSync(path.join(root, rel)).isFile();
    } catch {
      return false;
    }
  };
  const seen = new Set(files.map((f) => f.path));
  for (const [rel, text] of primary) {
    for (const spec of importSpecifiers(text, languageOf(rel))) {
      const target = resolveImport(rel, spec, exists);
      if (target && !seen.has(target)) {
        seen.add(target);
        add(target, 'import', rel);
      }
    }
  }
  return files;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000, maxBuffer: 16 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

const gitCache = new SourceCache<GitState | undefined>(20);
const repositories = new Map<string, { top: string; common: string } | undefined>();
const BASE_REFS = ['refs/remotes/origin/main', 'refs/heads/main', 'refs/remotes/origin/master', 'refs/heads/master'];

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
function cachedGit(root: string): GitState | undefined {
  const stamp = gitStamp(root);
  return stamp === undefined ? readGit(root) : gitCache.get(root, stamp, () => readGit(root));
}

/** Branch, changes since the branch left its base (plus uncommitted work), recent commits with files. */
export function readGit(root: string): GitState | undefined {
  const top = git(root, ['rev-parse', '--show-toplevel'])?.trim();
  if (!top) return undefined;
  const branch = git(root, ['rev-parse', '--abbrev-ref', 'HEAD'])?.trim();
  let base: string | undefined;
  let baseRef: string | undefined;
  for (const candidate of ['origin/main', 'main', 'origin/master', 'master']) {
    if (candidate === branch) continue;
    const mergeBase = git(root, ['merge-base', 'HEAD', candidate])?.trim();
    if (mergeBase) {
      base = candidate;
      baseRef = mergeBase;
      break;
    }
  }
  // Paths from git are relative to the repository; the workspace may be a folder inside it.
  const prefix = git(root, ['rev-parse', '--show-prefix'])?.trim() ?? '';
  const local = (p: string): string | undefined => (p.startsWith(prefix) ? p.slice(prefix.length) : undefined);
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
  const commits: GitCommit[] = [];
  const log = git(root, ['log', '-n', '40', '--no-merges', '--format=%x1e%H%x09%cI%x09%s', '--name-only', '--', '.']) ?? '';
  for (const block of log.split('\x1e')) {
    const [head, ...rest] = block.split('\n');
    const m = /^([0-9a-f]{7,64})\t(\S+)\t(.*)$/.exec(head ?? '');
    if (!m) continue;
    const files = rest.map((f) => local(f.trim())).filter((f): f is string => f !== undefined && f !== '');
    commits.push({ hash: m[1]!, date: m[2]!, subject: m[3]!, files });
  }
  return {
    ...(branch && branch !== 'HEAD' ? { branch } : {}),
    ...(base ? { base } : {}),
    changes: [...changes.values()],
    commits,
  };
}
