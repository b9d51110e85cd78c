import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ARTIFACT_TYPES,
  type Artifact,
  type ArtifactInput,
  type ArtifactPatch,
  artifactUrn,
  idFromRef,
  isArtifactType,
  isScope,
  isStatus,
  UserError,
} from '../core/model';
import { newVersion, restoreVersion, supersedeChain } from '../core/artifactService';
import { searchArtifacts } from '../core/search';
import { describeMissingSection, resolveSectionRef } from '../core/sections';
import { MAX_BODY_BYTES, type ArtifactFilter } from '../core/store';
import { readStdin, readTextFile } from '../node/files';
import { integerOption, listOfValues, type OptionSpecs, stringOption } from './args';
import { addArtifact, type Command, type CommandContext, databasePath, isJson, printJson, withRead, withWrite } from './commandContext';

const ID_OPTION: OptionSpecs = { id: { type: 'string', description: 'An id of your own (default: the type and a time-ordered random id, unique across machines).' } };

const ARTIFACT_FIELD_OPTIONS: OptionSpecs = {
  type: { type: 'string', description: `Artifact type: ${ARTIFACT_TYPES.join(', ')}.` },
  scope: { type: 'string', value: 'global|task|path', description: 'Where it applies (default: global; path needs --path, task needs --task).' },
  title: { type: 'string', description: 'A short title (required for add).' },
  body: { type: 'string', value: 'markdown', description: 'The body as text.' },
  'body-file': { type: 'string', value: 'file|-', description: 'Read the body from a UTF-8 file, or from standard input with "-".' },
  path: { type: 'string', multiple: true, value: 'glob', description: 'A workspace path glob it applies to (path scope); repeat or comma-separate.' },
  tag: { type: 'string', multiple: true, description: 'A tag; repeat or comma-separate.' },
  task: { type: 'string', value: 'task-id', description: 'The task it belongs to (task scope).' },
  summary: { type: 'string', description: 'An optional short form used in previews.' },
  source: { type: 'string', description: 'Who or what wrote it (default: user).' },
  pinned: { type: 'boolean', description: 'Always include it in the fixed tier.' },
};

async function bodyFromOptions(context: CommandContext): Promise<string | undefined> {
  const inline = stringOption(context.options, 'body');
  const file = stringOption(context.options, 'body-file');
  if (inline !== undefined && file !== undefined) throw new UserError('Give the body with --body or --body-file, not both.');
  if (file === '-') return readStdin(MAX_BODY_BYTES + 1);
  if (file !== undefined) return readTextFile(path.resolve(context.cwd, file), MAX_BODY_BYTES);
  return inline;
}

function checkedType(value: string | undefined): ArtifactInput['type'] | undefined {
  if (value === undefined) return undefined;
  if (!isArtifactType(value)) throw new UserError(`Unknown type "${value}".`, `Use one of: ${ARTIFACT_TYPES.join(', ')}.`);
  return value;
}

function checkedScope(value: string | undefined): ArtifactInput['scope'] | undefined {
  if (value === undefined) return undefined;
  if (!isScope(value)) throw new UserError(`Unknown scope "${value}".`, 'Use one of: global, task, path.');
  return value;
}

async function patchFromOptions(context: CommandContext): Promise<ArtifactPatch> {
  const { options } = context;
  const patch: ArtifactPatch = {};
  const type = checkedType(stringOption(options, 'type'));
  if (type) patch.type = type;
  const scope = checkedScope(stringOption(options, 'scope'));
  if (scope) patch.scope = scope;
  const title = stringOption(options, 'title');
  if (title !== undefined) patch.title = title;
  const body = await bodyFromOptions(context);
  if (body !== undefined) patch.body = body;
  if (options.path !== undefined) patch.paths = listOfValues(options, 'path');
  if (options.tag !== undefined) patch.tags = listOfValues(options, 'tag');
  const task = stringOption(options, 'task');
  if (task !== undefined) patch.taskId = task;
  const summary = stringOption(options, 'summary');
  if (summary !== undefined) patch.summary = summary;
  const source = stringOption(options, 'source');
  if (source !== undefined) patch.source = source;
  if (options.pinned === true) patch.pinned = true;
  return patch;
}

function shortDate(iso: string): string {
  return iso.slice(0, 10);
}

function truncate(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}

function describeArtifact(a: Artifact): string {
  const flags = [a.status !== 'active' ? a.status : '', a.pinned ? 'pinned' : ''].filter(Boolean).join(', ');
  return [
    `${a.title}`,
    `  id:       ${a.id}  (${artifactUrn(a.id)})`,
    `  type:     ${a.type}   scope: ${a.scope}${a.scope === 'path' ? ` ${a.paths.join(', ')}` : ''}${a.taskId ? `   task: ${a.taskId}` : ''}`,
    `  version:  ${a.version} of chain ${a.chainId}${flags ? `   [${flags}]` : ''}${a.supersedes ? `   supersedes: ${a.supersedes}` : ''}`,
    `  tags:     ${a.tags.join(', ') || '-'}   source: ${a.source}   updated: ${a.updatedAt}`,
  ].join('\n');
}

function artifactTable(artifacts: readonly Artifact[]): string {
  if (artifacts.length === 0) return 'No artifacts.';
  const idWidth = Math.min(40, Math.max(2, ...artifacts.map((a) => a.id.length)));
  const header = `${'ID'.padEnd(idWidth)}  ${'TYPE'.padEnd(13)}  ${'SCOPE'.padEnd(6)}  ${'STATUS'.padEnd(10)}  V   UPDATED     TITLE`;
  const rows = artifacts.map(
    (a) =>
      `${truncate(a.id, idWidth).padEnd(idWidth)}  ${a.type.padEnd(13)}  ${a.scope.padEnd(6)}  ${(a.status + (a.pinned ? '*' : '')).padEnd(10)}  ${String(a.version).padEnd(3)} ${shortDate(a.updatedAt)}  ${truncate(a.title, 60)}`,
  );
  return [header, ...rows].join('\n');
}

const initCommand: Command = {
  name: 'init',
  summary: 'Create an empty ledger database (or check an existing one).',
  usage: 'context-ledger init [--db <file>]',
  options: {},
  async run(context) {
    const { file } = databasePath(context);
    const existed = fs.existsSync(file);
    const counts = await withWrite(context, (store) => store.countArtifacts());
    if (isJson(context)) return printJson(context, { db: file, created: !existed, ...counts });
    context.out(existed ? `Ledger already exists at ${file} (${counts.chains} artifacts).` : `Created an empty ledger at ${file}.`);
  },
};

const addCommand: Command = {
  name: 'add',
  summary: 'Add an artifact (a decision, learning, rule, module note, ...).',
  usage: 'context-ledger add --type <type> --title <text> (--body <text> | --body-file <file|->) [options]',
  options: { ...ARTIFACT_FIELD_OPTIONS, ...ID_OPTION },
  details: 'Example: context-ledger add --type decision --title "Use sql.js" --body "Because it needs no native build."',
  async run(context) {
    const patch = await patchFromOptions(context);
    if (!patch.type) throw new UserError('Missing --type.', `Use one of: ${ARTIFACT_TYPES.join(', ')}.`);
    if (!patch.title) throw new UserError('Missing --title.');
    if (patch.body === undefined) throw new UserError('Missing the body.', 'Give it with --body "<text>" or --body-file <file> (or - for standard input).');
    const input: ArtifactInput = { ...patch, type: patch.type, title: patch.title, body: patch.body, id: stringOption(context.options, 'id') };
    const created = await addArtifact(context, input);
    if (isJson(context)) return printJson(context, created);
    context.out(`Added ${created.type} ${created.id}: ${created.title}`);
  },
};

const listCommand: Command = {
  name: 'list',
  summary: 'List artifacts (the latest version of each), newest first; with --text, the ones matching it, title matches first.',
  usage: 'context-ledger list [--type <type>] [--scope <scope>] [--status <status>] [--tag <tag>] [--text <text>] [--all-versions]',
  options: {
    type: { type: 'string', description: 'Only this type.' },
    scope: { type: 'string', description: 'Only this scope.' },
    status: { type: 'string', value: 'active|superseded|archived', description: 'Only this status.' },
    tag: { type: 'string', description: 'Only artifacts with this tag.' },
    text: { type: 'string', description: 'Only artifacts matching these words (title, body, tags, paths, id; as search_artifacts: docs/cli.md, "Searching").' },
    task: { type: 'string', value: 'task-id', description: 'Only artifacts of this task.' },
    'all-versions': { type: 'boolean', description: 'Every version, not only the latest of each chain.' },
    limit: { type: 'string', value: 'n', description: 'At most n rows.' },
  },
  async run(context) {
    const { options } = context;
    const status = stringOption(options, 'status');
    if (status !== undefined && !isStatus(status)) throw new UserError(`Unknown status "${status}".`, 'Use one of: active, superseded, archived.');
    const filter: ArtifactFilter = {
      type: checkedType(stringOption(options, 'type')),
      scope: checkedScope(stringOption(options, 'scope')),
      status: status,
      tag: stringOption(options, 'tag'),
      taskId: stringOption(options, 'task'),
      allVersions: options['all-versions'] === true,
    };
    const limit = options.limit !== undefined ? integerOption(options, 'limit', 0) : undefined;
    const text = stringOption(options, 'text');
    // With --text, the matches in the search's order (src/core/search.ts); the limit applies to them.
    const found = await withRead(context, (store) =>
      text === undefined ? store.listArtifacts({ ...filter, limit }) : searchArtifacts(store.listArtifacts(filter), text).artifacts.slice(0, limit),
    );
    if (isJson(context)) return printJson(context, found.map((a) => ({ ...a, body: undefined, bodyChars: a.body.length })));
    context.out(artifactTable(found));
  },
};

const showCommand: Command = {
  name: 'show',
  summary: 'Show one artifact in full, by id, URN (ledger://artifact/<id>) or title as a built context shows it, or one section of it (<id>#<section>).',
  usage: 'context-ledger show <id|urn|title>[#<section>]',
  options: {},
  positionals: [1, 1],
  async run(context) {
    const { artifact, latest, section } = await withRead(context, (store) => {
      const ref = idFromRef(context.positionals[0]!);
      // A whole item's heading in a built context is its title (no id under it), so a title names it too.
      const resolved = resolveSectionRef(ref, (id) => store.findArtifact(id));
      // Not found whole, by title or by section: the store's own error (it knows ADR references and says what to try).
      const found = resolved.artifact ?? store.requireArtifact(ref);
      if (resolved.missing) throw new UserError(describeMissingSection(artifactUrn(found.id), resolved.missing), `Show the whole artifact with: context-ledger show ${found.id}`);
      return { artifact: found, latest: store.latestOfChain(found.chainId)!, section: resolved.section };
    });
    if (section) {
      if (isJson(context)) return printJson(context, { id: artifact.id, section: section.slug, heading: section.heading, text: section.text });
      context.out(`${describeArtifact(artifact)}\n  section:  ${section.heading || 'introduction'} (${artifactUrn(artifact.id)}#${section.slug})\n\n${section.text}`);
      return;
    }
    if (isJson(context)) return printJson(context, artifact);
    const newer = latest.id !== artifact.id ? `\n  newer:    version ${latest.version} is the latest (context-ledger show ${latest.id})` : '';
    // The formats module brings the YAML and Markdown parsers: loaded only for show, not at every start.
    const { linkOf } = await import('../core/formats/linked.js');
    const link = linkOf(artifact);
    const linked = link ? `\n  from:     ${link.file}${link.detached ? `, detached: ${link.detached.reason}` : ''}` : '';
    context.out(`${describeArtifact(artifact)}${linked}${newer}\n\n${artifact.body}`);
  },
};

const updateCommand: Command = {
  name: 'update',
  summary: 'Change an artifact: adds a new version to its chain and keeps the old one.',
  usage: 'context-ledger update <id|urn> [--title ...] [--body ... | --body-file ...] [--tag ...] [--path ...] [...]',
  options: ARTIFACT_FIELD_OPTIONS,
  positionals: [1, 1],
  async run(context) {
    const patch = await patchFromOptions(context);
    if (Object.keys(patch).length === 0) throw new UserError('Nothing to change.', 'Pass at least one of --title, --body, --body-file, --tag, --path, --type, --scope, --summary.');
    const ref = context.positionals[0]!;
    const { changed, artifact: updated } = await withWrite(context, (store) => newVersion(store, ref, { patch }), false);
    if (isJson(context)) return printJson(context, updated);
    context.out(
      !changed
        ? `No change: ${updated.id} already has that content.`
        : `Updated ${updated.chainId}: version ${updated.version} is ${updated.id}.`,
    );
  },
};

const supersedeCommand: Command = {
  name: 'supersede',
  summary: 'Mark an artifact superseded: by an existing one (--by), or by a new one you describe.',
  usage: 'context-ledger supersede <old id|urn> (--by <id|urn> | --type ... --title ... --body ...)',
  options: { by: { type: 'string', value: 'id|urn', description: 'The artifact that replaces it.' }, ...ARTIFACT_FIELD_OPTIONS, ...ID_OPTION },
  positionals: [1, 1],
  async run(context) {
    const oldRef = context.positionals[0]!;
    const by = stringOption(context.options, 'by');
    let result: { superseded: Artifact; by: Artifact };
    if (by) {
      result = await withWrite(context, (store) => supersedeChain(store, oldRef, { by }), false);
    } else {
      const patch = await patchFromOptions(context);
      if (!patch.title || patch.body === undefined) {
        throw new UserError('Say what replaces it.', 'Pass --by <id>, or --title and --body (and optionally --type) for a new artifact.');
      }
      result = await withWrite(
        context,
        (store) => {
          const old = store.requireArtifact(oldRef);
          const id = stringOption(context.options, 'id');
          return supersedeChain(store, oldRef, { input: { ...patch, id, type: patch.type ?? old.type, title: patch.title!, body: patch.body! } });
        },
        false,
      );
    }
    if (isJson(context)) return printJson(context, result);
    context.out(`${result.superseded.chainId} is now superseded by ${result.by.id}: ${result.by.title}`);
  },
};

const archiveCommand: Command = {
  name: 'archive',
  summary: 'Archive an artifact: kept, but no longer given to agents.',
  usage: 'context-ledger archive <id|urn>',
  options: {},
  positionals: [1, 1],
  async run(context) {
    const archived = await withWrite(context, (store) => store.archive(context.positionals[0]!), false);
    if (isJson(context)) return printJson(context, archived);
    context.out(`Archived ${archived.chainId}: ${archived.title}`);
  },
};

const deleteCommand: Command = {
  name: 'delete',
  summary: 'Delete an artifact for good: its whole chain, or one version with --version-only.',
  usage: 'context-ledger delete <id|urn> [--version-only]',
  options: { 'version-only': { type: 'boolean', description: 'Delete only this version, keep the rest of the chain.' } },
  positionals: [1, 1],
  async run(context) {
    const removed = await withWrite(
      context,
      (store) => store.deleteArtifact(context.positionals[0]!, { versionOnly: context.options['version-only'] === true }),
      false,
    );
    if (isJson(context)) return printJson(context, { deleted: removed });
    context.out(`Deleted ${removed} version${removed === 1 ? '' : 's'}.`);
  },
};

const pinCommand: Command = {
  name: 'pin',
  summary: 'Pin an artifact so it is always in the context (or unpin it with --off).',
  usage: 'context-ledger pin <id|urn> [--off]',
  options: { off: { type: 'boolean', description: 'Unpin instead.' } },
  positionals: [1, 1],
  async run(context) {
    const pinned = await withWrite(context, (store) => store.setPinned(context.positionals[0]!, context.options.off !== true), false);
    if (isJson(context)) return printJson(context, pinned);
    context.out(`${pinned.pinned ? 'Pinned' : 'Unpinned'} ${pinned.chainId}: ${pinned.title}`);
  },
};

const historyCommand: Command = {
  name: 'history',
  summary: 'Show every version of an artifact chain, oldest first.',
  usage: 'context-ledger history <id|urn>',
  options: {},
  positionals: [1, 1],
  async run(context) {
    const versions = await withRead(context, (store) => store.history(context.positionals[0]!));
    if (isJson(context)) return printJson(context, versions);
    const lines = versions.map((v) => `v${v.version}  ${v.id}  ${v.updatedAt}  ${v.status}${v.pinned ? ' pinned' : ''}  ${truncate(v.title, 70)}${v.author !== undefined ? `  by ${v.author}` : ''}`);
    if (versions.length > 1) lines.push('', 'Bring an older version back with `context-ledger revert <id>`.');
    context.out(lines.join('\n'));
  },
};

const revertCommand: Command = {
  name: 'revert',
  summary: 'Bring an older version back: it becomes the newest version of its chain, and nothing is lost.',
  usage: 'context-ledger revert <id of an older version>',
  details: 'Find the version with `context-ledger history <id>`. The versions in between stay in the history; status and pin stay as they are.',
  options: {},
  positionals: [1, 1],
  async run(context) {
    const restored = await withWrite(context, (store) => restoreVersion(store, context.positionals[0]!), false);
    if (isJson(context)) return printJson(context, restored);
    context.out(`Reverted ${restored.chainId} to the content of ${context.positionals[0]!}: now v${restored.version} (${restored.id}).`);
  },
};

/**
 * `restore` brought back the database's backup when the database was where a write was first
 * saved. It is the index now (docs/storage.md): the command stays only to say what to do instead.
 */
const restoreCommand: Command = {
  name: 'restore',
  summary: 'Gone: the database is an index of the artifact files; this says what to do instead.',
  usage: 'context-ledger restore [--db <file>]',
  options: {},
  run() {
    throw new UserError(
      'There is no backup to restore any more: in a workspace the ledger is its artifact files (.context-ledger/artifacts/) and the database is only their index.',
      'A damaged database is moved aside and rebuilt from the files by the next command; to rebuild it yourself, delete .context-ledger/ledger.db ' +
        '(this machine\'s tasks, file activity, feedback and build log go with it). To go back to an earlier version of an artifact: ' +
        '`context-ledger history <id>` and `context-ledger revert <version-id>`, or git. A ledger outside a workspace (--db) is backed up by ' +
        '`context-ledger export --format jsonl` and brought back by `import`.',
    );
  },
};

import { countCommand, exportCommand, importCommand } from './exchangeCommands';
import { taskCommand } from './taskCommand';

export { IMPORT_FORMAT_NAMES } from './exchangeCommands';

export const BASE_COMMANDS: readonly Command[] = [
  initCommand,
  addCommand,
  listCommand,
  showCommand,
  updateCommand,
  supersedeCommand,
  archiveCommand,
  deleteCommand,
  pinCommand,
  historyCommand,
  revertCommand,
  importCommand,
  exportCommand,
  countCommand,
  restoreCommand,
  taskCommand,
];

export { type Command, type CommandContext, withRead, withWrite, isJson, printJson, openSession, databasePath, workspaceOf } from './commandContext';
