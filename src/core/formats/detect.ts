/**
 * Which importable formats a workspace (or folder) holds, from its file list alone,
 * so the CLI and the extension can offer "import everything found" — and one entry
 * point that imports a detected group.
 */
import { isAdrFileName, parseAdrs } from './adr';
import { classifyRuleFile, parseAgentRules } from './agentRules';
import type { ImportFormat, ImportResult, SourceFile } from './common';
import { IMPORT_FORMATS, normalizePath, shortHash, slugify } from './common';
import { ctxKindOf, parseCtx } from './ctx';

export { KNOWLEDGE_FILE_GLOB } from './knowledgeGlob';

export interface DetectedFormat {
  format: ImportFormat;
  /** Workspace-relative paths, sorted. */
  files: string[];
}

/** Folders never searched: dependencies, VCS data, build output, the ledger's own files. */
const IGNORED_SEGMENTS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'out', 'build', 'target', 'vendor', '.context-ledger', '.venv', 'venv', '__pycache__']);

/** Folder names that hold ADRs (the last segment, or `architecture/decisions`). */
const ADR_DIRS = /(?:^|\/)(?:adrs?|decisions|decision-records|architecture-decisions|architecture-decision-records|architecture\/decisions)$/i;

/**
 * Groups `relativePaths` by the format that can import them. Paths of one format may
 * span several folders (two `.context/` folders, say): `importDetected` handles that.
 * Formats are returned in `IMPORT_FORMATS` order; formats with no files are left out.
 */
export function detectFormats(relativePaths: readonly string[]): DetectedFormat[] {
  const groups = new Map<ImportFormat, Set<string>>();
  const add = (format: ImportFormat, path: string): void => {
    let set = groups.get(format);
    if (!set) groups.set(format, (set = new Set()));
    set.add(path);
  };
  for (const raw of relativePaths) {
    const path = normalizePath(raw);
    const segments = path.split('/');
    if (segments.some((segment) => IGNORED_SEGMENTS.has(segment))) continue;
    const format = formatOf(path);
    if (format) add(format, path);
  }
  return IMPORT_FORMATS.filter((format) => groups.has(format)).map((format) => ({
    format,
    files: [...groups.get(format)!].sort(),
  }));
}

/** The format a single workspace-relative path belongs to, or null. */
export function formatOf(path: string): ImportFormat | null {
  const p = normalizePath(path);
  const ctx = ctxSplit(p);
  if (ctx) return ctxKindOf(ctx.name) ? 'ctx' : null;
  const rule = classifyRuleFile(p);
  if (rule) return rule.format;
  const slash = p.lastIndexOf('/');
  if (slash > 0 && ADR_DIRS.test(p.slice(0, slash)) && isAdrFileName(p)) return 'adr';
  return null;
}

/**
 * Files that sit beside rule files and look like them but that their tools do not load as
 * rules — prompt files, custom agents, workflows, commands, a skill's own references — and
 * why: the import names them, so nobody wonders where they went.
 */
const NOT_RULES: ReadonlyArray<[RegExp, string]> = [
  [/(?:^|\/)\.github\/prompts\/[^/]+\.prompt\.md$/i, 'a Copilot prompt file (run by hand as a /command), not a rule: not imported'],
  [/(?:^|\/)\.github\/agents\/[^/]+\.md$/i, 'a Copilot custom agent (a persona the user picks), not a rule: not imported'],
  [/(?:^|\/)\.github\/chatmodes\/[^/]+\.chatmode\.md$/i, 'a Copilot chat mode (a persona the user picks), not a rule: not imported'],
  [/(?:^|\/)\.windsurf\/workflows\//, 'a Windsurf workflow (run by hand as a /command), not a rule: not imported'],
  [/(?:^|\/)\.continue\/(?:prompts|checks|agents)\//, 'a Continue prompt, check or agent, not a rule: not imported'],
  [/(?:^|\/)\.roo\/commands\//, 'a Roo Code command (run by hand as a /command), not a rule: not imported'],
  [/(?:^|\/)\.(?:claude|gemini|cursor|opencode)\/(?:commands|agents)\//, 'a command or subagent definition, not a rule: not imported'],
  [/(?:^|\/)\.kiro\/(?:specs|hooks)\//, 'a Kiro spec or hook, not steering: not imported'],
  [/(?:^|\/)\.augment\/commands\//, 'an Augment command (run by hand as a /command), not a rule: not imported'],
  [/(?:^|\/)\.[^/]+\/skills\/[^/]+\/.+/, 'part of a skill (its scripts and references, read when the skill asks for them): the skill is imported from its SKILL.md'],
];

/** Why a file that looks like a rule is not one, or null (for anything else, or a real rule file). */
export function notRuleReason(path: string): string | null {
  const p = normalizePath(path);
  if (formatOf(p) !== null) return null;
  for (const [pattern, reason] of NOT_RULES) if (pattern.test(p) && /\.(?:md|mdc|markdown|txt)$/i.test(p)) return reason;
  return null;
}

/** `a/.context/DECISIONS.md` → { dir: 'a/.context', name: 'DECISIONS.md' }. */
function ctxSplit(path: string): { dir: string; name: string } | null {
  const index = `/${path}`.lastIndexOf('/.context/');
  if (index < 0) return null;
  const dir = path.slice(0, index + '.context'.length);
  return { dir, name: path.slice(dir.length + 1) };
}

/**
 * Imports files of one detected format (as read by the caller). ctx files are grouped
 * by their `.context/` folder; all results are merged in folder order.
 */
export function importDetected(format: ImportFormat, files: readonly SourceFile[]): ImportResult {
  switch (format) {
    case 'ctx': {
      const byDir = new Map<string, { name: string; content: string }[]>();
      const outside: string[] = [];
      for (const file of files) {
        const split = ctxSplit(normalizePath(file.path));
        if (!split) {
          outside.push(file.path);
          continue;
        }
        const list = byDir.get(split.dir) ?? [];
        list.push({ name: split.name, content: file.content });
        byDir.set(split.dir, list);
      }
      // The workspace's own `.context/` keeps the plain `ctx-` ids; a nested one
      // (`packages/api/.context`) gets `ctx-packages-api-` so the two never collide.
      const results = [...byDir.keys()].sort().map((dir) => {
        const owner = dir.slice(0, -'.context'.length).replace(/\/$/, '');
        const idPrefix = owner === '' ? 'ctx' : `ctx-${slugify(owner, 40) || shortHash(owner)}`;
        return parseCtx(byDir.get(dir)!, { contextDir: dir, idPrefix });
      });
      const merged = mergeResults(results);
      merged.skipped.push(...outside.map((where) => ({ where, reason: 'not inside a .context/ folder' })));
      return merged;
    }
    case 'adr':
      return parseAdrs(files);
    default:
      return parseAgentRules(files);
  }
}

/** Concatenates import results (ids are assumed not to collide across them). */
export function mergeResults(results: readonly ImportResult[]): ImportResult {
  const merged: ImportResult = { artifacts: [], tasks: [], supersessions: [], skipped: [], became: [] };
  for (const result of results) {
    merged.artifacts.push(...result.artifacts);
    merged.became!.push(...(result.became ?? []));
    merged.tasks!.push(...(result.tasks ?? []));
    merged.supersessions!.push(...(result.supersessions ?? []));
    merged.skipped.push(...result.skipped);
  }
  return merged;
}
