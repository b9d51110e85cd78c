import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Artifact } from '../core/model';
import { newVersion, supersedeChain } from '../core/artifactService';
import { type DocumentFields, fieldsOf, patchBetween, slugify } from './artifactFields';
import { DisposableBase } from './disposable';
import { LEDGER_SCHEME } from './ids';
import { lazily } from './lazy';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';

/** The document's text and its parse (with the YAML library) load when the first artifact is opened. */
const documentCode = lazily(() => import('./artifactDocument.js'));

const EDIT_NOTE = 'Edit the fields and the body, then save (Ctrl+S): the save becomes a new version; the old one is kept.';
const VERSION_NOTE = 'An older version, read-only. To bring it back, use Restore on it in the Artifacts view: it becomes the newest version, nothing is lost.';
const DRAFT_NOTE = 'A new artifact: fill in the fields and the body, then save (Ctrl+S) to add it to the ledger.';
const SUPERSEDE_NOTE = 'The replacement: edit it, then save (Ctrl+S). The save adds it and marks the old artifact superseded.';

interface Draft {
  folder: vscode.WorkspaceFolder;
  fields: DocumentFields;
  created: number;
  /** Set once the draft was saved: later saves update this chain. */
  chainId?: string;
  /** The artifact this draft replaces: its first save supersedes that chain. */
  supersedes?: string;
}

type Target =
  | { kind: 'chain'; folder: vscode.WorkspaceFolder; chainId: string }
  | { kind: 'version'; folder: vscode.WorkspaceFolder; id: string }
  | { kind: 'draft'; folder: vscode.WorkspaceFolder; key: string; draft: Draft };

export function folderKey(folder: vscode.WorkspaceFolder): string {
  return createHash('sha256').update(folder.uri.toString()).digest('hex').slice(0, 8);
}

function segment(text: string): string {
  return encodeURIComponent(text);
}

/**
 * Artifacts as editable Markdown documents under `ledger://<folder>/<chain>/<slug>.md`.
 * Saving one adds a new version to its chain (the old one is kept); an older version
 * (`.../<chain>/v<N>/...`) opens read-only; a draft (`.../new/<key>/...`) becomes a new
 * artifact on its first save.
 */
export class LedgerDocumentProvider extends DisposableBase implements vscode.FileSystemProvider {
  private readonly changes = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this.changes.event;
  private readonly drafts = new Map<string, Draft>();
  private draftCounter = 0;

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly logger: Logger,
  ) {
    super();
    this.register(vscode.workspace.registerFileSystemProvider(LEDGER_SCHEME, this, { isCaseSensitive: true }));
    // Another window or the CLI changed the ledger: tell the editor, which reloads unmodified documents.
    this.register(
      registry.onDidChange((change) => {
        if (change.kind === 'activity' || change.kind === 'log') return;
        const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === LEDGER_SCHEME && d.uri.authority === folderKey(change.folder));
        if (open.length > 0) this.changes.fire(open.map((d) => ({ type: vscode.FileChangeType.Changed, uri: d.uri })));
      }),
    );
  }

  uriFor(folder: vscode.WorkspaceFolder, artifact: Pick<Artifact, 'chainId' | 'title'>): vscode.Uri {
    return vscode.Uri.from({ scheme: LEDGER_SCHEME, authority: folderKey(folder), path: `/${segment(artifact.chainId)}/${slugify(artifact.title)}.md` });
  }

  versionUriFor(folder: vscode.WorkspaceFolder, artifact: Pick<Artifact, 'chainId' | 'title' | 'version' | 'id'>): vscode.Uri {
    return vscode.Uri.from({
      scheme: LEDGER_SCHEME,
      authority: folderKey(folder),
      path: `/${segment(artifact.chainId)}/v${artifact.version}/${slugify(artifact.title)}.md`,
      query: `id=${encodeURIComponent(artifact.id)}`,
    });
  }

  /** A new, unsaved artifact document with `fields` filled in; with `supersedes`, its first save replaces that artifact. */
  draftUri(folder: vscode.WorkspaceFolder, fields: DocumentFields, options: { supersedes?: string } = {}): vscode.Uri {
    const key = `${Date.now().toString(36)}${(this.draftCounter++).toString(36)}`;
    this.drafts.set(key, { folder, fields, created: Date.now(), ...(options.supersedes ? { supersedes: options.supersedes } : {}) });
    return vscode.Uri.from({ scheme: LEDGER_SCHEME, authority: folderKey(folder), path: `/new/${key}/${slugify(fields.title || fields.type)}.md` });
  }

  private resolve(uri: vscode.Uri): Target {
    const folder = this.registry.folders().find((f) => folderKey(f) === uri.authority);
    if (!folder) throw vscode.FileSystemError.FileNotFound(uri);
    const parts = uri.path.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
    if (parts[0] === 'new' && parts.length === 3) {
      const draft = this.drafts.get(parts[1]!);
      if (!draft) throw vscode.FileSystemError.FileNotFound(uri);
      return { kind: 'draft', folder, key: parts[1]!, draft };
    }
    if (parts.length === 3 && /^v\d+$/.test(parts[1]!)) {
      const id = new URLSearchParams(uri.query).get('id');
      if (!id) throw vscode.FileSystemError.FileNotFound(uri);
      return { kind: 'version', folder, id };
    }
    if (parts.length === 2) return { kind: 'chain', folder, chainId: parts[0]! };
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  private async load(target: Target): Promise<{ text: string; mtime: number; readonly: boolean }> {
    const { renderArtifactDocument } = await documentCode();
    const ledger = this.registry.get(target.folder);
    if (target.kind === 'draft' && !target.draft.chainId) {
      return { text: renderArtifactDocument(target.draft.fields, target.draft.supersedes ? SUPERSEDE_NOTE : DRAFT_NOTE), mtime: target.draft.created, readonly: false };
    }
    const artifact = await ledger.read((store) =>
      target.kind === 'version' ? store.getArtifact(target.id) : store.latestOfChain(target.kind === 'chain' ? target.chainId : target.draft.chainId!),
    );
    if (!artifact) throw vscode.FileSystemError.FileNotFound(`The artifact is no longer in the ledger.`);
    const readonly = target.kind === 'version';
    return {
      text: renderArtifactDocument(fieldsOf(artifact), readonly ? `Version ${artifact.version} of ${artifact.chainId}. ${VERSION_NOTE}` : EDIT_NOTE),
      // Each version has its own time, so the editor notices a new version written elsewhere.
      mtime: Date.parse(artifact.updatedAt) + artifact.version,
      readonly,
    };
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { text, mtime, readonly } = await this.load(this.resolve(uri));
    return {
      type: vscode.FileType.File,
      ctime: mtime,
      mtime,
      size: Buffer.byteLength(text, 'utf8'),
      ...(readonly ? { permissions: vscode.FilePermission.Readonly } : {}),
    };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return Buffer.from((await this.load(this.resolve(uri))).text, 'utf8');
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const target = this.resolve(uri);
    if (target.kind === 'version') throw vscode.FileSystemError.NoPermissions('An older version is read-only; open the artifact to change it.');
    const text = Buffer.from(content).toString('utf8');
    const { parseArtifactDocument } = await documentCode();
    const ledger = this.registry.get(target.folder);
    if (target.kind === 'draft' && !target.draft.chainId) {
      const fields = parseArtifactDocument(text, target.draft.fields);
      const input = {
        type: fields.type,
        scope: fields.scope,
        paths: fields.paths,
        taskId: fields.taskId,
        title: fields.title,
        body: fields.body,
        tags: fields.tags,
        summary: fields.summary,
        source: 'user',
      };
      const replaces = target.draft.supersedes;
      const { created, superseded } = await ledger.write((store) => {
        if (!replaces) return { created: store.createArtifact(input), superseded: undefined };
        const { by, superseded } = supersedeChain(store, replaces, { input });
        return { created: by, superseded };
      }, 'artifacts');
      target.draft.chainId = created.chainId;
      this.logger.info(`Added ${created.type} ${created.id} (${created.title}) from the editor${superseded ? `, superseding ${superseded.id}` : ''}`);
      void vscode.window.showInformationMessage(
        superseded
          ? `Added "${created.title}" to the ledger; it supersedes "${superseded.title}".`
          : `Added ${created.type.replace('_', ' ')} "${created.title}" to the ledger.`,
      );
      this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
      return;
    }
    const chainId = target.kind === 'chain' ? target.chainId : target.draft.chainId!;
    const result = await ledger.write((store) => {
      const latest = store.latestOfChain(chainId);
      if (!latest) throw new Error('The artifact is no longer in the ledger (deleted elsewhere?). Copy your text and add it again.');
      const base = fieldsOf(latest);
      const patch = patchBetween(base, parseArtifactDocument(text, base));
      if (Object.keys(patch).length === 0) return { before: latest, after: latest };
      return { before: latest, after: newVersion(store, latest.id, { patch }).artifact };
    }, 'artifacts');
    if (result.after.id !== result.before.id) {
      this.logger.info(`Saved ${result.after.chainId} as version ${result.after.version} (${result.after.id})`);
      vscode.window.setStatusBarMessage(`$(check) Context Ledger: saved "${result.after.title}" as version ${result.after.version}`, 5000);
    }
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    // Changes are pushed from the registry's change events; nothing to set up per file.
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('The ledger has no folders.');
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions('Delete artifacts from the Context Ledger view.');
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Rename an artifact by changing its title.');
  }
}
