import { kindOfPath, languageOf, outlineCode } from '../compress';
import type { LiveCandidate } from './types';

/** Why a file is in play, strongest first. */
export type CodeRole = 'named' | 'active' | 'open' | 'import';

export interface CodeFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  text: string;
  role: CodeRole;
  /** For `import`: the file in play that imports it. */
  importedBy?: string;
  /** A ready outline (the editor's symbol provider). */
  outline?: string;
}

const PRIOR: Record<CodeRole, number> = { named: 1, active: 0.9, open: 0.65, import: 0.5 };
const ORIGIN: Record<CodeRole, string> = {
  named: 'named in the task',
  active: 'the active editor',
  open: 'an open editor',
  import: 'imported by',
};
/** Beyond this a file is offered as its outline only: a generated bundle is not context. */
export const MAX_CODE_CHARS = 300_000;

export function codeCandidates(files: readonly CodeFile[]): LiveCandidate[] {
  const seen = new Map<string, CodeFile>();
  // One candidate per file, with the strongest role it has.
  for (const file of files) {
    const known = seen.get(file.path);
    if (!known || PRIOR[file.role] > PRIOR[known.role]) seen.set(file.path, file);
  }
  const out: LiveCandidate[] = [];
  for (const file of seen.values()) {
    const language = languageOf(file.path);
    const tooBig = file.text.length > MAX_CODE_CHARS;
    const text = tooBig ? (file.outline ?? outlineCode(file.text, language)) : file.text;
    const origin = file.role === 'import' ? `${ORIGIN.import} ${file.importedBy ?? 'a file in play'}` : ORIGIN[file.role];
    out.push({
      key: `code:${file.path}`,
      source: 'code',
      title: file.path,
      text,
      kind: kindOfPath(file.path),
      path: file.path,
      language,
      prior: PRIOR[file.role],
      origin: tooBig ? `${origin} (outline only: ${file.text.length} characters)` : origin,
      ...(file.outline !== undefined ? { outline: file.outline } : {}),
    });
  }
  return out;
}

const JS_IMPORT = /(?:^|[;\s])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"\n]+)['"]|(?:^|[;\s])import\s*['"]([^'"\n]+)['"]|\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)|\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const PY_IMPORT = /^\s*from\s+(\.+[\w.]*)\s+import\s|^\s*import\s+([\w.]+)/gm;

/** Module specifiers a file imports (TS/JS and Python); only what the resolver can follow matters. */
export function importSpecifiers(text: string, language: string): string[] {
  const found: string[] = [];
  const add = (spec: string | undefined): void => {
    if (spec && !found.includes(spec)) found.push(spec);
  };
  if (language === 'py') {
    for (const m of text.matchAll(PY_IMPORT)) add(m[1] ?? m[2]);
  } else {
    for (const m of text.matchAll(JS_IMPORT)) add(m[1] ?? m[2] ?? m[3] ?? m[4]);
  }
  return found;
}

const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

function normalize(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/**
 * The workspace file a relative import names, or undefined (packages, aliases and paths
 * leaving the workspace are not followed). `exists` answers for workspace-relative paths.
 */
export function resolveImport(fromPath: string, spec: string, exists: (path: string) => boolean): string | undefined {
  const dir = fromPath.includes('/') ? fromPath.slice(0, fromPath.lastIndexOf('/')) : '';
  if (languageOf(fromPath) === 'py') {
    const dots = /^\.+/.exec(spec)?.[0].length ?? 0;
    if (dots === 0) return undefined;
    let base = dir;
    for (let i = 1; i < dots; i++) base = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
    const rest = spec.slice(dots).replace(/\./g, '/');
    const stem = normalize(`${base}/${rest}`);
    if (stem === undefined) return undefined;
    for (const candidate of [`${stem}.py`, `${stem}/__init__.py`]) if (exists(candidate)) return candidate;
    return undefined;
  }
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const target = normalize(`${dir}/${spec}`);
  if (target === undefined || target === '') return undefined;
  const tries = [target];
  // TypeScript's ESM style names the output: `./a.js` is `./a.ts` in the source tree.
  const js = /\.(m|c)?jsx?$/.exec(target);
  if (js) {
    const stem = target.slice(0, -js[0].length);
    tries.push(...(js[1] === 'm' ? [`${stem}.mts`] : js[1] === 'c' ? [`${stem}.cts`] : [`${stem}.ts`, `${stem}.tsx`]));
  }
  tries.push(...JS_EXTENSIONS.map((ext) => target + ext), ...JS_EXTENSIONS.map((ext) => `${target}/index${ext}`));
  return tries.find((p) => exists(p));
}

/** A document symbol as an editor reports it, reduced to what an outline needs. */
export interface PlainSymbol {
  name: string;
  /** The editor's kind name (`Class`, `Method`, `Function`, ...). */
  kind: string;
  detail?: string;
  /** 0-based line of the declaration's name. */
  line: number;
  children?: PlainSymbol[];
}

/** Kinds whose children are worth listing; the rest are leaves (a function's locals are not an outline). */
const CONTAINER_KINDS = new Set(['File', 'Module', 'Namespace', 'Package', 'Class', 'Interface', 'Enum', 'Struct', 'Object']);
const SKIPPED_KINDS = new Set(['Variable', 'TypeParameter', 'Key', 'String', 'Number', 'Boolean', 'Array', 'Null', 'Event', 'Operator']);

/**
 * An outline from an editor's document symbols: each declaration's own source line (so
 * signatures read as written), nested by container. Any language with a language server.
 */
export function outlineFromSymbols(symbols: readonly PlainSymbol[], text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  const visit = (list: readonly PlainSymbol[], depth: number, topLevel: boolean): void => {
    for (const symbol of [...list].sort((a, b) => a.line - b.line)) {
      // Top-level variables are constants and exports; nested ones are locals.
      if (SKIPPED_KINDS.has(symbol.kind) && !(topLevel && (symbol.kind === 'Variable' || symbol.kind === 'Constant'))) continue;
      const source = (lines[symbol.line] ?? symbol.name).trim().replace(/\s*\{\s*$/, '');
      const line = source.length > 200 ? `${source.slice(0, 199)}…` : source;
      out.push(`${'  '.repeat(depth)}${line || symbol.name}`);
      if (CONTAINER_KINDS.has(symbol.kind) && symbol.children) visit(symbol.children, depth + 1, false);
    }
  };
  visit(symbols, 0, true);
  return out.join('\n');
}
