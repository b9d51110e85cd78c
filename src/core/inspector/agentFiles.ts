/**
 * "What the agent will actually see": the rule and instruction files an agent loads on
 * its own in this workspace (Copilot, Cursor, Claude, AGENTS.md, Cline), which of them
 * apply to the files in play, what they cost with the same tokenizer as the ledger
 * block, and which ledger artifacts repeat them (paid for twice).
 */
import { Minimatch } from 'minimatch';
import { classifyRuleFile, isClineRuleOff, isLedgerGenerated, ruleFrontMatter, ruleGlobs, type RuleFileKind } from '../formats/agentRules';
import type { AgentFileOverlap, AgentFileRow, AgentFilesView } from './model';
import { globsUnder, isEverythingGlob, normalizePath, booleanValue } from '../formats/common';
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
] as const;

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

function applicability(kind: RuleFileKind, appliesTo: string, data: Record<string, unknown>, active: readonly string[]): Applicability {
  const folderRule = (what: string): Applicability => {
    if (appliesTo === '') return { applies: true, why: `${what} loads it for every request` };
    const hit = under(appliesTo, active);
    return hit ? { applies: true, why: `${what} loads it for files under ${appliesTo}/ (${hit})` } : { applies: false, why: `applies under ${appliesTo}/ only; no file in play there` };
  };
  const globRule = (globs: string[], what: string, none: Applicability): Applicability => {
    if (globs.length === 0) return none;
    if (globs.some(isEverythingGlob)) return { applies: true, why: `${what} applies it to every file` };
    const full = globsUnder(appliesTo, globs);
    const match = matcher(full);
    const hit = active.find(match);
    return hit
      ? { applies: true, why: `${full.join(', ')} matches ${hit}` }
      : { applies: false, why: `${full.join(', ')} matches no file in play` };
  };
  switch (kind) {
    case 'copilot-global':
      return folderRule('Copilot');
    case 'copilot-instructions':
      return globRule(ruleGlobs(kind, data), 'Copilot', { applies: false, why: 'no applyTo: Copilot uses it only when attached by hand' });
    case 'cursor-mdc':
      if (booleanValue(data.alwaysApply) === true) return { applies: true, why: 'alwaysApply: Cursor loads it for every request' };
      return globRule(ruleGlobs(kind, data), 'Cursor', { applies: false, why: 'neither alwaysApply nor globs: loaded on request only' });
    case 'cursor-legacy':
      return folderRule('Cursor');
    case 'claude-md':
      return folderRule('Claude Code');
    case 'agents-md':
      return folderRule('Agents that read AGENTS.md');
    case 'claude-rules':
      return globRule(ruleGlobs(kind, data), 'Claude Code', { applies: true, why: 'no paths: Claude Code loads it for every request' });
    case 'cline':
      if (isClineRuleOff(kind, data)) return { applies: false, why: 'paths: [] — Cline never loads it' };
      return globRule(ruleGlobs(kind, data), 'Cline', folderRule('Cline'));
  }
}

export function agentFilesView(input: AgentFilesInput): AgentFilesView {
  const active = input.activePaths.map(normalizePath);
  const prepared = input.included.map((item) => ({ item, shingles: shingles(item.body) }));
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
    const { applies, why } = applicability(match.kind, match.appliesTo, front.data, active);
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
