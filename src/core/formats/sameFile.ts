/**
 * The same knowledge reached twice is one artifact. Teams point one tool's file at
 * another's: `CLAUDE.md` as a symbolic link to `AGENTS.md` (or, where git does not make
 * links, a file holding only the link's target, `AGENTS.md`), or a `CLAUDE.md` that only
 * imports it (`@AGENTS.md`, Claude Code's import syntax). Each file is read once, under
 * the path the tools read it at for the widest scope.
 *
 * Claude Code's `@path` imports are followed: an imported file that is not knowledge
 * of its own is inlined where the `@path` line stands (up to five hops deep, as Claude
 * Code does), so its text reaches the ledger with the importing file's scope.
 */
import type { Skipped, SourceFile } from './common';
import { dirName, normalizePath } from './common';
import { classifyRuleFile } from './agentRules';

/** A file as read, with its real location (links resolved) — workspace-relative. */
export interface ReadSource extends SourceFile {
  real: string;
}

/** Claude Code follows imports at most this many hops deep. */
export const MAX_IMPORT_DEPTH = 5;

/** A path written in `file` (relative to its folder, or to the root when it starts with '/'), or null if it leaves the root. */
export function resolveRelative(file: string, target: string): string | null {
  const base = target.startsWith('/') ? [] : dirName(file).split('/').filter(Boolean);
  for (const part of target.replace(/^\/+/, '').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (base.length === 0) return null;
      base.pop();
    } else base.push(part);
  }
  return base.length === 0 ? null : normalizePath(base.join('/'));
}

/** `AGENTS.md` alone in a file: git's text form of a symbolic link (core.symlinks=false). */
function textLinkTarget(file: SourceFile): string | null {
  const text = file.content.trim();
  return /^[\w.\-/]+\.md$/i.test(text) && !text.includes('\n') ? resolveRelative(file.path, text) : null;
}

/** The `@path` targets of a file whose every non-blank line is an import; null otherwise. */
export function pointerTargets(file: SourceFile): string[] | null {
  const lines = file.content.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !/^<!--.*-->$/.test(line));
  if (lines.length === 0 || !lines.every((line) => /^@[^\s@]+$/.test(line))) return null;
  const targets = lines.map((line) => resolveRelative(file.path, line.slice(1)));
  return targets.every((target) => target !== null) ? (targets) : null;
}

/** Folder depth of the scope a tool gives the file (shallower = wider). */
function scopeDepth(path: string): number {
  const appliesTo = classifyRuleFile(path)?.appliesTo ?? dirName(path);
  return appliesTo === '' ? 0 : appliesTo.split('/').length;
}

/**
 * Drops the second and later paths of one real file, and pointer-only files whose
 * targets are imported on their own. The path kept is the one with the widest scope,
 * then the real file rather than a link, then the first in path order.
 */
export function dedupeSources(files: readonly ReadSource[]): { files: SourceFile[]; skipped: Skipped[] } {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const isLink = (file: ReadSource): boolean => file.real !== file.path || textLinkTarget(file) !== null;
  /** The file whose text this one shows: text links followed (a few hops), symbolic links resolved by the caller. */
  const contentOf = (file: ReadSource): ReadSource => {
    let current = file;
    for (let hop = 0; hop < MAX_IMPORT_DEPTH; hop++) {
      const target = textLinkTarget(current);
      const next = target !== null ? byPath.get(target) : undefined;
      if (!next) break;
      current = byPath.get(next.real) ?? next;
    }
    return current;
  };
  const groups = new Map<string, ReadSource[]>();
  for (const file of files) {
    const key = contentOf(file).real;
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  const skipped: Skipped[] = [];
  const chosen = new Map<ReadSource, string>();
  for (const group of groups.values()) {
    const ranked = [...group].sort(
      (a, b) => scopeDepth(a.path) - scopeDepth(b.path) || Number(isLink(a)) - Number(isLink(b)) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
    const keep = ranked[0]!;
    chosen.set(keep, contentOf(keep).content);
    for (const other of ranked.slice(1)) skipped.push({ where: other.path, reason: `the same file as ${keep.path}: imported once, as ${keep.path}` });
  }
  const out: SourceFile[] = [];
  for (const file of files) {
    const content = chosen.get(file);
    if (content === undefined) continue;
    const targets = pointerTargets({ path: file.path, content });
    if (targets && targets.every((target) => byPath.has(target))) {
      skipped.push({ where: file.path, reason: `only imports ${targets.join(', ')} (@-import), imported on its own` });
      continue;
    }
    out.push({ path: file.path, content });
  }
  return { files: out, skipped };
}

/**
 * Inlines `@path` import lines whose target is not knowledge imported on its own, as
 * Claude Code reads them, up to MAX_IMPORT_DEPTH hops; `read` returns a file's text (or
 * null when it is missing or outside the folder). Imports inside code blocks are text.
 */
export function expandImports(file: SourceFile, read: (path: string) => string | null, imported: (path: string) => boolean): { content: string; skipped: Skipped[] } {
  const skipped: Skipped[] = [];
  const expand = (path: string, content: string, depth: number, chain: readonly string[]): string => {
    let fence: string | null = null;
    return content
      .split('\n')
      .map((line) => {
        const open = /^\s*(`{3,}|~{3,})/.exec(line);
        if (open) fence = fence === null ? open[1]! : line.trim().startsWith(fence) ? null : fence;
        const match = fence === null ? /^\s*@([^\s@]+\.(?:md|mdc|txt))\s*$/i.exec(line) : null;
        if (!match) return line;
        const target = resolveRelative(path, match[1]!);
        if (target === null || imported(target)) return line;
        if (depth >= MAX_IMPORT_DEPTH || chain.includes(target)) {
          skipped.push({ where: path, reason: `@${match[1]} not followed: over ${MAX_IMPORT_DEPTH} imports deep, or a cycle` });
          return line;
        }
        const text = read(target);
        if (text === null) {
          skipped.push({ where: path, reason: `@${match[1]} names no readable file inside the folder` });
          return line;
        }
        return expand(target, text, depth + 1, [...chain, target]);
      })
      .join('\n');
  };
  return { content: expand(file.path, file.content, 0, [file.path]), skipped };
}
