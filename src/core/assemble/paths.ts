import { Minimatch } from 'minimatch';
import { foldForPhrase, stemWord } from './text';

/** Workspace-relative, forward slashes, no leading `./` or `/`; a trailing `/` marks a folder. */
export function normalizePath(path: string): string {
  let p = path.trim().replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  p = p.replace(/^\/+/, '');
  return p;
}

export interface ActivePath {
  path: string;
  /** Folder segments (for a folder path: all of them). */
  dirs: string[];
  isDir: boolean;
}

export function toActivePath(raw: string): ActivePath | undefined {
  const path = normalizePath(raw);
  if (path === '' || path === '/') return undefined;
  const isDir = path.endsWith('/');
  const segments = path.replace(/\/$/, '').split('/');
  return { path: path.replace(/\/$/, ''), dirs: isDir ? segments : segments.slice(0, -1), isDir };
}

export interface CompiledGlob {
  glob: string;
  matcher: Minimatch;
  /** Literal path segments before the first wildcard. */
  staticSegments: string[];
  /** No wildcard at all: names one file or folder. */
  literal: boolean;
  matchBase: boolean;
}

const MAX_GLOB_LENGTH = 4096;

function balanced(glob: string): string | undefined {
  let square = 0;
  let curly = 0;
  let round = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') square++;
    else if (c === ']' && square > 0) square--;
    else if (c === '{') curly++;
    else if (c === '}') curly--;
    else if (c === '(') round++;
    else if (c === ')') round--;
    if (curly < 0 || round < 0) return 'a closing bracket has no opening one';
  }
  if (square > 0) return 'an unclosed "["';
  if (curly > 0) return 'an unclosed "{"';
  if (round > 0) return 'an unclosed "("';
  return undefined;
}

/** Compiles a glob, or says why it cannot be used (never throws). */
export function compileGlob(raw: string): CompiledGlob | { error: string } {
  if (typeof raw !== 'string') return { error: 'not a string' };
  const glob = normalizePath(raw);
  if (glob === '') return { error: 'empty glob' };
  if (glob.length > MAX_GLOB_LENGTH) return { error: `longer than ${MAX_GLOB_LENGTH} characters` };
  if (glob.includes('\u0000')) return { error: 'contains a NUL character' };
  const unbalanced = balanced(glob);
  if (unbalanced) return { error: `${unbalanced} (the glob would only match itself literally)` };
  try {
    const matchBase = !glob.replace(/\/$/, '').includes('/');
    const matcher = new Minimatch(glob.endsWith('/') ? `${glob}**` : glob, { dot: true, matchBase, nonegate: true, nocomment: true });
    const segments = glob.replace(/\/$/, '').split('/');
    const staticSegments: string[] = [];
    for (const segment of segments) {
      if (/[*?[\]{}()!+@]/.test(segment)) break;
      staticSegments.push(segment);
    }
    const literal = staticSegments.length === segments.length;
    return { glob, matcher, staticSegments, literal, matchBase };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** `everywhere`: a rule its tool loads for every file (see `everywhereMatch`). */
export type PathMatchKind = 'exact' | 'directory' | 'glob' | 'everywhere';

export interface PathMatch {
  kind: PathMatchKind;
  /** 0..1: exact file > directory prefix > broad glob; deeper prefixes are more specific. */
  specificity: number;
  glob: string;
  path: string;
}

function startsWithSegments(haystack: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > haystack.length) return false;
  for (let i = 0; i < prefix.length; i++) if (haystack[i] !== prefix[i]) return false;
  return true;
}

/** A glob naming no folder (`**\/*.ts`) and a rule loaded for every file are the broadest scopes: the least specific match. */
const BROADEST_SPECIFICITY = 0.4;

/**
 * A task label naming one of an artifact's folders scopes it weaker than the broadest match
 * of a file in play: a label is a topic someone chose for the task (a component, a module),
 * the files in play are the work itself.
 */
export const LABEL_SPECIFICITY = 0.3;

/** A label or a folder name as one key: lower case, words stemmed, so `Hooks` names `hooks/` and `companion-tools` names `companion_tools/`. */
export function labelKey(text: string): string {
  return foldForPhrase(text).trim().split(' ').map(stemWord).join(' ');
}

/** The folders a glob names: its literal segments, less the file a wildcard-free path names. */
function globFolders(glob: CompiledGlob): string[] {
  return glob.literal && !glob.glob.endsWith('/') ? glob.staticSegments.slice(0, -1) : glob.staticSegments;
}

/** The label keys of a glob's folders, computed once per compiled glob. */
const folderKeysOf = new WeakMap<CompiledGlob, string[]>();

function folderKeys(glob: CompiledGlob): string[] {
  let keys = folderKeysOf.get(glob);
  if (keys === undefined) {
    keys = globFolders(glob).map(labelKey);
    folderKeysOf.set(glob, keys);
  }
  return keys;
}

/**
 * The folder of the artifact's paths that a task label names (`journal` for
 * `internal/journal/state/**` on a task labelled "journal"), if any: the task says it concerns
 * that module, though no file of it is in play.
 */
export function folderNamedByLabel(globs: readonly CompiledGlob[], labelKeys: ReadonlySet<string>): string | undefined {
  if (labelKeys.size === 0) return undefined;
  for (const glob of globs) {
    const keys = folderKeys(glob);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== '' && labelKeys.has(keys[i]!)) return globFolders(glob)[i];
  }
  return undefined;
}

/** Shorter names (`cmd`, `api`, `src`) are too common in prose to tie a text to a file. */
const MIN_PLAY_NAME = 4;
/** A name a text can use as a word: letters, digits, `_` and `-` (not `(.*)` or `[id]`). */
const PLAY_NAME = /^[\p{L}\p{N}_-]+$/u;

/**
 * The names by which a text can refer to the files in play: each file's stem and its folder's
 * name (`slug` for `internal/slug/slug.go`), as one case-insensitive whole-word pattern, or
 * undefined when no name is long enough to tell.
 */
export function playNamesPattern(active: readonly ActivePath[]): RegExp | undefined {
  const names = new Set<string>();
  for (const p of active) {
    const segments = p.path.split('/');
    const file = p.isDir ? undefined : segments[segments.length - 1]!;
    const stem = file?.replace(/\.[^.]*$/, '');
    const folder = p.dirs[p.dirs.length - 1];
    for (const name of [stem, folder]) if (name !== undefined && name.length >= MIN_PLAY_NAME && PLAY_NAME.test(name)) names.add(name.toLowerCase());
  }
  if (names.size === 0) return undefined;
  // Only word characters and `-` remain, so the names need no escaping.
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${[...names].sort().join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
}

/**
 * A rule its tool loads for every file (a root AGENTS.md or CLAUDE.md, Copilot's
 * copilot-instructions.md) is in scope for whatever file is in play, as broadly as a match
 * can be. With no file in play there is no scope to judge by.
 */
export function everywhereMatch(active: readonly ActivePath[]): PathMatch | undefined {
  return active.length === 0 ? undefined : { kind: 'everywhere', specificity: BROADEST_SPECIFICITY, glob: '**', path: active[0]!.path };
}

/** Scores how specifically one glob matches one active path, or undefined when it does not. */
export function matchGlob(glob: CompiledGlob, active: ActivePath): PathMatch | undefined {
  const pathSegments = active.path.split('/');
  const depth = glob.staticSegments.length;
  // A prefix covering all of the file's folders (`internal/rc/**` for internal/rc/rc.go) is
  // nearly as specific as naming the file; one covering a top folder of a deep path is broad.
  const prefixSpecificity = 0.45 + 0.45 * Math.min(1, depth / Math.max(1, active.dirs.length));
  if (glob.literal) {
    if (!glob.matchBase && glob.glob.replace(/\/$/, '') === active.path) {
      return { kind: active.isDir ? 'directory' : 'exact', specificity: active.isDir ? 0.9 : 1, glob: glob.glob, path: active.path };
    }
    if (glob.matchBase && pathSegments[pathSegments.length - 1] === glob.glob.replace(/\/$/, '')) {
      return { kind: 'exact', specificity: 0.85, glob: glob.glob, path: active.path };
    }
    if (!glob.matchBase && startsWithSegments(pathSegments, glob.staticSegments)) {
      return { kind: 'directory', specificity: prefixSpecificity, glob: glob.glob, path: active.path };
    }
  } else if (glob.matcher.match(active.path)) {
    if (depth === 0) return { kind: 'glob', specificity: BROADEST_SPECIFICITY, glob: glob.glob, path: active.path };
    return { kind: 'directory', specificity: prefixSpecificity, glob: glob.glob, path: active.path };
  }
  if (active.isDir && !glob.matchBase) {
    // The active path is a folder: anything the glob names inside it, or any folder glob around it, is in play.
    if (startsWithSegments(glob.staticSegments, active.dirs) && glob.staticSegments.length > 0) {
      return { kind: 'directory', specificity: 0.4 + 0.3 * (active.dirs.length / (active.dirs.length + 1)), glob: glob.glob, path: active.path };
    }
    if (!glob.literal && depth > 0 && startsWithSegments(active.dirs, glob.staticSegments)) {
      return { kind: 'directory', specificity: prefixSpecificity, glob: glob.glob, path: active.path };
    }
  }
  return undefined;
}

/**
 * How near an artifact's globs are to the active paths without matching them: 1 when
 * one names a file in the same (non-root) folder as an active file, falling off with the
 * number of folders they do not share. The top-level folder alone (`src/`) says nothing.
 */
export function pathProximity(globs: readonly CompiledGlob[], active: readonly ActivePath[]): number {
  let best = 0;
  for (const glob of globs) {
    const globDirs = globFolders(glob);
    if (globDirs.length < 2) continue;
    for (const a of active) {
      let common = 0;
      while (common < globDirs.length && common < a.dirs.length && globDirs[common] === a.dirs[common]) common++;
      if (common < 2) continue;
      const span = Math.max(globDirs.length, a.dirs.length) - 1;
      const value = (common - 1) / span;
      if (value > best) best = value;
    }
  }
  return best;
}
