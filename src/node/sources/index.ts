import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathsInText } from '../../core/assemble';
import { UserError } from '../../core/model';
import {
  type CodeFile,
  type DocSection,
  type PlainDiagnostic,
  diagnosticCandidates,
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
import { type LogInput, logCandidates, MAX_LOG_CHARS } from '../../core/sources';
import { minimatch } from 'minimatch';
import { cachedGit, readGit } from '../git';

export { readGit };

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
  /** The logs source: workspace log files matching these globs (default DEFAULT_LOG_GLOBS)... */
  logGlobs?: readonly string[];
  /** ...and output the caller captured itself: failed terminal commands, piped input. */
  logInputs?: readonly LogInput[];
  /** "Now", for how old a failure is (defaults to the clock). */
  now?: Date;
}

/** Log files a workspace keeps by convention. */
export const DEFAULT_LOG_GLOBS: readonly string[] = ['**/*.log', '**/logs/**/*.txt'];
/** Newest log files read per build: older ones rarely hold the failure the task is about. */
const MAX_LOG_FILES = 20;

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
    const kind = name;
    if (!(SOURCE_KINDS as readonly string[]).includes(kind) || kind === 'conversation' || kind === 'diagnostics') {
      throw new UserError(`Unknown or unavailable source "${name}" for the CLI.`, 'Use code, docs, git, deployment, logs or all (diagnostics and conversation come from the editor).');
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
  const needsWalk = kinds.has('docs') || kinds.has('deployment') || kinds.has('logs');
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
  if (kinds.has('logs')) {
    const inputs = [...logFileInputs(root, files, options.logGlobs ?? DEFAULT_LOG_GLOBS), ...(options.logInputs ?? [])];
    out.push(...logCandidates(inputs, { inPlay, ...(options.now ? { now: options.now } : {}) }));
  }
  if (kinds.has('git')) {
    const state = cachedGit(root);
    if (state) out.push(...gitCandidates(state, { inPlay }));
  }
  return out;
}

/**
 * The newest workspace log files matching the globs, each read from its end (the failure is
 * at the end of a log). The walk never follows a link, so nothing outside the workspace is read.
 */
function logFileInputs(root: string, files: readonly string[], globs: readonly string[]): LogInput[] {
  if (globs.length === 0) return [];
  const matching: Array<{ rel: string; mtimeMs: number; size: number }> = [];
  for (const rel of files) {
    if (!globs.some((glob) => minimatch(rel, glob, { dot: true, matchBase: !glob.includes('/') }))) continue;
    try {
      const stat = fs.lstatSync(path.join(root, rel));
      if (stat.isFile()) matching.push({ rel, mtimeMs: stat.mtimeMs, size: stat.size });
    } catch {
      // Gone since the walk.
    }
  }
  matching.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : 1));
  const inputs: LogInput[] = [];
  for (const file of matching.slice(0, MAX_LOG_FILES)) {
    const text = readTail(path.join(root, file.rel), file.size);
    if (text !== undefined) inputs.push({ origin: 'file', label: file.rel, text, endedAt: new Date(file.mtimeMs).toISOString() });
  }
  return inputs;
}

/** The last MAX_LOG_CHARS bytes of a file as text (a cut first line dropped); undefined for a binary file. */
function readTail(abs: string, size: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const length = Math.min(size, MAX_LOG_CHARS);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    if (buffer.includes(0)) return undefined;
    const text = buffer.toString('utf8');
    return length < size ? text.slice(text.indexOf('\n') + 1) : text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
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

/** How long input from a socket (a program that spawned the CLI) may stay silent before it counts as no input. */
const SOCKET_IDLE_MS = 2000;

/**
 * Output piped into the CLI (`npm test 2>&1 | context-ledger build --sources logs`), read to
 * its end and kept from its end. A shell pipe or a redirected file is read to the end, however
 * long the command before it runs. A socket (how programs spawn the CLI) that says nothing for
 * two seconds is taken as no input, so a parent that leaves stdin open is never waited on. A
 * terminal is never read.
 */
export async function readPipedInput(stream: NodeJS.ReadStream = process.stdin, fd = 0): Promise<string | undefined> {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch {
    return undefined;
  }
  if (stream.isTTY || !(stat.isFIFO() || stat.isFile() || stat.isSocket())) return undefined;
  const chunks: Buffer[] = [];
  let kept = 0;
  await new Promise<void>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (idle) clearTimeout(idle);
      stream.off('data', onData);
      stream.pause();
      resolve();
    };
    const onData = (chunk: Buffer | string): void => {
      if (idle) clearTimeout(idle);
      idle = undefined;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buffer);
      kept += buffer.length;
      // Keep about the last MAX_LOG_CHARS bytes: the failure is at the end.
      while (chunks.length > 1 && kept - chunks[0]!.length >= MAX_LOG_CHARS) kept -= chunks.shift()!.length;
    };
    if (stat.isSocket()) idle = setTimeout(finish, SOCKET_IDLE_MS);
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
  if (stat.isSocket()) stream.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  return text.trim() === '' ? undefined : text;
}
