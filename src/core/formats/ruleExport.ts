/**
 * Exports the ledger to the rule files agents read on their own: Copilot
 * `.github/instructions/*.instructions.md`, Cursor `.cursor/rules/*.mdc`, and
 * `AGENTS.md`. Each file says it is generated and fits a per-file token budget: the
 * lowest-priority artifacts (type priority, then age) are left out and named in an
 * "Also noted" line, which is counted too. The token counter is injected.
 *
 * Only the latest version of each chain, only `active` ones, and no task-scoped
 * artifacts (a rule file has no notion of the active task). Global artifacts go to one
 * file; path-scoped ones to one file per distinct set of globs.
 */
import { type RedactionPolicy, redactOutgoing } from '../assemble/redact';
import type { Artifact, ArtifactType } from '../model';
import { DEFAULT_TYPE_PRIORITY, UserError } from '../model';
import { GENERATED_MARKER } from './agentRules';
import { shortHash, slugify, splitOutsideBraces } from './common';
import { isHeading, lexMarkdown } from './markdown';

export { GENERATED_MARKER };

export type RuleTarget = 'copilot' | 'cursor' | 'agents-md';

/** The artifact fields an export reads. */
export type ExportableArtifact = Pick<
  Artifact,
  'id' | 'chainId' | 'version' | 'type' | 'scope' | 'paths' | 'title' | 'body' | 'status' | 'pinned' | 'updatedAt'
>;

/** Per-file token budget of exported rule files: the CLI's `--budget` and the extension's `contextLedger.export.ruleFileBudget`. */
export const RULE_FILE_BUDGET = { default: 4000, min: 100, max: 1_000_000 } as const;

export interface RuleExportOptions {
  /** Tokens in a text, with the tokenizer the budget is meant for. */
  count: (text: string) => number;
  /** Token budget of each file (the whole file: front matter, header, items, "Also noted"). */
  budget: number;
  /** Type priorities (lower = kept first). Default DEFAULT_TYPE_PRIORITY. */
  priority?: Readonly<Record<ArtifactType, number>>;
  /** At most this many titles in the "Also noted" line (the rest as "and N more"). Default 20. */
  maxAlsoNoted?: number;
  /** Secrets in titles and bodies are masked (rule files are committed and read by every agent); default on. */
  redaction?: RedactionPolicy;
}

export interface ExportedRuleFile {
  /** Workspace-relative path to write. */
  path: string;
  content: string;
  /** `count(content)`; never above the budget. */
  tokens: number;
  /** Ids written in full, in file order. */
  included: string[];
  /** Ids left out to fit the budget (named in the "Also noted" line as far as it goes). */
  dropped: string[];
}

const HEADER = `<!-- ${GENERATED_MARKER} from the project's knowledge ledger. Do not edit by hand: changes are overwritten by the next export. Edit the ledger instead. -->`;

/** Whether a file's text is one of ours (exported by Context Ledger). */
export function isGeneratedRuleFile(content: string): boolean {
  return content.slice(0, 2000).includes(GENERATED_MARKER);
}

export function exportRules(target: RuleTarget, artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  // Masked before fitting, so the budget counts what is written.
  artifacts = artifacts.map((a) => ({ ...a, ...redactOutgoing({ title: a.title, body: a.body }, options.redaction) }));
  switch (target) {
    case 'copilot':
      return exportCopilotInstructions(artifacts, options);
    case 'cursor':
      return exportCursorRules(artifacts, options);
    case 'agents-md':
      return [exportAgentsMd(artifacts, options)];
  }
}

/**
 * Copilot: `.github/instructions/context-ledger-global.instructions.md` (`applyTo: "**"`)
 * and one `context-ledger-<globs>.instructions.md` per set of globs. The user's own
 * `.github/copilot-instructions.md` is never written.
 */
export function exportCopilotInstructions(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  return groupsOf(artifacts).map((group) => {
    const applyTo = group.globs.length === 0 ? '**' : group.globs.join(',');
    const description = group.globs.length === 0 ? 'Project knowledge from Context Ledger' : `Context Ledger knowledge for ${group.globs.join(', ')}`;
    const front = `---\napplyTo: ${JSON.stringify(applyTo)}\ndescription: ${JSON.stringify(description)}\n---\n`;
    const path = `.github/instructions/context-ledger-${group.slug}.instructions.md`;
    return fitFile(path, `${front}${HEADER}\n\n# ${heading(group)}\n`, group.items, 2, options);
  });
}

/**
 * Cursor: `.cursor/rules/context-ledger-global.mdc` (`alwaysApply: true`) and one
 * `context-ledger-<globs>.mdc` per set of globs. `globs` is written the way Cursor
 * reads it: bare, comma-joined, no spaces, brace groups expanded.
 */
export function exportCursorRules(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  return groupsOf(artifacts).map((group) => {
    const globs = group.globs.flatMap(expandBraces).filter((glob) => !glob.includes(','));
    const front =
      group.globs.length === 0
        ? '---\ndescription: Project knowledge from Context Ledger\nglobs:\nalwaysApply: true\n---\n'
        : `---\ndescription: Context Ledger knowledge for files matching ${globs.join(' ')}\nglobs: ${globs.join(',')}\nalwaysApply: false\n---\n`;
    const path = `.cursor/rules/context-ledger-${group.slug}.mdc`;
    return fitFile(path, `${front}${HEADER}\n\n# ${heading(group)}\n`, group.items, 2, options);
  });
}

/** `AGENTS.md` at the workspace root: global knowledge, then a section per set of globs. */
export function exportAgentsMd(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile {
  const items: Item[] = [];
  for (const group of groupsOf(artifacts)) {
    for (const artifact of group.items) items.push({ artifact, group: group.globs.length === 0 ? null : group });
  }
  return fitAgents(items, options);
}

// ---------------------------------------------------------------------------

interface Group {
  /** Sorted, unique globs; empty for the global group. */
  globs: string[];
  slug: string;
  items: ExportableArtifact[];
}

interface Item {
  artifact: ExportableArtifact;
  group: Group | null;
}

/** Latest active version of each non-task chain, grouped: global first, then by glob set. */
function groupsOf(artifacts: readonly ExportableArtifact[]): Group[] {
  const latest = new Map<string, ExportableArtifact>();
  for (const artifact of artifacts) {
    const seen = latest.get(artifact.chainId);
    if (!seen || artifact.version > seen.version) latest.set(artifact.chainId, artifact);
  }
  const groups = new Map<string, Group>();
  for (const artifact of latest.values()) {
    if (artifact.status !== 'active' || artifact.scope === 'task') continue;
    const globs = artifact.scope === 'path' ? [...new Set(artifact.paths.map((p) => p.trim()).filter((p) => p !== ''))].sort() : [];
    const key = globs.join('\n');
    let group = groups.get(key);
    if (!group) {
      const slug = globs.length === 0 ? 'global' : `${slugify(globs.join(' '), 40) || 'paths'}-${shortHash(key, 6)}`;
      groups.set(key, (group = { globs, slug, items: [] }));
    }
    group.items.push(artifact);
  }
  return [...groups.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

function heading(group: Group): string {
  return group.globs.length === 0 ? 'Project knowledge' : `Knowledge for ${group.globs.map((glob) => `\`${glob}\``).join(', ')}`;
}

/** Pinned first, then type priority, then most recently updated, then id. */
function keepOrder(priority: Readonly<Record<ArtifactType, number>>) {
  return (a: ExportableArtifact, b: ExportableArtifact): number =>
    Number(b.pinned) - Number(a.pinned) ||
    (priority[a.type] ?? 99) - (priority[b.type] ?? 99) ||
    (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** One artifact as Markdown under a heading of `level`; its own headings are pushed below it. */
function renderItem(artifact: ExportableArtifact, level: number): string {
  const title = oneLine(artifact.title).replace(/^#+\s*/, '') || artifact.id;
  const body = demoteHeadings(artifact.body.replace(/\r\n?/g, '\n').trim(), level + 1);
  return `${'#'.repeat(level)} ${title}\n${body === '' ? '' : `\n${body}\n`}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Shifts the body's headings so the shallowest is at least `minDepth` (at most 6). */
function demoteHeadings(body: string, minDepth: number): string {
  if (!/^\s{0,3}#|\n\s{0,3}#|\n\s{0,3}[=-]+\s*(?:\n|$)/.test(body)) return body;
  const tokens = lexMarkdown(body);
  const depths = tokens.filter(isHeading).map((token) => token.depth);
  if (depths.length === 0) return body;
  const shift = Math.max(0, minDepth - Math.min(...depths));
  if (shift === 0) return body;
  return tokens
    .map((token) => {
      if (!isHeading(token)) return token.raw;
      const trailing = /\n*$/.exec(token.raw)?.[0] ?? '';
      return `${'#'.repeat(Math.min(6, token.depth + shift))} ${oneLine(token.text)}${trailing === '' ? '' : trailing}`;
    })
    .join('')
    .trim();
}

function alsoNotedLine(dropped: readonly ExportableArtifact[], limit: number): string {
  if (dropped.length === 0) return '';
  const shown = dropped.slice(0, limit).map((artifact) => oneLine(artifact.title).slice(0, 100));
  const more = dropped.length - shown.length;
  if (shown.length === 0) return `Also noted: ${more} more ${more === 1 ? 'artifact' : 'artifacts'} in the ledger, left out to fit the token budget.\n`;
  return `Also noted (left out to fit the token budget): ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.\n`;
}

/**
 * Packs items into one file: take them in keep order, skip one that does not fit (a
 * smaller later one still may), then check the whole rendered text with the real
 * counter and give back items from the end until it fits, "Also noted" line included.
 */
function pack<T>(
  path: string,
  items: readonly T[],
  artifactOf: (item: T) => ExportableArtifact,
  render: (included: readonly T[], alsoNoted: string) => string,
  itemText: (item: T) => string,
  options: RuleExportOptions,
): ExportedRuleFile {
  const { count, budget } = options;
  const maxAlso = options.maxAlsoNoted ?? 20;
  const included: T[] = [];
  const dropped: T[] = [];
  let used = count(render([], ''));
  for (const item of items) {
    const cost = count(itemText(item)) + 1;
    if (used + cost <= budget) {
      included.push(item);
      used += cost;
    } else {
      dropped.push(item);
    }
  }
  const rank = new Map(items.map((item, index) => [item, index]));
  const byKeep = (a: T, b: T): number => rank.get(a)! - rank.get(b)!;
  let limit = maxAlso;
  for (;;) {
    const content = render(included, alsoNotedLine(dropped.map(artifactOf), limit));
    const tokens = count(content);
    if (tokens <= budget) {
      return { path, content, tokens, included: included.map((item) => artifactOf(item).id), dropped: dropped.map((item) => artifactOf(item).id) };
    }
    if (included.length > 0) {
      dropped.push(included.pop()!);
      dropped.sort(byKeep);
    } else if (limit > 0) {
      limit = Math.floor(limit / 2);
    } else {
      throw new UserError(
        `A token budget of ${budget} is too small for ${path}: its header and "Also noted" line alone take ${tokens} tokens.`,
        'Raise the per-file budget.',
      );
    }
  }
}

function fitFile(path: string, head: string, artifacts: readonly ExportableArtifact[], level: number, options: RuleExportOptions): ExportedRuleFile {
  const items = [...artifacts].sort(keepOrder(options.priority ?? DEFAULT_TYPE_PRIORITY));
  const texts = new Map(items.map((artifact) => [artifact, renderItem(artifact, level)]));
  return pack(
    path,
    items,
    (artifact) => artifact,
    (included, also) => [head, ...included.map((artifact) => texts.get(artifact)!), ...(also === '' ? [] : [also])].join('\n'),
    (artifact) => texts.get(artifact)!,
    options,
  );
}

function fitAgents(all: readonly Item[], options: RuleExportOptions): ExportedRuleFile {
  const order = keepOrder(options.priority ?? DEFAULT_TYPE_PRIORITY);
  const items = [...all].sort((a, b) => order(a.artifact, b.artifact));
  const texts = new Map(items.map((item) => [item, renderItem(item.artifact, item.group ? 3 : 2)]));
  const head = `${HEADER}\n\n# Project knowledge\n`;
  const render = (included: readonly Item[], also: string): string => {
    const parts = [head];
    // Global items first, then each glob group under its own heading, keep order within.
    for (const item of included) if (!item.group) parts.push(texts.get(item)!);
    const groups = [...new Set(included.map((item) => item.group).filter((group): group is Group => group !== null))].sort((a, b) =>
      a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0,
    );
    for (const group of groups) {
      parts.push(`## When working on ${group.globs.map((glob) => `\`${glob}\``).join(', ')}\n`);
      for (const item of included) if (item.group === group) parts.push(texts.get(item)!);
    }
    if (also !== '') parts.push(also);
    return parts.join('\n');
  };
  // A group heading costs tokens only once; charging it to every item of the group
  // keeps the first pass conservative, and the exact check fixes the rest.
  const itemText = (item: Item): string =>
    item.group ? `## When working on ${item.group.globs.join(', ')}\n${texts.get(item)!}` : texts.get(item)!;
  return pack('AGENTS.md', items, (item) => item.artifact, render, itemText, options);
}

/** `src/**\/*.{ts,tsx}` → `src/**\/*.ts`, `src/**\/*.tsx` (Cursor splits globs on commas). */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) {
      const options = splitOutsideBraces(glob.slice(open + 1, i));
      if (options.length < 2) return [glob];
      return options.flatMap((option) => expandBraces(`${glob.slice(0, open)}${option}${glob.slice(i + 1)}`));
    }
  }
  return [glob];
}
