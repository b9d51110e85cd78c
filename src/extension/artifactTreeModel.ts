/**
 * The artifact browser's structure, vscode-free: artifacts grouped by scope, then (where a scope
 * holds more than one type) by type, filtered by type, status and text. The tree provider only
 * turns these into TreeItems.
 */
import { ARTIFACT_TYPES, type Artifact, type ArtifactStatus, type ArtifactType, type Scope, SCOPES } from '../core/model';
import { searchArtifacts } from '../core/search';

export const SCOPE_LABELS: Readonly<Record<Scope, string>> = {
  global: 'Global',
  task: 'Task',
  path: 'Path',
};

export const SCOPE_ICONS: Readonly<Record<Scope, string>> = {
  global: 'globe',
  task: 'tasklist',
  path: 'folder-library',
};

export const TYPE_LABELS: Readonly<Record<ArtifactType, { one: string; many: string }>> = {
  constitution: { one: 'Rule', many: 'Rules' },
  adr: { one: 'ADR', many: 'ADRs' },
  pattern: { one: 'Pattern', many: 'Patterns' },
  plan: { one: 'Plan', many: 'Plans' },
  module_memory: { one: 'Module memory', many: 'Module memories' },
  convention: { one: 'Convention', many: 'Conventions' },
  decision: { one: 'Decision', many: 'Decisions' },
  learning: { one: 'Learning', many: 'Learnings' },
  research: { one: 'Research finding', many: 'Research' },
  dependency: { one: 'Dependency', many: 'Dependencies' },
  changelog: { one: 'Changelog entry', many: 'Changelog' },
  note: { one: 'Note', many: 'Notes' },
};

/** Codicon ids, one per type. */
export const TYPE_ICONS: Readonly<Record<ArtifactType, string>> = {
  constitution: 'law',
  adr: 'milestone',
  pattern: 'symbol-class',
  plan: 'checklist',
  module_memory: 'symbol-module',
  convention: 'symbol-ruler',
  decision: 'git-merge',
  learning: 'lightbulb',
  research: 'beaker',
  dependency: 'package',
  changelog: 'history',
  note: 'note',
};

export const TYPE_DESCRIPTIONS: Readonly<Record<ArtifactType, string>> = {
  constitution: 'A rule that is always in the context',
  adr: 'An architecture decision record',
  pattern: 'How something is done here, with an example',
  plan: 'What is planned and in what order',
  module_memory: 'What to know before changing a folder',
  convention: 'A naming, style or testing habit',
  decision: 'A product or technical decision',
  learning: 'Something learned the hard way',
  research: "An investigation's conclusions, with where they came from; ages faster than a decision",
  dependency: 'A library or service and how it is used',
  changelog: 'What changed in a release',
  note: 'Anything else worth remembering',
};

export interface ArtifactFilterState {
  /** Empty: every type. */
  types: ArtifactType[];
  /** Empty: every status. The default shows active artifacts only. */
  statuses: ArtifactStatus[];
  text: string;
}

export const DEFAULT_FILTER: ArtifactFilterState = { types: [], statuses: ['active'], text: '' };

export function isDefaultFilter(filter: ArtifactFilterState): boolean {
  return (
    filter.types.length === 0 &&
    filter.text.trim() === '' &&
    filter.statuses.length === DEFAULT_FILTER.statuses.length &&
    filter.statuses.every((s) => DEFAULT_FILTER.statuses.includes(s))
  );
}

export function describeFilter(filter: ArtifactFilterState): string {
  const parts: string[] = [];
  if (filter.types.length > 0) parts.push(filter.types.map((t) => TYPE_LABELS[t].many).join(', '));
  if (filter.statuses.length > 0 && !(filter.statuses.length === 1 && filter.statuses[0] === 'active')) parts.push(filter.statuses.join(', '));
  if (filter.statuses.length === 0) parts.push('all statuses');
  if (filter.text.trim() !== '') parts.push(`"${filter.text.trim()}"`);
  return parts.join(' · ');
}

/** The artifacts the filter shows: of its types and statuses, matching its text as the ledger's one search does (src/core/search.ts). */
export function filterArtifacts(artifacts: readonly Artifact[], filter: ArtifactFilterState): Artifact[] {
  const kept = artifacts.filter(
    (a) => (filter.types.length === 0 || filter.types.includes(a.type)) && (filter.statuses.length === 0 || filter.statuses.includes(a.status)),
  );
  return searchArtifacts(kept, filter.text).artifacts;
}

export interface TypeGroup {
  type: ArtifactType;
  artifacts: Artifact[];
}

export interface ScopeGroup {
  scope: Scope;
  types: TypeGroup[];
  count: number;
}

/** Pinned first, then by title; ids break ties so the order is stable. */
function compareArtifacts(a: Artifact, b: Artifact): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  const byTitle = a.title.localeCompare(b.title, 'en', { numeric: true, sensitivity: 'base' });
  return byTitle !== 0 ? byTitle : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Scopes in a fixed order (global, task, path), types in priority order; empty groups left out. */
export function groupArtifacts(artifacts: readonly Artifact[], filter: ArtifactFilterState): ScopeGroup[] {
  const groups: ScopeGroup[] = [];
  const shown = filterArtifacts(artifacts, filter);
  for (const scope of SCOPES) {
    const inScope = shown.filter((a) => a.scope === scope);
    if (inScope.length === 0) continue;
    const types: TypeGroup[] = [];
    for (const type of ARTIFACT_TYPES) {
      const ofType = inScope.filter((a) => a.type === type).sort(compareArtifacts);
      if (ofType.length > 0) types.push({ type, artifacts: ofType });
    }
    groups.push({ scope, types, count: inScope.length });
  }
  return groups;
}

/**
 * Text as a row or a label shows it (plain, not Markdown): code spans (`npm test`) lose their
 * backticks, bold and `<b>` their marks, a link `[text](target)` becomes its text.
 */
export function displayTitle(title: string): string {
  return title
    .replace(/(`+)([^`]+?)\1/g, '$2')
    .replace(/(\*\*|__)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/<(b|strong)>(.*?)<\/\1>/gi, '$2')
    .replace(/\[([^\]\n]+)\]\([^)\n]+\)/g, '$1');
}

/**
 * Prose for tree rows, which VS Code cuts at the side bar's edge: the words in rows of at most
 * `width` characters, at most `rows` of them (the last ends with "…" when more was left out).
 */
export function wrapForRows(text: string, width = 36, rows = 4): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) out.push(line);
  if (out.length <= rows) return out;
  const kept = out.slice(0, rows);
  kept[rows - 1] = `${kept[rows - 1]!.slice(0, width - 1)}…`;
  return kept;
}

/**
 * The rows under a scope: its artifacts themselves when it holds one type (the row's icon and
 * the scope's description name it), else one row per type. A side bar is about 300 px wide and
 * each level of a tree takes room from the titles.
 */
export function scopeShowsTypes(group: ScopeGroup): boolean {
  return group.types.length > 1;
}

/** A scope row's description: its count, and its one type when the type rows are left out. */
export function scopeDescription(group: ScopeGroup): string {
  return scopeShowsTypes(group) || group.types.length === 0 ? String(group.count) : `${group.count} · ${TYPE_LABELS[group.types[0]!.type].many}`;
}

/**
 * The short description next to an artifact's title: only what a user looks for at a glance (a
 * conflict, possibly stale, a version after the first, not active). Its tokens and paths are in
 * the tooltip: in a side bar of about 300 px, a title of 30 characters leaves no room for them,
 * and VS Code then cuts the title too.
 */
export function artifactDescription(artifact: Artifact, flags: { conflict?: boolean; stale?: boolean } = {}): string {
  const parts: string[] = [];
  if (flags.conflict) parts.push('conflict');
  if (flags.stale) parts.push('possibly stale');
  if (artifact.version > 1) parts.push(`v${artifact.version}`);
  if (artifact.status !== 'active') parts.push(artifact.status);
  return parts.join(' · ');
}

/** A short plain preview of a body for the tooltip: first paragraphs, cut at a word. */
export function bodyPreview(body: string, maxChars = 600): string {
  const trimmed = body.trim();
  if (trimmed.length <= maxChars) return trimmed;
  const cut = trimmed.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
