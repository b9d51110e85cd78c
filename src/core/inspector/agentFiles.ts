/**
 * "What the agent will actually see": the rule and instruction files an agent loads on
 * its own in this workspace, which of them apply to the files in play, what they cost with
 * the same tokenizer as the ledger block, and which ledger artifacts repeat them (paid for
 * twice). What each file means is read from the one table of tool semantics
 * (core/formats/ruleSemantics.ts); which tool reads which files is `AGENT_TOOL_FILES`, and
 * `agentToolFiles` answers for one tool (the hooks leave out what their agent loads itself).
 */
import { Minimatch } from 'minimatch';
import { classifyRuleFile, isLedgerGenerated, ruleFrontMatter, type RuleFileKind, type RuleFileMatch } from '../formats/agentRules';
import type { AgentFileOverlap, AgentFileRow, AgentFilesView } from './model';
import { globsUnder, importSource, isEverythingGlob, normalizePath } from '../formats/common';
import { readRule, rooShadowedBy, zedRuleFile } from '../formats/ruleSemantics';
import { contentOverlap, shingles } from './overlap';

export interface LedgerItemText {
  id: string;
  title: string;
  tokens: number;
  body: string;
  source: string;
}

export interface AgentFilesInput {
  files: ReadonlyArray<{ path: string; content: string }>;
  activePaths: readonly string[];
  ledgerTokens: number;
  included: readonly LedgerItemText[];
  count: (text: string) => number;
}

/** Glob patterns (workspace-relative) of the files `agentFilesView` understands, for a file search. */
export const AGENT_FILE_GLOBS = [
  '.github/copilot-instructions.md',
  '.github/instructions/**/*.instructions.md',
  '**/AGENTS.md',
  '**/CLAUDE.md',
  '**/CLAUDE.local.md',
  '.cursor/rules/**/*.mdc',
  '.cursorrules',
  '.claude/rules/**/*.md',
  '.clinerules',
  '.clinerules/**/*.md',
  // One entry per extension: VS Code's glob joins these into one `{...}` group, and groups do not nest.
  '.cline/rules/*.md',
  '.cline/rules/*.markdown',
  '.cline/rules/*.txt',
  '**/.kiro/steering/**/*.md',
  '**/.windsurf/rules/**/*.md',
  '**/.windsurfrules',
  '**/GEMINI.md',
  '.junie/guidelines.md',
  '**/.continue/rules/**/*.md',
  '.roo/rules/**',
  '.roo/rules-*/**',
  '.roorules',
  '.roorules-*',
  '.amazonq/rules/**/*.md',
  '.augment/rules/**/*.md',
  '.augment-guidelines',
  '.rules',
  '**/.*/skills/**/SKILL.md',
] as const;

/** The agent tools this model knows what they load on their own. */
export const AGENT_TOOLS = ['claude', 'codex', 'copilot', 'cursor', 'gemini', 'cline', 'kiro', 'windsurf', 'junie', 'continue', 'roo', 'amazonq', 'augment', 'zed'] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

/**
 * The kinds of file each tool reads on its own, as its documentation says (docs/formats.md);
 * Zed reads one file of its first-match list instead (`zedRuleFile`). Skills only from the
 * tool's own skill folders (`SKILL_FOLDERS`).
 */
export const AGENT_TOOL_FILES: Readonly<Record<AgentTool, readonly RuleFileKind[]>> = {
  claude: ['claude-md', 'claude-rules', 'skill'],
  codex: ['agents-md', 'skill'],
  copilot: ['copilot-global', 'copilot-instructions', 'agents-md', 'skill'],
  cursor: ['cursor-mdc', 'cursor-legacy', 'agents-md'],
  gemini: ['gemini-md', 'skill'],
  cline: ['cline'],
  kiro: ['kiro-steering'],
  windsurf: ['windsurf-rule', 'windsurf-legacy', 'agents-md'],
  junie: ['junie'],
  continue: ['continue-rule'],
  roo: ['roo-rule', 'roo-mode-rule', 'roo-legacy'],
  amazonq: ['amazonq-rule'],
  augment: ['augment-rule', 'augment-legacy', 'claude-md', 'agents-md'],
  zed: [],
};

/** The skill folders each tool reads (Agent Skills `SKILL.md`), relative to the workspace. */
const SKILL_FOLDERS: Readonly<Partial<Record<AgentTool, readonly string[]>>> = {
  claude: ['.claude/skills/'],
  codex: ['.agents/skills/', '.codex/skills/'],
  copilot: ['.github/skills/', '.claude/skills/', '.agents/skills/'],
  gemini: ['.gemini/skills/', '.agents/skills/'],
};

function matcher(globs: readonly string[]): (path: string) => boolean {
  const compiled = globs.map((g) => new Minimatch(g, { dot: true }));
  return (path) => compiled.some((m) => m.match(path));
}

function under(dir: string, paths: readonly string[]): string | undefined {
  return dir === '' ? paths[0] : paths.find((p) => p === dir || p.startsWith(`${dir}/`));
}

interface Applicability {
  applies: boolean;
  why: string;
}

/**
 * Whether the file's own tool loads it for the files in play, and why. `workspacePaths` are
 * the workspace's files (for Roo Code's `.roorules` fallback and Zed's first-match list).
 */
function applicability(path: string, match: RuleFileMatch, data: Record<string, unknown>, active: readonly string[], workspacePaths: readonly string[]): Applicability {
  const reading = readRule(match, data);
  const tool = reading.tool;
  const shadow = rooShadowedBy(match, path, workspacePaths);
  if (shadow) return { applies: false, why: `Roo Code reads ${shadow} instead (.roorules only where .roo/rules is empty)` };
  const regex = reading.regex ? ` if the file's text matches ${reading.regex.map((r) => `/${r}/`).join(' or ')}` : '';
  const folderRule = (): Applicability => {
    if (match.appliesTo === '') return { applies: true, why: `${tool} loads it for every request${regex}` };
    const hit = under(match.appliesTo, active);
    return hit ? { applies: true, why: `${tool} loads it for files under ${match.appliesTo}/ (${hit})${regex}` } : { applies: false, why: `applies under ${match.appliesTo}/ only; no file in play there` };
  };
  const activation = reading.activation;
  switch (activation.kind) {
    case 'always':
      if (match.kind === 'cursor-mdc') return { applies: true, why: 'alwaysApply: Cursor loads it for every request' };
      return folderRule();
    case 'globs': {
      if (activation.globs.some(isEverythingGlob)) return { applies: true, why: `${tool} applies it to every file` };
      const full = globsUnder(match.appliesTo, activation.globs);
      const hit = active.find(matcher(full));
      return hit ? { applies: true, why: `${full.join(', ')} matches ${hit}${regex}` } : { applies: false, why: `${full.join(', ')} matches no file in play` };
    }
    case 'requested':
      return { applies: false, why: `loaded on request only: ${tool} attaches it when the agent asks for it by its description` };
    case 'manual':
      return { applies: false, why: match.kind === 'copilot-instructions' ? 'no applyTo: Copilot uses it only when attached by hand' : `${tool} uses it only when attached by hand` };
    case 'mode':
      return { applies: false, why: `Roo Code loads it in its "${activation.mode}" mode only` };
    case 'never':
      return { applies: false, why: activation.why };
    case 'unknown':
      return { applies: false, why: `${activation.field} "${activation.value}" is not a value ${tool} documents: not counted as loaded` };
  }
}

/** One of the workspace's agent files as one tool reads it. */
export interface ToolFile {
  path: string;
  kind: RuleFileKind;
  /** `import:<format>:<path>`: the source of the ledger artifacts imported from this file. */
  source: string;
  applies: boolean;
  why: string;
}

/**
 * The files `tool` loads on its own for the files in play (and those it could load but does
 * not, with why): the model the hooks use to leave out of their context what the agent
 * already reads. Zed reads only the first file of its list at the root.
 */
export function agentToolFiles(tool: AgentTool, files: ReadonlyArray<{ path: string; content: string }>, activePaths: readonly string[]): ToolFile[] {
  const active = activePaths.map(normalizePath);
  const paths = files.map((file) => normalizePath(file.path));
  const zed = tool === 'zed' ? zedRuleFile(paths) : null;
  const out: ToolFile[] = [];
  for (const file of files) {
    const path = normalizePath(file.path);
    const match = classifyRuleFile(path);
    if (!match || isLedgerGenerated(file.content)) continue;
    if (tool === 'zed') {
      if (path !== zed) continue;
      out.push({ path, kind: match.kind, source: importSource(match.format, path), applies: true, why: 'the first file of Zed\'s list at the root: Zed loads it for every request' });
      continue;
    }
    if (!AGENT_TOOL_FILES[tool].includes(match.kind)) continue;
    if (match.kind === 'skill' && !(SKILL_FOLDERS[tool] ?? []).some((folder) => path.slice(match.appliesTo === '' ? 0 : match.appliesTo.length + 1).startsWith(folder))) continue;
    const front = ruleFrontMatter(match.kind, file.content);
    out.push({ path, kind: match.kind, source: importSource(match.format, path), ...applicability(path, match, front.data, active, paths) });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function agentFilesView(input: AgentFilesInput): AgentFilesView {
  const active = input.activePaths.map(normalizePath);
  const prepared = input.included.map((item) => ({ item, shingles: shingles(item.body) }));
  const workspacePaths = input.files.map((file) => normalizePath(file.path));
  const files: AgentFileRow[] = [];
  for (const file of [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const path = normalizePath(file.path);
    const match = classifyRuleFile(path);
    if (!match) continue;
    const tokens = input.count(file.content);
    const estimate = Math.ceil(file.content.length / 4);
    if (isLedgerGenerated(file.content)) {
      files.push({ path, kind: 'ledger', applies: true, why: 'written by Context Ledger: the ledger block itself (counted once)', tokens, estimate, overlaps: [] });
      continue;
    }
    const front = ruleFrontMatter(match.kind, file.content);
    const { applies, why } = applicability(path, match, front.data, active, workspacePaths);
    const content = shingles(front.body);
    const overlaps: AgentFileOverlap[] = [];
    for (const item of prepared) {
      const imported = item.item.source === `import:${match.format}:${path}`;
      const found = contentOverlap(item.shingles, content);
      if (!imported && !found) continue;
      const share = found?.share ?? 0;
      const how = imported ? 'imported from this file' : share === 1 ? 'same text' : 'overlapping text';
      overlaps.push({ id: item.item.id, title: item.item.title, itemTokens: item.item.tokens, share, tokens: Math.round(share * item.item.tokens), how });
    }
    overlaps.sort((a, b) => b.tokens - a.tokens || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    files.push({ path, kind: match.kind, applies, why, tokens, estimate, overlaps });
  }
  const applying = files.filter((f) => f.applies && f.kind !== 'ledger');
  const alwaysOnTokens = applying.reduce((n, f) => n + f.tokens, 0);
  // An artifact repeated by two files is still paid for once: count its largest overlap.
  const overlapIds = new Map<string, number>();
  for (const f of applying) for (const o of f.overlaps) overlapIds.set(o.id, Math.max(o.tokens, overlapIds.get(o.id) ?? 0));
  const overlapTokens = [...overlapIds.values()].reduce((n, t) => n + t, 0);
  return { files, alwaysOnTokens, ledgerTokens: input.ledgerTokens, totalTokens: alwaysOnTokens + input.ledgerTokens, overlapTokens };
}
