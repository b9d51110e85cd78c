/**
 * Exports the ledger to the rule files agents read on their own: a folder of rule files
 * (Copilot, Cursor, Kiro, Windsurf, Continue, Roo Code, Amazon Q, Augment; where and with
 * which front matter is the table in ruleTargets.ts), or one root file (`AGENTS.md`,
 * `GEMINI.md`). Each file says it is generated and fits a per-file token budget. Nothing is
 * dropped for size: what does not fit goes to a further file (a folder's tool attaches
 * every file of a glob set; AGENTS.md names its `AGENTS-2.md`… in an "Also noted" line),
 * an artifact longer than a file is lightly compressed, then split into parts. The token
 * counter is injected.
 *
 * Only the latest version of each chain, only `active` ones (a deprecated, superseded or
 * rejected ADR is not), no task-scoped artifacts (a rule file has no notion of the active
 * task), no rule its tool attaches only on request, and the same knowledge once (see
 * `selectExportable`). Global artifacts go to one file; path-scoped ones to one file per
 * distinct set of globs.
 */
import { DuplicateFinder, fingerprint } from '../assemble/duplicates';
import { type RedactionPolicy, redactOutgoing } from '../assemble/redact';
import { compressText } from '../compress';
import type { Artifact, ArtifactType } from '../model';
import { DEFAULT_TYPE_PRIORITY, UserError } from '../model';
import { GENERATED_MARKER } from './agentRules';
import { shortHash, slugify } from './common';
import { isHeading, lexMarkdown } from './markdown';
import { type FolderTarget, RULE_TARGETS, type RuleTarget } from './ruleTargets';

export { GENERATED_MARKER };
export { expandBraces, RULE_TARGET_NAMES, RULE_TARGETS, type RuleTarget } from './ruleTargets';

/** The artifact fields an export reads. */
export type ExportableArtifact = Pick<
  Artifact,
  'id' | 'chainId' | 'version' | 'type' | 'scope' | 'paths' | 'title' | 'body' | 'status' | 'pinned' | 'updatedAt'
> &
  Partial<Pick<Artifact, 'tags' | 'adrNumber'>>;

/** An artifact an export leaves out, and why (a duplicate, a rule attached only on request). */
export interface LeftOut {
  id: string;
  title: string;
  reason: string;
}

export { RULE_FILE_BUDGET } from './ruleFileBudget';

export interface RuleExportOptions {
  /** Tokens in a text, with the tokenizer the budget is meant for. */
  count: (text: string) => number;
  /** Token budget of each file (the whole file: front matter, header, items, "Also noted"). */
  budget: number;
  /** Type priorities (lower = kept first). Default DEFAULT_TYPE_PRIORITY. */
  priority?: Readonly<Record<ArtifactType, number>>;
  /** At most this many titles per file in AGENTS.md's "Also noted" line (the rest as "and N more"). Default 20. */
  maxAlsoNoted?: number;
  /** Secrets in titles, bodies and path globs are masked (rule files are committed and read by every agent); default on. */
  redaction?: RedactionPolicy;
}

export interface ExportedRuleFile {
  /** Workspace-relative path to write. */
  path: string;
  content: string;
  /** `count(content)`; never above the budget. */
  tokens: number;
  /** Ids written here (whole, compressed or a part), in file order. */
  included: string[];
  /** Of those, ids written lightly compressed (blank lines and trailing spaces only) to fit. */
  compressed: string[];
  /** Of those, ids too long for one file, written in parts (the other parts in other files). */
  split: string[];
  /** AGENTS.md only: ids moved on to `AGENTS-2.md`… to fit (named in its "Also noted" line). */
  dropped: string[];
}

export interface RuleExport {
  files: ExportedRuleFile[];
  leftOut: LeftOut[];
}

const HEADER = `<!-- ${GENERATED_MARKER} from the project's knowledge ledger. Do not edit by hand: changes are overwritten by the next export. Edit the ledger instead. -->`;

/** Whether a file's text is one of ours (exported by Context Ledger). */
export function isGeneratedRuleFile(content: string): boolean {
  return content.slice(0, 2000).includes(GENERATED_MARKER);
}

export function exportRules(target: RuleTarget, artifacts: readonly ExportableArtifact[], options: RuleExportOptions): RuleExport {
  // Masked before fitting, so the budget counts what is written; the globs too, since they
  // become `applyTo`, headings and file names.
  artifacts = artifacts.map((a) => ({ ...a, ...redactOutgoing({ title: a.title, body: a.body, paths: a.paths }, options.redaction) }));
  const { leftOut } = selectExportable(artifacts, options.priority);
  const spec = RULE_TARGETS[target];
  return { files: spec.layout === 'single' ? exportRootFile(spec.file, artifacts, options) : exportFolder(spec, artifacts, options), leftOut };
}

/**
 * A folder of rule files: `<folder>/context-ledger-global<ext>` for global knowledge and one
 * `context-ledger-<globs><ext>` per set of globs, each with the front matter its tool reads
 * (ruleTargets.ts). A tool with no path field (Roo Code, Amazon Q) loads each file on every
 * request: the heading names the globs. The user's own rule files are never written.
 */
export function exportFolder(spec: FolderTarget, artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  const maxChars = spec.maxChars;
  // A tool's character limit, as tokens: a file within the budget is within the limit too.
  const fitting: RuleExportOptions =
    maxChars === undefined ? options : { ...options, count: (text) => Math.max(options.count(text), Math.ceil((text.length * options.budget) / maxChars)) };
  return groupsOf(artifacts, options).flatMap((group) => {
    const scope = spec.headingScope && group.globs.length > 0 ? `
For files matching ${group.globs.map((glob) => `\`${glob}\``).join(', ')}: read it before working on them.
` : '';
    const head = `${spec.front(group.globs)}${HEADER}\n\n# ${heading(group)}\n${scope}`;
    const files = fitGroup(`${spec.folder}/context-ledger-${group.slug}`, spec.ext, head, group.items, 2, fitting);
    return maxChars === undefined ? files : files.map((file) => ({ ...file, tokens: options.count(file.content) }));
  });
}

/** Copilot: `.github/instructions/context-ledger-*.instructions.md` (`applyTo`). The user's own `.github/copilot-instructions.md` is never written. */
export function exportCopilotInstructions(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  return exportFolder(RULE_TARGETS.copilot as FolderTarget, artifacts, options);
}

/** Cursor: `.cursor/rules/context-ledger-*.mdc` (`alwaysApply: true`, or `globs` the way Cursor reads them). */
export function exportCursorRules(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  return exportFolder(RULE_TARGETS.cursor as FolderTarget, artifacts, options);
}

/** `AGENTS.md` at the workspace root: global knowledge, then a section per set of globs; then `AGENTS-2.md`… for the rest. */
export function exportAgentsMd(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  return exportRootFile('AGENTS.md', artifacts, options);
}

/** One root file (`AGENTS.md`, `GEMINI.md`): global knowledge, then a section per set of globs; then `<stem>-2.md`… for the rest. */
export function exportRootFile(file: string, artifacts: readonly ExportableArtifact[], options: RuleExportOptions): ExportedRuleFile[] {
  const items: Item[] = [];
  for (const group of groupsOf(artifacts, options)) {
    for (const artifact of group.items) items.push({ artifact, group: group.globs.length === 0 ? null : group });
  }
  return fitAgents(items, options, file);
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

/** What `selectExportable` keeps, grouped: global first, then by glob set. */
function groupsOf(artifacts: readonly ExportableArtifact[], options: RuleExportOptions): Group[] {
  const groups = new Map<string, Group>();
  for (const artifact of selectExportable(artifacts, options.priority).kept) {
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

/** The title an item is written under: an ADR keeps its number ("ADR-0007: …"), as people name it. */
function itemTitle(artifact: ExportableArtifact): string {
  const title = oneLine(artifact.title).replace(/^#+\s*/, '') || artifact.id;
  const number = artifact.adrNumber;
  if (artifact.type === 'adr' && typeof number === 'number' && !/^\[?ADR[-_ ]?#?\d/i.test(title)) return `ADR-${String(number).padStart(4, '0')}: ${title}`;
  return title;
}

/** One artifact as Markdown under a heading of `level`; its own headings are pushed below it, their levels kept relative. */
function renderItem(artifact: ExportableArtifact, level: number, body = artifact.body, title = itemTitle(artifact)): string {
  const text = demoteHeadings(body.replace(/\r\n?/g, '\n').trim(), level + 1);
  return `${'#'.repeat(level)} ${title}\n${text === '' ? '' : `\n${text}\n`}`;
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

/**
 * What is written: the latest active version of each non-task chain, minus what is not
 * always-on knowledge and what another kept artifact already says.
 * - A rule its tool attaches only on request (a Cursor rule with only a description, a
 *   manual one, a skill: tags `agent-requested` / `manual`) is not written into files read
 *   every time, nor one whose source's activation value is unknown (`unknown-activation`).
 * - The same knowledge twice (a decision recorded in two places, imported from two files)
 *   is written once: the one kept first (global before path-scoped, since it applies
 *   everywhere; then pinned, type priority, recency) stays. The assembler's duplicate test.
 */
export function selectExportable(
  artifacts: readonly ExportableArtifact[],
  priority: Readonly<Record<ArtifactType, number>> = DEFAULT_TYPE_PRIORITY,
): { kept: ExportableArtifact[]; leftOut: LeftOut[] } {
  const latest = new Map<string, ExportableArtifact>();
  for (const artifact of artifacts) {
    const seen = latest.get(artifact.chainId);
    if (!seen || artifact.version > seen.version) latest.set(artifact.chainId, artifact);
  }
  const order = keepOrder(priority);
  const candidates = [...latest.values()]
    .filter((a) => a.status === 'active' && a.scope !== 'task')
    .sort((a, b) => Number(a.scope !== 'global') - Number(b.scope !== 'global') || order(a, b));
  const kept: ExportableArtifact[] = [];
  const leftOut: LeftOut[] = [];
  const finder = new DuplicateFinder<ExportableArtifact>();
  for (const artifact of candidates) {
    const mode = (artifact.tags ?? []).find((tag) => tag === 'agent-requested' || tag === 'manual');
    if (mode) {
      leftOut.push({ id: artifact.id, title: artifact.title, reason: `${mode} in its source: attached only when asked for, so not written as always-on` });
      continue;
    }
    if ((artifact.tags ?? []).includes('unknown-activation')) {
      leftOut.push({ id: artifact.id, title: artifact.title, reason: 'its source says when to load it with a value its tool does not document: not written as always-on until that is fixed' });
      continue;
    }
    const print = fingerprint(artifact.body);
    const same = finder.find(print, artifact.title);
    if (same) {
      leftOut.push({ id: artifact.id, title: artifact.title, reason: `says what ${same.id} says: written once` });
      continue;
    }
    finder.keep(artifact, print, artifact.title);
    kept.push(artifact);
  }
  return { kept, leftOut };
}

/** One piece of a file: an artifact whole, compressed, or one part of it. */
interface Piece {
  artifact: ExportableArtifact;
  text: string;
  /** 'whole', 'compressed' (light: blank lines and trailing spaces only), or 'part' of several. */
  form: 'whole' | 'compressed' | 'part';
}

/**
 * An artifact as pieces that each fit a file of `room` tokens: whole when it fits; else
 * lightly compressed (nothing said is lost); else split at paragraphs, then lines, then
 * words, each part titled "(part i of n)". Never dropped.
 */
function piecesOf(artifact: ExportableArtifact, level: number, room: number, count: (text: string) => number): Piece[] {
  const whole = renderItem(artifact, level);
  if (count(whole) <= room) return [{ artifact, text: whole, form: 'whole' }];
  const light = compressText({ text: artifact.body, kind: 'markdown' }, 'light');
  const compressed = renderItem(artifact, level, light);
  if (count(compressed) <= room) return [{ artifact, text: compressed, form: 'compressed' }];
  const title = itemTitle(artifact);
  // Room for a part's text: the room less its heading with the longest "(part n of n)".
  const headRoom = room - count(renderItem(artifact, level, '', `${title} (part 999 of 999)`)) - 2;
  if (headRoom < 8) throw new UserError(`A token budget of ${room} leaves no room for a part of "${title}".`, 'Raise the per-file budget.');
  const chunks = splitToFit(light, headRoom, count);
  return chunks.map((chunk, i) => ({ artifact, text: renderItem(artifact, level, chunk, `${title} (part ${i + 1} of ${chunks.length})`), form: 'part' as const }));
}

/** `text` cut into chunks of at most `room` tokens: at blank lines, else at line ends, else between words. */
function splitToFit(text: string, room: number, count: (text: string) => number): string[] {
  const chunks: string[] = [];
  let current = '';
  const push = (unit: string, joiner: string): void => {
    const joined = current === '' ? unit : `${current}${joiner}${unit}`;
    if (count(joined) <= room) {
      current = joined;
      return;
    }
    if (current !== '') chunks.push(current);
    current = '';
    if (count(unit) <= room) {
      current = unit;
      return;
    }
    // A unit too long on its own: its lines, then its words.
    const finer = unit.includes('\n') ? unit.split('\n') : unit.split(/(?<=\s)/);
    if (finer.length === 1) {
      // One word longer than a part (a hash, a minified line): cut by characters.
      let rest = unit;
      while (rest !== '') {
        let take = rest.length;
        while (take > 1 && count(rest.slice(0, take)) > room) take = Math.floor(take / 2);
        chunks.push(rest.slice(0, take));
        rest = rest.slice(take);
      }
      return;
    }
    for (const piece of finer) push(piece, unit.includes('\n') ? '\n' : '');
  };
  for (const paragraph of text.split(/\n{2,}/)) push(paragraph, '\n\n');
  if (current !== '') chunks.push(current);
  return chunks;
}

/**
 * Packs pieces into as many files as they need, each within the budget: first fit, in
 * keep order, so the most important knowledge lands in the first file. `render` turns a
 * file's pieces into its text; the exact count of that text decides.
 */
function packFiles(pieces: readonly Piece[], render: (pieces: readonly Piece[], index: number) => string, options: RuleExportOptions): Piece[][] {
  const { count, budget } = options;
  const files: { pieces: Piece[]; used: number }[] = [];
  for (const piece of pieces) {
    const cost = count(piece.text) + 1;
    let target = files.find((file) => file.used + cost <= budget);
    if (!target) files.push((target = { pieces: [], used: count(render([], files.length)) }));
    target.pieces.push(piece);
    target.used += cost;
  }
  // The estimate adds piece counts; the exact count of the joined text may differ a little:
  // a file over its budget passes its last pieces on to the next file.
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    while (file.pieces.length > 1 && count(render(file.pieces, i)) > budget) {
      const moved = file.pieces.pop()!;
      if (i + 1 === files.length) files.push({ pieces: [], used: 0 });
      files[i + 1]!.pieces.unshift(moved);
    }
  }
  return files.map((file) => file.pieces);
}

function exported(path: string, content: string, pieces: readonly Piece[], count: (text: string) => number, dropped: string[] = []): ExportedRuleFile {
  const ids = (form?: Piece['form']): string[] => [...new Set(pieces.filter((p) => !form || p.form === form).map((p) => p.artifact.id))];
  return { path, content, tokens: count(content), included: ids(), compressed: ids('compressed'), split: ids('part'), dropped };
}

/** A group's files: `<base>.<ext>`, then `<base>-2.<ext>`, … each with the same front matter (the tool attaches them all). */
function fitGroup(base: string, ext: string, head: string, artifacts: readonly ExportableArtifact[], level: number, options: RuleExportOptions): ExportedRuleFile[] {
  const { count, budget } = options;
  const items = [...artifacts].sort(keepOrder(options.priority ?? DEFAULT_TYPE_PRIORITY));
  const room = budget - count(head) - 2;
  if (room < 16) throw new UserError(`A token budget of ${budget} is too small for ${base}${ext}: its header alone takes ${count(head)} tokens.`, 'Raise the per-file budget.');
  const pieces = items.flatMap((artifact) => piecesOf(artifact, level, room, count));
  const render = (included: readonly Piece[]): string => [head, ...included.map((piece) => piece.text)].join('\n');
  return packFiles(pieces, render, options).map((filePieces, index) => {
    const path = `${base}${index === 0 ? '' : `-${index + 1}`}${ext}`;
    return exported(path, render(filePieces), filePieces, count);
  });
}

/**
 * AGENTS.md: tools read the one file, so what does not fit its budget goes to `AGENTS-2.md`,
 * `AGENTS-3.md`, … beside it, and AGENTS.md ends with an "Also noted" line naming each of
 * those files (which the agent can open) and the titles they hold.
 */
function fitAgents(all: readonly Item[], options: RuleExportOptions, file = 'AGENTS.md'): ExportedRuleFile[] {
  const stem = file.replace(/\.md$/, '');
  const { count, budget } = options;
  const order = keepOrder(options.priority ?? DEFAULT_TYPE_PRIORITY);
  const items = [...all].sort((a, b) => order(a.artifact, b.artifact));
  const groupOf = new Map(items.map((item) => [item.artifact, item.group]));
  const head = (index: number): string =>
    index === 0 ? `${HEADER}\n\n# Project knowledge\n` : `${HEADER}\n\n# Project knowledge (continued, part ${index + 1})\n\nMore of this project's knowledge; \`${file}\` holds the most important.\n`;
  const render = (included: readonly Piece[], index: number, also = ''): string => {
    const parts = [head(index)];
    // Global items first, then each glob group under its own heading, keep order within.
    for (const piece of included) if (!groupOf.get(piece.artifact)) parts.push(piece.text);
    const groups = [...new Set(included.map((piece) => groupOf.get(piece.artifact)).filter((group): group is Group => !!group))].sort((a, b) =>
      a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0,
    );
    for (const group of groups) {
      parts.push(`## When working on ${group.globs.map((glob) => `\`${glob}\``).join(', ')}\n`);
      for (const piece of included) if (groupOf.get(piece.artifact) === group) parts.push(piece.text);
    }
    if (also !== '') parts.push(also);
    return parts.join('\n');
  };
  // A group heading is charged to every piece of its group: conservative; the exact check fixes the rest.
  const room = budget - count(head(1)) - 24;
  if (room < 16) throw new UserError(`A token budget of ${budget} is too small for ${file}: its header alone takes ${count(head(1))} tokens.`, 'Raise the per-file budget.');
  const pieces = items.flatMap((item) => piecesOf(item.artifact, item.group ? 3 : 2, room, count));
  const pathOf = (index: number): string => (index === 0 ? file : `${stem}-${index + 1}.md`);
  const lead = 'Also noted (more project knowledge, in files beside this one; read the one that concerns your task):';
  // The shortest form names the files only; AGENTS.md keeps room for it whatever their number.
  const compact = (files: number): string => `${lead} \`${stem}-2.md\`${files > 2 ? ` to \`${stem}-${files}.md\`` : ''}.\n`;
  // AGENTS.md keeps room for the names of up to 20 further files (and, past that, for the range).
  const names = (files: number): string => `${lead} ${Array.from({ length: files - 1 }, (_, i) => `\`${pathOf(i + 1)}\``).join(', ')}.\n`;
  const reserve = count(names(21)) >= count(compact(999)) ? names(21) : compact(999);
  const files = packFiles(pieces, (p, i) => render(p, i, i === 0 ? reserve : ''), { ...options, budget: budget - 24 });
  if (files.length === 0) files.push([]);
  const rest = files.slice(1);
  const withTitles = (limit: number): string =>
    `${lead} ${rest
      .map((filePieces, i) => {
        const titles = [...new Set(filePieces.map((piece) => oneLine(itemTitle(piece.artifact)).slice(0, 80)))];
        const more = titles.length - Math.min(limit, titles.length);
        return `\`${pathOf(i + 1)}\` (${titles.slice(0, limit).join('; ')}${more > 0 ? `${limit > 0 ? '; and ' : ''}${more} more` : ''})`;
      })
      .join(', ')}.\n`;
  // As many titles as fit, so the agent knows which file to open; else the file names alone.
  let also = rest.length === 0 ? '' : count(render(files[0]!, 0, names(files.length))) <= budget ? names(files.length) : compact(files.length);
  for (let limit = options.maxAlsoNoted ?? 20; rest.length > 0 && limit >= 1; limit = Math.floor(limit / 2)) {
    if (count(render(files[0]!, 0, withTitles(limit))) <= budget) {
      also = withTitles(limit);
      break;
    }
  }
  return files.map((filePieces, index) => {
    const movedOn = index === 0 ? [...new Set(files.slice(1).flat().map((piece) => piece.artifact.id))] : [];
    return exported(pathOf(index), render(filePieces, index, index === 0 ? also : ''), filePieces, count, movedOn);
  });
}
