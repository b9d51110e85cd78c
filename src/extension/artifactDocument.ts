/**
 * An artifact as an editable Markdown document: YAML front matter with the fields a
 * person edits (title, type, scope, paths, tags, summary), then the body. Saving the
 * document turns it back into a patch, which the store adds as a new version. vscode-free.
 */
import { parse, stringify } from 'yaml';
import { ARTIFACT_TYPES, isArtifactType, isScope, UserError } from '../core/model';
import type { DocumentFields } from './artifactFields';

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The document text: a commented front matter block, a blank line, then the body. */
export function renderArtifactDocument(fields: DocumentFields, note: string): string {
  const header: Record<string, unknown> = { title: fields.title, type: fields.type, scope: fields.scope };
  if (fields.scope === 'path' || fields.paths.length > 0) header.paths = fields.paths;
  if (fields.scope === 'task' || fields.taskId) header.task = fields.taskId;
  header.tags = fields.tags;
  if (fields.summary) header.summary = fields.summary;
  // Top level in block style, lists in flow style (`paths: [src/a/**, src/b/**]`): short and easy to edit.
  const yamlText = Object.entries(header)
    .map(([key, value]) =>
      Array.isArray(value)
        ? `${key}: ${stringify(value, { lineWidth: 0, flowCollectionPadding: false, collectionStyle: 'flow' }).trimEnd()}`
        : stringify({ [key]: value }, { lineWidth: 0 }).trimEnd(),
    )
    .join('\n');
  const comment = note
    .split('\n')
    .map((line) => `# ${line}`)
    .join('\n');
  return `---\n${comment}\n${yamlText}\n---\n\n${fields.body}`;
}

function stringArray(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' && typeof v !== 'number')) {
    throw new UserError(`"${field}" in the front matter must be a list, e.g. ${field}: [a, b].`);
  }
  return value.map(String);
}

/**
 * Reads a saved document back. Without front matter the whole text is the body and
 * the other fields stay as they were (`base`).
 */
export function parseArtifactDocument(text: string, base: DocumentFields): DocumentFields {
  const normalized = text.replace(/^\uFEFF/, '');
  const match = FRONT_MATTER.exec(normalized);
  if (!match) return { ...base, body: normalized };
  let header: unknown;
  try {
    header = parse(match[1]!) ?? {};
  } catch (error) {
    throw new UserError(`The front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`, 'Fix it, or delete the block between the --- lines to change only the body.');
  }
  if (typeof header !== 'object' || Array.isArray(header)) throw new UserError('The front matter must be a YAML mapping (title: ..., type: ...).');
  const h = header as Record<string, unknown>;
  const type = h.type ?? base.type;
  if (!isArtifactType(type)) throw new UserError(`Unknown type ${JSON.stringify(type)} in the front matter.`, `Use one of: ${ARTIFACT_TYPES.join(', ')}.`);
  const scope = h.scope ?? base.scope;
  if (!isScope(scope)) throw new UserError(`Unknown scope ${JSON.stringify(scope)} in the front matter.`, 'Use global, task or path.');
  const title = h.title === undefined ? base.title : scalarText(h.title).trim();
  if (title === '') throw new UserError('The title in the front matter is empty.');
  const task = h.task === undefined ? base.taskId : h.task === null ? null : scalarText(h.task);
  const summary = h.summary === undefined ? null : h.summary === null ? null : scalarText(h.summary);
  let body = normalized.slice(match[0].length);
  // renderArtifactDocument puts one blank line after the front matter; it is not part of the body.
  body = body.replace(/^\r?\n/, '');
  return {
    title,
    type,
    scope,
    paths: h.paths === undefined ? (scope === 'path' ? base.paths : []) : stringArray(h.paths, 'paths'),
    tags: h.tags === undefined ? base.tags : stringArray(h.tags, 'tags'),
    taskId: scope === 'task' ? task : null,
    summary,
    body,
  };
}

/** YAML scalars only: a nested mapping in a title is a mistake the user should see, not "[object Object]". */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') throw new UserError('A front matter field that should be text holds a list or mapping.', 'Quote the value if it contains ":" or starts with "[" or "{".');
  return typeof value === 'string' ? value : JSON.stringify(value);
}
