/**
 * ActiveMemory/ctx `.context/` files → artifacts and tasks.
 *
 * - DECISIONS.md / LEARNINGS.md (and their theme files `decisions/*.md`,
 *   `learnings/*.md`): `## [YYYY-MM-DD-HHMMSS] Title` entries, one artifact each.
 * - CONVENTIONS.md (and `conventions/*.md`): one convention per top-level bullet,
 *   tagged with its `##` section; a section without bullets is one convention.
 * - CONSTITUTION.md: one constitution rule per checkbox item; a section without
 *   checkboxes (prose rules) is one rule.
 * - TASKS.md: open (`- [ ]`) top-level items → tasks.
 * - ARCHITECTURE.md / GLOSSARY.md: one note per non-empty `##` section (plus the
 *   text under the `#` title, if any).
 */
import type { ArtifactInput, ArtifactStatus, ArtifactType } from '../model';
import type { ImportResult, ImportedTask, Skipped, Supersession } from './common';
import { IdAllocator, baseName, clauseTitle, ctxStampToIso, importSource, normalizePath, slugId, slugify } from './common';
import { readTasks } from './ctxTasks';
import type { Token, Tokens } from './markdown';
import {
  contentOf,
  hasContent,
  headingText,
  isHeading,
  isHtmlComment,
  isSetextHeading,
  isUnclosedComment,
  lexMarkdown,
  listItemText,
  splitAtHeadings,
  tokenLines,
} from './markdown';

/** One file of a `.context/` folder: `name` relative to that folder (`DECISIONS.md`, `decisions/x.md`). */
export interface CtxFile {
  name: string;
  content: string;
}

export interface CtxImportOptions {
  /** Workspace-relative path of the `.context/` folder, used in `source`. Default `.context`. */
  contextDir?: string;
  /**
   * First part of every id (`ctx` → `ctx-dec-2026-07-25-190410`). Give a second
   * `.context/` folder (a monorepo package) its own, or their ids collide.
   */
  idPrefix?: string;
}

type CtxKind = 'decision' | 'learning' | 'convention' | 'constitution' | 'task' | 'architecture' | 'glossary';

const ROOT_FILES: ReadonlyArray<[string, CtxKind]> = [
  ['CONSTITUTION.md', 'constitution'],
  ['DECISIONS.md', 'decision'],
  ['LEARNINGS.md', 'learning'],
  ['CONVENTIONS.md', 'convention'],
  ['ARCHITECTURE.md', 'architecture'],
  ['GLOSSARY.md', 'glossary'],
  ['TASKS.md', 'task'],
];

const THEME_DIRS: ReadonlyArray<[string, CtxKind]> = [
  ['decisions', 'decision'],
  ['learnings', 'learning'],
  ['conventions', 'convention'],
];

/** Which ctx file kind a `.context/`-relative name is, or null if it is none we import. */
export function ctxKindOf(name: string): CtxKind | null {
  const normalized = normalizePath(name);
  for (const [file, kind] of ROOT_FILES) if (normalized === file) return kind;
  const slash = normalized.indexOf('/');
  if (slash > 0 && normalized.endsWith('.md') && normalized.indexOf('/', slash + 1) < 0) {
    const dir = normalized.slice(0, slash);
    for (const [themeDir, kind] of THEME_DIRS) if (dir === themeDir) return kind;
  }
  return null;
}

function fileOrder(name: string): number {
  const index = ROOT_FILES.findIndex(([file]) => file === name);
  return index >= 0 ? index : ROOT_FILES.length;
}

interface Context {
  path: string;
  /** Id prefix (`ctx`). */
  prefix: string;
  /** `path:line` of a top-level token of the file being read. */
  at: (token: Token | undefined) => string;
  source: string;
  ids: IdAllocator;
  artifacts: ArtifactInput[];
  skipped: Skipped[];
}

/**
 * Imports the files of one `.context/` folder. Root files are read before theme
 * files, so duplicate timestamps number (`-2`, `-3`) in a stable order.
 */
export function parseCtx(files: readonly CtxFile[], options: CtxImportOptions = {}): ImportResult {
  const contextDir = normalizePath(options.contextDir ?? '.context');
  const prefix = options.idPrefix ?? 'ctx';
  const ids = new IdAllocator();
  const artifacts: ArtifactInput[] = [];
  const tasks: ImportedTask[] = [];
  const skipped: Skipped[] = [];
  const entries: Entry[] = [];

  const ordered = files
    .map((file) => ({ ...file, name: normalizePath(file.name) }))
    .sort((a, b) => fileOrder(a.name) - fileOrder(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  for (const file of ordered) {
    const path = contextDir === '' ? file.name : `${contextDir}/${file.name}`;
    const kind = ctxKindOf(file.name);
    if (kind === null) {
      skipped.push({ where: path, reason: 'not a ctx knowledge file (expected DECISIONS, LEARNINGS, CONVENTIONS, CONSTITUTION, TASKS, ARCHITECTURE or GLOSSARY .md)' });
      continue;
    }
    const notes: string[] = [];
    const tokens = lexMarkdown(file.content, notes);
    for (const reason of notes) skipped.push({ where: path, reason });
    const lines = tokenLines(tokens);
    const at = (token: Token | undefined): string => `${path}:${(token && lines.get(token)) ?? 1}`;
    const ctx: Context = { path, prefix, at, source: importSource('ctx', path), ids, artifacts, skipped };
    reportUnclosedComments(ctx, tokens);
    const theme = file.name.includes('/') ? slugify(baseName(file.name).replace(/\.md$/, '')) : null;
    switch (kind) {
      case 'decision':
      case 'learning':
        entries.push(...readEntries(ctx, tokens, kind, theme));
        break;
      case 'convention':
        readConventions(ctx, tokens, theme);
        break;
      case 'constitution':
        readConstitution(ctx, tokens);
        break;
      case 'task':
        tasks.push(...readTasks(ctx, tokens));
        break;
      case 'architecture':
      case 'glossary':
        readNotes(ctx, tokens, kind);
        break;
    }
  }

  const supersessions = resolveSupersessions(entries);
  const superseded = new Set(supersessions.map((s) => s.olderId));
  for (const artifact of artifacts) {
    if (artifact.id !== undefined && superseded.has(artifact.id)) artifact.status = 'superseded';
  }
  return { artifacts, tasks, supersessions, skipped };
}

function reportUnclosedComments(ctx: Context, tokens: readonly Token[]): void {
  tokens.forEach((token) => {
    if (isUnclosedComment(token)) {
      ctx.skipped.push({
        where: ctx.at(token),
        reason: 'HTML comment opened with <!-- and never closed: everything after it is commented out',
      });
    }
  });
}

// ---------------------------------------------------------------------------
// DECISIONS.md / LEARNINGS.md

const ENTRY_HEADER = /^\[([^\]\n]+)\]\s*(.*)$/s;

interface Entry {
  artifact: ArtifactInput;
  kind: 'decision' | 'learning';
  stamp: string;
  title: string;
  refs: Array<{ relation: 'supersededBy' | 'supersedes'; stamp: string; text: string }>;
}

function readEntries(ctx: Context, tokens: readonly Token[], kind: 'decision' | 'learning', theme: string | null): Entry[] {
  const entries: Entry[] = [];
  const prefix = `${ctx.prefix}-${kind === 'decision' ? 'dec' : 'learn'}`;
  const type: ArtifactType = kind;
  let inIndex = false;
  let current: { header: Tokens.Heading; stamp: string; title: string; tokens: Token[] } | null = null;
  let stray: { name: string; heading: Token | undefined; tokens: Token[] } | null = {
    name: '',
    heading: undefined,
    tokens: [],
  };

  const flushStray = (): void => {
    if (stray && hasContent(stray.tokens)) {
      const reason = /^themes$/i.test(stray.name)
        ? 'theme index (links to theme files; import those files to get their entries)'
        : stray.name === ''
          ? 'text before the first [timestamp] entry'
          : `text under "${stray.name}" is not a [timestamp] entry`;
      ctx.skipped.push({ where: ctx.at(stray.heading ?? stray.tokens.find((t) => t.type !== 'space')), reason });
    }
    stray = null;
  };
  const flushEntry = (): void => {
    if (current) entries.push(makeEntry(ctx, current, kind, prefix, type, theme));
    current = null;
  };

  for (const token of tokens) {
    if (token.type === 'html' && isHtmlComment(token)) {
      if (token.raw.includes('INDEX:START')) inIndex = true;
      if (token.raw.includes('INDEX:END')) inIndex = false;
      continue;
    }
    if (isHeading(token) && token.depth <= 2 && !isSetextHeading(token)) {
      const match = token.depth === 2 ? ENTRY_HEADER.exec(token.text.trim()) : null;
      flushEntry();
      flushStray();
      if (match) {
        // An entry trapped inside the INDEX block is still an entry (ctx once lost
        // bodies that way); only the index table itself is skipped.
        current = { header: token, stamp: match[1]!.trim(), title: match[2]!.trim(), tokens: [] };
      } else {
        stray = { name: headingText(token), heading: token, tokens: [] };
      }
      continue;
    }
    if (inIndex && !current) continue;
    if (current) current.tokens.push(token);
    else if (stray) stray.tokens.push(token);
  }
  flushEntry();
  flushStray();
  return entries;
}

function makeEntry(
  ctx: Context,
  raw: { stamp: string; title: string; tokens: Token[] },
  kind: 'decision' | 'learning',
  prefix: string,
  type: ArtifactType,
  theme: string | null,
): Entry {
  let status: ArtifactStatus = 'active';
  let title = raw.title;
  const struck = /^~~(.+)~~$/s.exec(title);
  if (struck) {
    title = struck[1]!.trim();
    status = 'superseded';
  }
  const marker = /^(?:\[(?:superseded|deprecated)\]|\((?:superseded|deprecated)\)|(?:superseded|deprecated)\s*:)\s*/i.exec(title);
  if (marker) {
    title = title.slice(marker[0].length).trim();
    status = 'superseded';
  }
  const trailing = /\s*[([](?:superseded|deprecated)\b[^)\]]*[)\]]$/i.exec(title);
  if (trailing) {
    title = title.slice(0, trailing.index).trim();
    status = 'superseded';
  }
  if (title === '') title = raw.stamp;

  const body = contentOf(raw.tokens, true);
  const statusLine = /^\s*(?:\*\*Status\*\*|Status)\s*:\s*(.+)$/im.exec(body);
  const refs: Entry['refs'] = [];
  if (statusLine) {
    const value = statusLine[1]!.trim();
    const word = (/^[*_~]*([A-Za-z]+)/.exec(value)?.[1] ?? '').toLowerCase();
    if (word === 'superseded' || word === 'replaced') status = 'superseded';
    else if (['deprecated', 'rejected', 'obsolete', 'retired', 'withdrawn', 'abandoned'].includes(word)) {
      status = status === 'superseded' ? status : 'archived';
    }
  }
  for (const match of body.matchAll(/\b(superseded by|supersedes)\s*:?\s*\[([^\]\n]+)\]\s*([^\n|]*)/gi)) {
    const relation = match[1]!.toLowerCase() === 'supersedes' ? 'supersedes' : 'supersededBy';
    refs.push({ relation, stamp: match[2]!.trim(), text: match[3]!.trim() });
  }

  const createdAt = ctxStampToIso(raw.stamp);
  const stampSlug = /^\d{4}-\d{2}-\d{2}(?:-\d{6})?$/.test(raw.stamp) ? raw.stamp : slugify(raw.stamp, 40);
  const id = ctx.ids.next(stampSlug === '' ? slugId(prefix, raw.stamp) : `${prefix}-${stampSlug}`);
  const artifact: ArtifactInput = {
    id,
    type,
    scope: 'global',
    title,
    body,
    tags: theme ? [theme] : [],
    status,
    source: ctx.source,
    ...(createdAt ? { createdAt, updatedAt: createdAt } : {}),
  };
  ctx.artifacts.push(artifact);
  return { artifact, kind, stamp: raw.stamp, title, refs };
}

/**
 * "Superseded by [2026-03-02] global key simplification": a full timestamp names one
 * entry; a date alone names the entry of that day whose title shares most words with
 * the text. Unresolvable references are left alone (the status line still counts).
 */
function resolveSupersessions(entries: readonly Entry[]): Supersession[] {
  const relations: Supersession[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    for (const ref of entry.refs) {
      const target = findEntry(entries, entry, ref.stamp, ref.text);
      if (!target) continue;
      const [older, newer] = ref.relation === 'supersededBy' ? [entry, target] : [target, entry];
      const key = `${older.artifact.id}>${newer.artifact.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      relations.push({ olderId: older.artifact.id!, newerId: newer.artifact.id! });
    }
  }
  return relations;
}

function findEntry(entries: readonly Entry[], from: Entry, stamp: string, text: string): Entry | null {
  const candidates = entries.filter(
    (e) => e !== from && e.kind === from.kind && (e.stamp === stamp || (stamp.length === 10 && e.stamp.startsWith(stamp))),
  );
  if (candidates.length === 0) return null;
  const words = wordsOf(text);
  if (words.size === 0) return candidates.length === 1 ? candidates[0]! : null;
  let best: Entry | null = null;
  let bestScore = 0;
  let tie = false;
  for (const candidate of candidates) {
    const titleWords = wordsOf(candidate.title);
    let shared = 0;
    for (const word of words) if (titleWords.has(word)) shared++;
    const score = shared / words.size;
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
      tie = false;
    } else if (score === bestScore) {
      tie = true;
    }
  }
  return best && bestScore >= 0.5 && !tie ? best : null;
}

function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 2),
  );
}

// ---------------------------------------------------------------------------
// CONVENTIONS.md

function readConventions(ctx: Context, tokens: readonly Token[], theme: string | null): void {
  for (const section of splitAtHeadings(tokens, 2, true)) {
    if (!section.heading || section.heading.depth < 2) {
      reportLooseText(ctx, section.tokens, 'text before the first ## section');
      continue;
    }
    const name = headingText(section.heading);
    if (/^themes$/i.test(name)) {
      if (hasContent(section.tokens)) {
        ctx.skipped.push({
          where: ctx.at(section.heading),
          reason: 'theme index (links to theme files; import those files to get their conventions)',
        });
      }
      continue;
    }
    const sectionSlug = slugify(name, 30);
    const tags = [theme, sectionSlug].filter((tag): tag is string => !!tag && tag !== '');
    const groups = bulletGroups(section.tokens);
    const prose = section.tokens.some((token) => token.type !== 'list' && !isHeading(token) && hasContent([token]));
    const boldLed = groups.some((group) => BOLD_LEAD.test(group.text));
    if (groups.length === 0 || (prose && !boldLed)) {
      // Prose with a checklist in it reads as one convention, not a pile of fragments.
      if (!hasContent(section.tokens)) continue;
      addArtifact(ctx, {
        idBase: slugId(`${ctx.prefix}-conv`, sectionSlug || name, 70),
        type: 'convention',
        title: name,
        body: contentOf(section.tokens, true),
        tags,
      });
      continue;
    }
    if (groups[0]!.intro.length > 0 && hasContent(groups[0]!.intro)) {
      addArtifact(ctx, {
        idBase: slugId(`${ctx.prefix}-conv`, sectionSlug || name, 70),
        type: 'convention',
        title: name,
        body: contentOf(groups[0]!.intro, true),
        tags,
      });
    }
    for (const group of groups) {
      const title = clauseTitle(group.text);
      addArtifact(ctx, {
        idBase: `${ctx.prefix}-conv-${sectionSlug === '' ? '' : `${sectionSlug}-`}${slugify(title, 40) || 'item'}`,
        type: 'convention',
        title,
        body: group.body,
        tags,
      });
    }
  }
}

const BOLD_LEAD = /^(\*\*|__)\S/;

interface BulletGroup {
  /** Text of the leading bullet (for the title). */
  text: string;
  /** The bullet plus any follower bullets and blocks attached to it. */
  body: string;
  /** Non-list content before this group's list (only kept for the first group). */
  intro: Token[];
}

/**
 * Top-level bullets of a section. In a list where some bullets open with a **bold
 * lead-in**, a bullet without one continues the bold bullet before it ("- Reasoning:
 * ..." under "- **Public API in main file**"). Blocks after a bullet (a code example,
 * a table) belong to it too.
 */
function bulletGroups(tokens: readonly Token[]): BulletGroup[] {
  const groups: BulletGroup[] = [];
  let pending: Token[] = [];
  for (const token of tokens) {
    if (token.type !== 'list') {
      if (groups.length > 0 && token.type !== 'space' && token.type !== 'hr' && !isHtmlComment(token)) {
        const last = groups[groups.length - 1]!;
        last.body = `${last.body}\n\n${token.raw.trim()}`;
      } else if (groups.length === 0) {
        pending.push(token);
      }
      continue;
    }
    const items = (token as Tokens.List).items;
    const boldLed = items.some((item) => BOLD_LEAD.test(listItemText(item)));
    for (const item of items) {
      const text = listItemText(item);
      const last = groups[groups.length - 1];
      if (boldLed && last && !BOLD_LEAD.test(text)) {
        last.body = `${last.body}\n- ${text.replace(/\n/g, '\n  ')}`;
        continue;
      }
      groups.push({ text, body: text, intro: groups.length === 0 ? pending : [] });
      pending = [];
    }
  }
  return groups;
}

// ---------------------------------------------------------------------------
// CONSTITUTION.md

function readConstitution(ctx: Context, tokens: readonly Token[]): void {
  for (const section of splitAtHeadings(tokens, 2, true)) {
    if (!section.heading || section.heading.depth < 2) {
      reportLooseText(ctx, section.tokens, 'preamble (framing text, not a rule)');
      continue;
    }
    const name = headingText(section.heading);
    const sectionSlug = slugify(name, 30);
    const tags = sectionSlug === '' ? [] : [sectionSlug];
    const rules: Tokens.ListItem[] = [];
    const other: Token[] = [];
    for (const token of section.tokens) {
      if (token.type === 'list') {
        const items = (token as Tokens.List).items;
        const checkboxes = items.filter((item) => item.task);
        if (checkboxes.length > 0) {
          rules.push(...checkboxes);
          continue;
        }
      }
      other.push(token);
    }
    if (rules.length === 0) {
      if (!hasContent(section.tokens)) continue;
      addArtifact(ctx, {
        idBase: slugId(`${ctx.prefix}-const`, sectionSlug || name, 70),
        type: 'constitution',
        title: name,
        body: contentOf(section.tokens, true),
        tags,
      });
      continue;
    }
    for (const item of rules) {
      const text = listItemText(item);
      const title = clauseTitle(text);
      addArtifact(ctx, {
        idBase: `${ctx.prefix}-const-${sectionSlug === '' ? '' : `${sectionSlug}-`}${slugify(title, 40) || 'rule'}`,
        type: 'constitution',
        title,
        body: text,
        tags,
      });
    }
    if (hasContent(other)) {
      ctx.skipped.push({
        where: ctx.at(other.find((token) => hasContent([token]))),
        reason: `text beside the checkbox rules of "${name}" (only the rules are imported)`,
      });
    }
  }
}

// ---------------------------------------------------------------------------
// ARCHITECTURE.md / GLOSSARY.md

function readNotes(ctx: Context, tokens: readonly Token[], kind: 'architecture' | 'glossary'): void {
  const prefix = `${ctx.prefix}-${kind === 'architecture' ? 'arch' : 'gloss'}`;
  const fallbackTitle = kind === 'architecture' ? 'Architecture' : 'Glossary';
  const h1 = tokens.find((token): token is Tokens.Heading => isHeading(token) && token.depth === 1);
  const docTitle = h1 ? headingText(h1) : fallbackTitle;
  for (const section of splitAtHeadings(tokens, 2, true)) {
    const heading = section.heading;
    const isTop = !heading || heading.depth < 2;
    if (!hasContent(section.tokens)) {
      if (heading && !isTop) {
        ctx.skipped.push({
          where: ctx.at(heading),
          reason: `empty section "${headingText(heading)}" (template placeholder)`,
        });
      }
      continue;
    }
    const name = heading && !isTop ? headingText(heading) : null;
    addArtifact(ctx, {
      idBase: name === null ? prefix : slugId(prefix, name, 60),
      type: 'note',
      title: name === null ? docTitle : `${docTitle}: ${name}`,
      body: contentOf(section.tokens, true),
      tags: [kind],
    });
  }
}

// ---------------------------------------------------------------------------

function addArtifact(
  ctx: Context,
  input: { idBase: string; type: ArtifactType; title: string; body: string; tags: string[] },
): void {
  ctx.artifacts.push({
    id: ctx.ids.next(input.idBase),
    type: input.type,
    scope: 'global',
    title: input.title,
    body: input.body,
    tags: input.tags,
    status: 'active',
    source: ctx.source,
  });
}

function reportLooseText(ctx: Context, tokens: readonly Token[], reason: string): void {
  const meaningful = tokens.filter((token) => !isHeading(token) || token.depth > 1);
  if (!hasContent(meaningful)) return;
  ctx.skipped.push({ where: ctx.at(meaningful.find((token) => token.type !== 'space' && !isHtmlComment(token))), reason });
}
