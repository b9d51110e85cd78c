/**
 * The fields of an artifact a person edits as a document, and what follows from them
 * without reading or writing the document (src/extension/artifactDocument.ts does that,
 * with the YAML library: it loads when a document is opened). vscode-free.
 */
import type { Artifact, ArtifactPatch } from '../core/model';
import { slugify as asciiSlug } from '../core/slug';

export interface DocumentFields {
  title: string;
  type: Artifact['type'];
  scope: Artifact['scope'];
  paths: string[];
  tags: string[];
  taskId: string | null;
  summary: string | null;
  body: string;
}

export function fieldsOf(artifact: Pick<Artifact, keyof DocumentFields>): DocumentFields {
  return {
    title: artifact.title,
    type: artifact.type,
    scope: artifact.scope,
    paths: [...artifact.paths],
    tags: [...artifact.tags],
    taskId: artifact.taskId,
    summary: artifact.summary,
    body: artifact.body,
  };
}

/** The fields that differ, as a store patch (empty when nothing changed). */
export function patchBetween(before: DocumentFields, after: DocumentFields): ArtifactPatch {
  const patch: ArtifactPatch = {};
  if (after.title !== before.title) patch.title = after.title;
  if (after.type !== before.type) patch.type = after.type;
  if (after.scope !== before.scope) patch.scope = after.scope;
  if (JSON.stringify(after.paths) !== JSON.stringify(before.paths)) patch.paths = after.paths;
  if (JSON.stringify(after.tags) !== JSON.stringify(before.tags)) patch.tags = after.tags;
  if (after.taskId !== before.taskId) patch.taskId = after.taskId;
  if (after.summary !== before.summary) patch.summary = after.summary;
  if (after.body !== before.body) patch.body = after.body;
  return patch;
}

/** A file-name-safe slug of a title: "ADR-002: Payments via Stripe" → "adr-002-payments-via-stripe"; "artifact" for a title with no ASCII letter. */
export function slugify(title: string): string {
  return asciiSlug(title) || 'artifact';
}

/** Starting text for a new module memory. */
export function moduleMemoryTemplate(folder: string): string {
  return [
    `What an agent must know before changing \`${folder}\`.`,
    '',
    '## Purpose',
    '',
    '## Key files',
    '',
    '## Invariants and gotchas',
    '',
  ].join('\n');
}
