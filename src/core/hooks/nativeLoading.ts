/**
 * What an agent loads on its own, so that its hooks add only the rest. Told from the source
 * of an imported artifact (`import:<format>:<path>`) with the same reading of rule files the
 * rest of the ledger uses (`classifyRuleFile`: which kind a file is, which folder it applies
 * to). The agents' loading, as documented and checked against their binaries (docs/hooks.md):
 * - Claude Code: every `CLAUDE.md` from its folder up, those of the folders of the files it
 *   works on, and `.claude/rules/` (path-scoped ones when it reads a matching file);
 * - Codex: the `AGENTS.md` files from the project root down to its folder, joined and cut at
 *   32 KiB (`project_doc_max_bytes`): what lies past the cut is not loaded, so the ledger adds it;
 * - Gemini CLI: `GEMINI.md`, which the ledger does not import: nothing to leave out;
 * - Copilot CLI: `.github/copilot-instructions.md`, `AGENTS.md` and `CLAUDE.md` (checked with
 *   1.0.102: all three in its first request; its path-scoped `.github/instructions/` files not).
 */
import type { Artifact } from '../model';
import { parseImportSource } from '../formats/filePaths';
import { classifyRuleFile, type RuleFileKind } from '../formats/ruleFiles';
import type { HookAgent } from './agents';

/** Codex reads at most this many bytes of its project docs (`project_doc_max_bytes`). */
export const CODEX_PROJECT_DOC_BYTES = 32 * 1024;

const LOADED_KINDS: Readonly<Record<HookAgent, ReadonlySet<RuleFileKind>>> = {
  'claude-code': new Set<RuleFileKind>(['claude-md', 'claude-rules']),
  codex: new Set<RuleFileKind>(['agents-md']),
  'gemini-cli': new Set<RuleFileKind>(),
  'copilot-cli': new Set<RuleFileKind>(['copilot-global', 'agents-md', 'claude-md']),
};

const TOOL_NAMES: Readonly<Record<HookAgent, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  'copilot-cli': 'Copilot CLI',
};

export interface NativeLoadingInput {
  agent: HookAgent;
  /** The agent's folder, workspace-relative ('' = the workspace root). */
  cwd: string;
  /** Files in play, workspace-relative: Claude Code also loads the CLAUDE.md of their folders. */
  paths: readonly string[];
  /**
   * For a capped file (Codex's AGENTS.md): the part of its text the agent loaded, or
   * undefined when it loaded none (the cap was reached before it). Not given: loaded whole.
   */
  loadedPart?: (path: string) => string | undefined;
}

/** Whether `dir` is `path` or one of its folders ('' is every path's). */
function isFolderOf(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** Whitespace-insensitive containment: an import keeps a section's Markdown, but not always its exact spacing. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A `leaveOut` for `assembleContext`: for an artifact the agent loads itself, why ("Claude
 * Code loads CLAUDE.md itself"); undefined for the rest.
 */
export function nativelyLoaded(input: NativeLoadingInput): (artifact: Artifact) => string | undefined {
  const kinds = LOADED_KINDS[input.agent];
  const tool = TOOL_NAMES[input.agent];
  const squeezed = new Map<string, string | undefined>();
  return (artifact) => {
    // Called for every artifact of every build: the ledger's own (most of them) are told apart without a regex.
    if (!artifact.source.startsWith('import:')) return undefined;
    const source = parseImportSource(artifact.source);
    if (!source || source.path === '') return undefined;
    const match = classifyRuleFile(source.path);
    if (!match || match.format !== source.format || !kinds.has(match.kind)) return undefined;
    const { appliesTo } = match;
    switch (match.kind) {
      case 'claude-md':
        // From the agent's folder up, and the folders of the files it works on.
        if (!isFolderOf(appliesTo, input.cwd) && !input.paths.some((p) => isFolderOf(appliesTo, p))) return undefined;
        break;
      case 'agents-md': {
        if (!isFolderOf(appliesTo, input.cwd)) return undefined;
        if (input.loadedPart) {
          if (!squeezed.has(source.path)) {
            const part = input.loadedPart(source.path);
            squeezed.set(source.path, part === undefined ? undefined : squeeze(part));
          }
          const loaded = squeezed.get(source.path);
          const body = squeeze(artifact.body);
          // Past the cap, or cut by it: the agent never read it whole.
          if (loaded === undefined || (body !== '' && !loaded.includes(body))) return undefined;
        }
        break;
      }
      default:
        if (appliesTo !== '' && !isFolderOf(appliesTo, input.cwd) && !input.paths.some((p) => isFolderOf(appliesTo, p))) return undefined;
    }
    return `${tool} loads ${source.path} itself`;
  };
}

/**
 * The part of each AGENTS.md Codex loads: the files from the root down to its folder, in
 * that order, share one cap of `cap` bytes. `files` are (path, text) in that order; the
 * answer maps each to the text it kept, cut at a UTF-8 character boundary.
 */
export function cappedParts(files: ReadonlyArray<{ path: string; text: string }>, cap = CODEX_PROJECT_DOC_BYTES): Map<string, string> {
  const parts = new Map<string, string>();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let left = cap;
  for (const file of files) {
    if (left <= 0) break;
    const bytes = encoder.encode(file.text);
    const kept = bytes.length <= left ? file.text : decoder.decode(bytes.subarray(0, left)).replace(/\uFFFD$/, '');
    parts.set(file.path, kept);
    left -= bytes.length;
  }
  return parts;
}
