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
  | 'cline'
  | 'kiro-steering'
  | 'windsurf-rule'
  | 'windsurf-legacy'
  | 'gemini-md'
  | 'junie'
  | 'continue-rule'
  | 'roo-rule'
  | 'roo-mode-rule'
  | 'roo-legacy'
  | 'amazonq-rule'
  | 'augment-rule'
  | 'augment-legacy'
  | 'zed-rules'
  | 'skill';

export interface RuleFileMatch {
  kind: RuleFileKind;
  format: ImportFormat;
  /** Folder the file applies to ('' = the whole workspace). */
  appliesTo: string;
  /** Roo Code's mode slug for a `.roo/rules-<mode>/` file or a `.roorules-<mode>` file. */
  mode?: string;
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
  const skill = classifySkill(p, name);
  if (skill) return skill;
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
  const other = classifyOtherTools(p, name, dir, parentOf);
  if (other) return other;
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
 * Claude Code's rules and Cline's rules without paths, AGENTS.md, and the whole-file rules of
 * Windsurf (`.windsurfrules`), Gemini CLI, Junie, Roo Code (every mode), Amazon Q, Augment's
 * legacy guidelines and Zed. Not Cursor's `.mdc` rules
 * without globs (attached when the agent asks for them by description) nor Copilot's
 * `.instructions.md` without `applyTo` (attached by hand).
 */
const LOADED_FOR_EVERY_FILE = new Set<RuleFileKind>([
  'copilot-global',
  'cursor-legacy',
  'claude-md',
  'claude-rules',
  'agents-md',
  'cline',
  // Files their tools load whole, with no field that scopes them (docs/formats.md).
  'windsurf-legacy',
  'gemini-md',
  'junie',
  'roo-rule',
  'roo-legacy',
  'amazonq-rule',
  'augment-legacy',
  'zed-rules',
]);

/**
 * Whether an artifact imported from `source` (`import:<format>:<path>`) came from a rule file
 * its tool loads for every file of the workspace: one of LOADED_FOR_EVERY_FILE at the root.
 * Paths scope it further (a Claude rule's `paths`): the caller checks the artifact has none.
 */
export function loadedForEveryFile(source: string): boolean {
  const parsed = parseImportSource(source);
  if (!parsed || parsed.path === '') return false;
  const match = classifyRuleFile(parsed.path);
  return match !== null && match.format === parsed.format && match.appliesTo === '' && match.mode === undefined && LOADED_FOR_EVERY_FILE.has(match.kind);
}

/** `.cline/rules`, at the root or in a subfolder (which it applies to). */
export function isClineRulesFolder(dir: string): boolean {
  return dir === '.cline/rules' || dir.endsWith('/.cline/rules');
}

/** `a/.claude/skills/review/SKILL.md` → a skill of the workspace (of `a`). */
function classifySkill(p: string, name: string): RuleFileMatch | null {
  if (name !== 'SKILL.md') return null;
  const match = /(?:^|\/)(\.[^/]+)\/skills\/(?:[^/]+\/)+SKILL\.md$/.exec(p);
  if (!match) return null;
  return { kind: 'skill', format: 'skills', appliesTo: p.slice(0, Math.max(0, match.index)) };
}

/** Files Roo Code skips in its rule folders (caches and OS litter), as not text it reads. */
const NOT_TEXT = /(?:^\.|\.(?:png|jpe?g|gif|webp|ico|pdf|zip|gz|tgz|bak|log|tmp|swp|lock|exe|dll|so|dylib|bin)$)/i;

/**
 * Kiro, Windsurf, Gemini CLI, Junie, Continue, Roo Code, Amazon Q, Augment and Zed. Each
 * tool's folder applies to the folder it sits in, as for Cursor's nested `.cursor/rules`.
 */
function classifyOtherTools(p: string, name: string, dir: string, parentOf: (marker: string) => string | null): RuleFileMatch | null {
  const md = /\.md$/i.test(name);
  // Roo Code reads every text file of `.roo/rules/` and `.roo/rules-<mode>/`, at any depth.
  const roo = /(?:^|\/)\.roo\/rules(?:-([^/]+))?\/(?:[^/]+\/)*[^/]+$/.exec(p);
  if (roo && !NOT_TEXT.test(name)) {
    const appliesTo = p.slice(0, Math.max(0, roo.index));
    return roo[1] ? { kind: 'roo-mode-rule', format: 'roo', appliesTo, mode: roo[1] } : { kind: 'roo-rule', format: 'roo', appliesTo };
  }
  const rooLegacy = /^\.roorules(?:-(.+))?$/.exec(name);
  if (rooLegacy) return rooLegacy[1] ? { kind: 'roo-legacy', format: 'roo', appliesTo: dir, mode: rooLegacy[1] } : { kind: 'roo-legacy', format: 'roo', appliesTo: dir };
  if (md && parentOf('.kiro/steering') !== null) return { kind: 'kiro-steering', format: 'kiro', appliesTo: parentOf('.kiro/steering') ?? '' };
  // `.windsurf/workflows` are not rules (a parentOf('.windsurf/rules') is needed).
  if (md && parentOf('.windsurf/rules') !== null) return { kind: 'windsurf-rule', format: 'windsurf', appliesTo: parentOf('.windsurf/rules') ?? '' };
  if (name === '.windsurfrules') return { kind: 'windsurf-legacy', format: 'windsurf', appliesTo: dir };
  if (name === 'GEMINI.md') return { kind: 'gemini-md', format: 'gemini', appliesTo: dir };
  if (name === 'guidelines.md' && (dir === '.junie' || dir.endsWith('/.junie'))) return { kind: 'junie', format: 'junie', appliesTo: parentOf('.junie') ?? '' };
  // `.continue/prompts`, `checks` and `agents` are not rules.
  if (md && parentOf('.continue/rules') !== null) return { kind: 'continue-rule', format: 'continue', appliesTo: parentOf('.continue/rules') ?? '' };
  if (md && parentOf('.amazonq/rules') !== null) return { kind: 'amazonq-rule', format: 'amazonq', appliesTo: parentOf('.amazonq/rules') ?? '' };
  if (md && parentOf('.augment/rules') !== null) return { kind: 'augment-rule', format: 'augment', appliesTo: parentOf('.augment/rules') ?? '' };
  if (name === '.augment-guidelines') return { kind: 'augment-legacy', format: 'augment', appliesTo: dir };
  if (name === '.rules') return { kind: 'zed-rules', format: 'zed', appliesTo: dir };
  return null;
}
