/**
 * Which kind of agent rule file a path is, and whether its tool loads it for every file: read
 * from the path alone, so the build can ask without loading the Markdown and YAML parsers the
 * importers need (agentRules.ts).
 */
import type { ImportFormat } from './common';
import { baseName, dirName, normalizePath, parseImportSource } from './filePaths';

export type RuleFileKind =
  | 'copilot-global'
  | 'copilot-instructions'
  | 'cursor-mdc'
  | 'cursor-legacy'
  | 'claude-md'
  | 'claude-rules'
  | 'agents-md'
  | 'cline';

export interface RuleFileMatch {
  kind: RuleFileKind;
  format: ImportFormat;
  /** Folder the file applies to ('' = the whole workspace). */
  appliesTo: string;
}

/** Which kind of rule file a workspace-relative path is, or null. */
export function classifyRuleFile(path: string): RuleFileMatch | null {
  const p = normalizePath(path);
  const name = baseName(p);
  const dir = dirName(p);
  const parentOf = (marker: string): string | null => {
    const index = `/${p}`.lastIndexOf(`/${marker}/`);
    return index < 0 ? null : p.slice(0, Math.max(0, index - 1));
  };
  if (p === '.github/copilot-instructions.md' || p.endsWith('/.github/copilot-instructions.md')) {
    return { kind: 'copilot-global', format: 'copilot', appliesTo: parentOf('.github') ?? '' };
  }
  if (/\.instructions\.md$/i.test(name) && parentOf('.github/instructions') !== null) {
    return { kind: 'copilot-instructions', format: 'copilot', appliesTo: parentOf('.github/instructions') ?? '' };
  }
  // Cursor reads `.mdc` and `.md` rules in any `.cursor/rules` folder, nested ones for their folder.
  if (/\.mdc?$/i.test(name) && parentOf('.cursor/rules') !== null) {
    return { kind: 'cursor-mdc', format: 'cursor', appliesTo: parentOf('.cursor/rules') ?? '' };
  }
  if (name === '.cursorrules') return { kind: 'cursor-legacy', format: 'cursor', appliesTo: dir };
  if (/\.md$/i.test(name) && parentOf('.claude/rules') !== null) {
    return { kind: 'claude-rules', format: 'claude', appliesTo: parentOf('.claude/rules') ?? '' };
  }
  // Cline's newer layout: the files directly in `.cline/rules/` (as its loader reads them,
  // `.md`, `.markdown`, `.txt`; no subfolder: its workflows, hooks and skills live in
  // `.cline/workflows`, `.cline/hooks`, `.cline/skills`). Checked before CLAUDE.md and
  // AGENTS.md: an `AGENTS.md` there is one of Cline's rules, not a folder's instructions.
  if (isClineRulesFolder(dir) && /\.(?:md|markdown|txt)$/i.test(name)) {
    return { kind: 'cline', format: 'cline', appliesTo: parentOf('.cline/rules') ?? '' };
  }
  if (name === 'CLAUDE.md' || name === 'CLAUDE.local.md') {
    const appliesTo = dir === '.claude' || dir.endsWith('/.claude') ? dir.slice(0, -'.claude'.length).replace(/\/$/, '') : dir;
    return { kind: 'claude-md', format: 'claude', appliesTo };
  }
  if (name === 'AGENTS.md') return { kind: 'agents-md', format: 'agents-md', appliesTo: dir };
  if (name === '.clinerules') return { kind: 'cline', format: 'cline', appliesTo: dir };
  // Cline reads every file of `.clinerules/` as a rule except its workflows, hooks and skills.
  if (parentOf('.clinerules') !== null && /\.(?:md|mdc|txt)$/i.test(name) && !/(?:^|\/)\.clinerules\/(?:workflows|hooks|skills)\//.test(p)) {
    return { kind: 'cline', format: 'cline', appliesTo: parentOf('.clinerules') ?? '' };
  }
  return null;
}

/**
 * The kinds of rule file their tool loads for every file of the folder they sit in, whatever
 * the task: Copilot's copilot-instructions.md, Cursor's legacy .cursorrules, CLAUDE.md,
 * Claude Code's rules and Cline's rules without paths, AGENTS.md. Not Cursor's `.mdc` rules
 * without globs (attached when the agent asks for them by description) nor Copilot's
 * `.instructions.md` without `applyTo` (attached by hand).
 */
const LOADED_FOR_EVERY_FILE = new Set<RuleFileKind>(['copilot-global', 'cursor-legacy', 'claude-md', 'claude-rules', 'agents-md', 'cline']);

/**
 * Whether an artifact imported from `source` (`import:<format>:<path>`) came from a rule file
 * its tool loads for every file of the workspace: one of LOADED_FOR_EVERY_FILE at the root.
 * Paths scope it further (a Claude rule's `paths`): the caller checks the artifact has none.
 */
export function loadedForEveryFile(source: string): boolean {
  const parsed = parseImportSource(source);
  if (!parsed || parsed.path === '') return false;
  const match = classifyRuleFile(parsed.path);
  return match !== null && match.format === parsed.format && match.appliesTo === '' && LOADED_FOR_EVERY_FILE.has(match.kind);
}

/** `.cline/rules`, at the root or in a subfolder (which it applies to). */
export function isClineRulesFolder(dir: string): boolean {
  return dir === '.cline/rules' || dir.endsWith('/.cline/rules');
}
