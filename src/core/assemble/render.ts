import { type Artifact, UNREVIEWED_MARKER, UNREVIEWED_NOTE, artifactUrn, foldText, oneLine, typeLabel as typeName } from '../model';
import { isUnreviewed } from '../review';
import { parseSectionRef } from '../sections';
import { cutAtGrapheme } from './preview';
import type { Layer } from './types';

/** Section headings, in the order sections appear. */
export const SECTION_TITLES = {
  brief: '## Task',
  rules: '## Rules',
  pinned: '## Pinned',
  task: '## Task knowledge',
  path: '## Knowledge for the files in play',
  global: '## Project knowledge',
  workflow: '## Workflow so far',
  instructions: '## Recording what you learn',
  diagnostics: '## Problems the editor reports',
  logs: '## What just failed (logs)',
  code: '## Code in play',
  git: '## Recent changes (git)',
  docs: '## Workspace docs',
  deployment: '## Deployment and environment',
  conversation: '## Conversation',
  noted: '## Also noted (full text: ledger://artifact/<id>)',
} as const;
export type SectionKey = keyof typeof SECTION_TITLES;

export const SECTION_ORDER: readonly SectionKey[] = [
  'brief', 'rules', 'pinned', 'task', 'path', 'global',
  // Live sources: what the workspace says now, after what the ledger says was decided.
  'logs', 'diagnostics', 'code', 'git', 'docs', 'deployment', 'conversation',
  'workflow', 'instructions', 'noted',
];

export function sectionFor(layer: Layer, artifact: Artifact): SectionKey {
  if (layer === 'fixed') return artifact.type === 'constitution' ? 'rules' : 'pinned';
  if (layer === 'task' || layer === 'path' || layer === 'global') return layer;
  return layer;
}

/**
 * Nests a body's Markdown headings under the item's own `###`: the body's top heading level
 * becomes `####` and the rest keep their steps below it (capped at six), so a body that
 * starts at `###` does not jump from H3 to H6. Fenced code is left alone: a `#` there is a
 * comment.
 */
export function demoteHeadings(body: string): string {
  if (!body.includes('#')) return body;
  const lines = body.split('\n');
  const headings: { index: number; indent: string; level: number; rest: string }[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^( {0,3})(#{1,6})(?=\s|$)/.exec(line);
    if (heading) headings.push({ index: i, indent: heading[1]!, level: heading[2]!.length, rest: line.slice(heading[0].length) });
  }
  if (headings.length === 0) return body;
  const shift = 4 - Math.min(...headings.map((h) => h.level));
  for (const h of headings) lines[h.index] = h.indent + '#'.repeat(Math.min(6, Math.max(4, h.level + shift))) + h.rest;
  return lines.join('\n');
}

/** Drops blank lines at either end; the body inside stays byte-for-byte (after heading demotion). */
export function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/(?:\r?\n[ \t]*)+$/, '').replace(/\s+$/, '');
}

function typeLabel(artifact: Artifact): string {
  return typeName(artifact.type);
}

/**
 * The task brief at its two levels: one line (when the budget is tight) and in full.
 * The task is said once: a task with only a description shows the description alone
 * (its first line stands in for the title when only one line fits), and a description
 * that already starts with the title is not preceded by it again.
 */
export function taskBrief(title: string, description: string, meta: string): { title: string; full: string } {
  const head = oneLine(title);
  const body = description.trim();
  const line = head !== '' ? head : oneLine(cutAtGrapheme(body.split('\n', 1)[0]!, 120));
  const repeats = head === '' || (body !== '' && foldText(body).startsWith(foldText(head)));
  const full = [repeats ? '' : head, body, meta].filter(Boolean).join('\n\n');
  return { title: line, full };
}

function marked(artifact: Artifact, title: string): string {
  return isUnreviewed(artifact) ? `${UNREVIEWED_MARKER} ${oneLine(title)}` : oneLine(title);
}

function note(artifact: Artifact): string {
  return isUnreviewed(artifact) ? ` · ${UNREVIEWED_NOTE}` : '';
}

/**
 * An artifact given whole: its heading says what it is and what kind, nothing more. Its id
 * is not repeated under it: at a tight budget the knowledge is made of many short sections,
 * and a line of type and URN under each cost a quarter of a 2,000-token context (measured,
 * docs/benchmarks.md). The agent tools take the title as the context shows it wherever they
 * take an id (`LedgerStore.findArtifact`), and MCP's build_context returns each item's link beside the text.
 * A section of a longer artifact keeps its URN: it is the way to the rest of the artifact.
 */
export function fullBlock(artifact: Artifact, title: string, body: string): string {
  const { section } = parseSectionRef(artifact.id);
  const where = section === undefined ? '' : `\n${artifactUrn(artifact.id)}`;
  const head = `### ${marked(artifact, title)} · ${typeLabel(artifact)}${note(artifact)}${where}`;
  return body === '' ? head : `${head}\n\n${body}`;
}

/** An artifact whose full text did not fit, compressed (headings and the sentences that matter to the task). */
export function compressedBlock(artifact: Artifact, title: string, body: string, how: { level: string; ratio: number; tokensBefore: number }): string {
  const unreviewed = isUnreviewed(artifact) ? ` (${UNREVIEWED_NOTE})` : '';
  const what = `compressed (${how.level}) to ${Math.round(how.ratio * 100)}% of ${how.tokensBefore} tokens`;
  return `### ${marked(artifact, title)}\n${typeLabel(artifact)}${unreviewed}, ${what} (full: ${artifactUrn(artifact.id)})\n\n${body}`;
}

export function previewBlock(artifact: Artifact, title: string, preview: string): string {
  const lead = preview === '' ? '' : `${preview} `;
  const unreviewed = isUnreviewed(artifact) ? ` (${UNREVIEWED_NOTE})` : '';
  return `### ${marked(artifact, title)}\n${typeLabel(artifact)}${unreviewed}, preview: ${lead}(full: ${artifactUrn(artifact.id)})`;
}

export function titleLine(artifact: Artifact, title: string): string {
  // The URN, not the bare id: it is what get_artifact and the resource template take, and what the heading promises.
  return `- ${marked(artifact, title)} (${typeLabel(artifact)}) ${artifactUrn(artifact.id)}`;
}

export interface RenderedSection {
  key: SectionKey;
  blocks: string[];
}

/** Sections in their fixed order, each heading followed by its blocks; empty sections are left out. */
export function renderDocument(sections: ReadonlyMap<SectionKey, string[]>): string {
  const parts: string[] = [];
  for (const key of SECTION_ORDER) {
    const blocks = sections.get(key);
    if (!blocks || blocks.length === 0) continue;
    // Title lines are a list: one line each, no blank line between them.
    const joined = key === 'noted' ? blocks.join('\n') : blocks.join('\n\n');
    parts.push(`${SECTION_TITLES[key]}\n\n${joined}`);
  }
  return parts.length === 0 ? '' : `${parts.join('\n\n')}\n`;
}
