import * as vscode from 'vscode';
import { ARTIFACT_TYPES, type Artifact, type ArtifactStatus, type ArtifactType, artifactUrn, STATUSES } from '../../core/model';
import { restoreVersion, supersedeChain } from '../../core/artifactService';
import type { LedgerStore } from '../../core/store';
import { fieldsOf } from '../artifactFields';
import { DEFAULT_FILTER, TYPE_DESCRIPTIONS, TYPE_ICONS, TYPE_LABELS } from '../artifactTreeModel';
import { COMMANDS } from '../ids';
import type { LedgerChangeKind } from '../ledgers';
import type { MirrorConflict } from '../../node/artifactFolder';
import type { Services } from '../services';
import type { ArtifactTreeNode } from '../views/artifactTree';
import { artifactArg, artifactPickItem, type ArtifactPick, isVersionNode, type CommandTable, requireFolder } from './common';
import type { ARTIFACT_COMMAND_IDS } from './tableIds';

const STATUS_LABELS: Readonly<Record<ArtifactStatus, string>> = {
  active: 'Active',
  archived: 'Archived',
  superseded: 'Superseded',
};

/** Add, open, pin, archive, delete, rate, version, supersede and restore artifacts; the artifact tree's filter and search. */
export function artifactCommands(s: Services): CommandTable<(typeof ARTIFACT_COMMAND_IDS)[number]> {
  /** The latest-version artifact node a tree item command was invoked on (older versions are not acted on). */
  const artifactNode = (node?: ArtifactTreeNode): Extract<ArtifactTreeNode, { kind: 'artifact' }> | undefined =>
    node?.kind === 'artifact' ? node : undefined;

  /** Writes through the folder's ledger (locked, atomic) and refreshes the tree. */
  const writeFor = async <T>(node: Extract<ArtifactTreeNode, { kind: 'artifact' }>, kind: LedgerChangeKind, fn: (store: LedgerStore, artifact: Artifact) => T): Promise<T> => {
    const result = await s.registry.get(node.folder).write((store) => fn(store, node.artifact), kind);
    s.artifactTree.refresh();
    return result;
  };

  const setPinned = (pinned: boolean) => async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    const after = await writeFor(node, 'artifacts', (store, a) => store.setPinned(a.id, pinned));
    vscode.window.setStatusBarMessage(`Context Ledger: ${pinned ? 'pinned' : 'unpinned'} "${after.title}"`, 3000);
  };
  const feedback = (verdict: 'useful' | 'not_useful') => async (arg?: ArtifactTreeNode) => {
    const node = artifactNode(arg);
    if (!node) return;
    await writeFor(node, 'feedback', (store, a) => store.recordFeedback(a.id, verdict));
    vscode.window.setStatusBarMessage(`Context Ledger: marked "${node.artifact.title}" ${verdict === 'useful' ? 'useful' : 'not useful'}`, 3000);
  };

  return {
    [COMMANDS.openArtifact]: { what: 'Opening the artifact', run: async (node?: ArtifactTreeNode) => {
      if (!node || (node.kind !== 'artifact' && node.kind !== 'version')) return;
      const uri = node.kind === 'version' ? s.documents.versionUriFor(node.folder, node.artifact) : s.documents.uriFor(node.folder, node.artifact);
      await vscode.window.showTextDocument(uri, { preview: true });
    } },
    [COMMANDS.copyUrn]: { what: 'Copying the URN', run: async (node?: ArtifactTreeNode) => {
      if (!node || (node.kind !== 'artifact' && node.kind !== 'version')) return;
      const urn = artifactUrn(node.artifact.id);
      await vscode.env.clipboard.writeText(urn);
      void vscode.window.setStatusBarMessage(`Copied ${urn}`, 3000);
    } },
    [COMMANDS.pin]: { what: 'Pinning the artifact', run: setPinned(true) },
    [COMMANDS.unpin]: { what: 'Unpinning the artifact', run: setPinned(false) },
    [COMMANDS.archive]: { what: 'Archiving the artifact', run: async (arg?: ArtifactTreeNode) => {
      const node = artifactNode(arg);
      if (!node) return;
      const after = await writeFor(node, 'artifacts', (store, a) => store.archive(a.id));
      vscode.window.setStatusBarMessage(`Context Ledger: archived "${after.title}"`, 3000);
    } },
    [COMMANDS.deleteArtifact]: { what: 'Deleting the artifact', run: async (arg?: ArtifactTreeNode) => {
      const node = artifactNode(arg);
      if (!node) return;
      const a = node.artifact;
      const versions = a.version > 1 ? ` and all ${a.version} of its versions` : '';
      const pick = await vscode.window.showWarningMessage(
        `Delete "${a.title}"${versions}?`,
        { modal: true, detail: `The ${TYPE_LABELS[a.type].one.toLowerCase()} is removed from the ledger for good. This cannot be undone; archive it instead to keep it out of the context.` },
        'Delete',
      );
      if (pick !== 'Delete') return;
      await writeFor(node, 'artifacts', (store, artifact) => store.deleteArtifact(artifact.id));
      vscode.window.setStatusBarMessage(`Context Ledger: deleted "${a.title}"`, 3000);
    } },
    [COMMANDS.markUseful]: { what: 'Recording feedback', run: feedback('useful') },
    [COMMANDS.markNotUseful]: { what: 'Recording feedback', run: feedback('not_useful') },
    [COMMANDS.addArtifact]: { what: 'Adding an artifact', run: async (arg?: ArtifactTreeNode) => {
      const folder = arg && 'folder' in arg ? arg.folder : requireFolder(s);
      const type = await vscode.window.showQuickPick(
        ARTIFACT_TYPES.map((t) => ({ label: TYPE_LABELS[t].one, description: TYPE_DESCRIPTIONS[t], iconPath: new vscode.ThemeIcon(TYPE_ICONS[t]), type: t })),
        { title: 'Context Ledger: add artifact', placeHolder: 'What kind of artifact?' },
      );
      if (!type) return;
      const title = await vscode.window.showInputBox({
        title: `Context Ledger: add ${TYPE_LABELS[type.type].one.toLowerCase()}`,
        prompt: 'A short title',
        validateInput: (value) => (value.trim() ? undefined : 'The title cannot be empty.'),
      });
      if (title === undefined) return;
      // A draft document: the first save adds it to the ledger (through the registry write path).
      const uri = s.documents.draftUri(folder, { title: title.trim(), type: type.type, scope: 'global', paths: [], tags: [], taskId: null, summary: null, body: '' });
      await vscode.window.showTextDocument(uri, { preview: false });
    } },
    [COMMANDS.newVersion]: { what: 'Starting a new version', run: async (arg?: unknown) => {
      const node = await artifactArg(s, arg, ['active'], 'Context Ledger: new version of…');
      // Not a preview tab: the user is about to edit it. The save (Ctrl+S) writes version N+1.
      // The cursor at the end from the start: set after opening, it jumped back under a user who already typed.
      const document = await vscode.workspace.openTextDocument(s.documents.uriFor(node.folder, node.artifact));
      const end = document.lineAt(document.lineCount - 1).range.end;
      await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(end, end) });
      vscode.window.setStatusBarMessage(`Context Ledger: edit "${node.artifact.title}" and save (Ctrl+S) to make version ${node.artifact.version + 1}`, 8000);
    } },
    [COMMANDS.supersede]: { what: 'Superseding the artifact', run: async (arg?: unknown) => {
      const node = await artifactArg(s, arg, ['active'], 'Context Ledger: supersede…');
      const old = node.artifact;
      const others = await s.registry.get(node.folder).read((store) => store.latestArtifacts().filter((a) => a.status === 'active' && a.chainId !== old.chainId));
      const createNew: ArtifactPick = { label: '$(add) New artifact…', description: 'Write the replacement now (starts as a copy)', alwaysShow: true };
      const picked = await vscode.window.showQuickPick<ArtifactPick>(
        [createNew, { label: 'Existing artifacts', kind: vscode.QuickPickItemKind.Separator }, ...others.map(artifactPickItem)],
        { title: `Supersede "${old.title}" with…`, placeHolder: 'The artifact that replaces it (the old one leaves the context, its history stays)', matchOnDescription: true },
      );
      if (!picked) return;
      if (!picked.artifact) {
        const fields = fieldsOf(old);
        const uri = s.documents.draftUri(node.folder, fields, { supersedes: old.id });
        await vscode.window.showTextDocument(uri, { preview: false });
        vscode.window.setStatusBarMessage(`Context Ledger: save (Ctrl+S) to add the replacement; "${old.title}" is then superseded`, 8000);
        return;
      }
      const replacement = picked.artifact;
      const { superseded, by } = await s.registry.get(node.folder).write((store) => supersedeChain(store, old.id, { by: replacement.id }), 'artifacts');
      s.artifactTree.refresh();
      void vscode.window.showInformationMessage(`"${superseded.title}" is superseded by "${by.title}"; it no longer goes into the context.`);
    } },
    [COMMANDS.restore]: { what: 'Restoring the artifact', run: async (arg?: unknown) => {
      if (isVersionNode(arg)) {
        // An older version from the tree's history: it becomes the newest version again.
        const old = arg.artifact;
        const restored = await s.registry.get(arg.folder).write((store) => restoreVersion(store, old.id), 'artifacts');
        s.logger.info(`Restored ${old.id} (v${old.version}) as ${restored.id} (v${restored.version})`);
        await s.artifactTree.reveal(arg.folder, restored);
        void vscode.window.showInformationMessage(
          `Context Ledger: restored v${old.version} of "${restored.title}" as version ${restored.version}; the versions in between stay in its history.`,
        );
        return;
      }
      const node = await artifactArg(s, arg, ['archived', 'superseded'], 'Context Ledger: restore…');
      const after = await s.registry.get(node.folder).write((store) => store.setStatus(node.artifact.id, 'active'), 'artifacts');
      s.artifactTree.refresh();
      vscode.window.setStatusBarMessage(`Context Ledger: restored "${after.title}"; it is active again`, 4000);
    } },
    [COMMANDS.resolveConflict]: { what: 'Resolving the conflict', run: async (arg?: ArtifactTreeNode) => {
      const target = await conflictArg(s, arg);
      if (!target) return;
      const { folder, conflict } = target;
      const ledger = s.registry.get(folder);
      const [mine, latest] = await ledger.read((store) => [conflict.mine ? store.getArtifact(conflict.mine) : undefined, store.latestOfChain(conflict.chainId)]);
      const theirs = conflict.kind === 'markers' ? 'the other side of the git merge (in the file)' : latest && latest.id !== mine?.id ? `v${latest.version}, from the Markdown mirror` : 'the version from the Markdown mirror';
      type Choice = vscode.QuickPickItem & { keep: 'mine' | 'theirs'; edit?: boolean };
      const choice = await vscode.window.showQuickPick<Choice>(
        [
          { label: '$(account) Keep mine', description: mine ? `v${mine.version}, this clone's version` : "this clone's version", keep: 'mine' },
          { label: '$(cloud-download) Keep theirs', description: theirs, keep: 'theirs' },
          { label: '$(edit) Edit…', description: 'keep theirs, then edit it beside mine and save', keep: 'theirs', edit: true },
        ],
        { title: `Resolve "${conflict.title}"`, placeHolder: 'The side you do not keep stays in the history; nothing is lost' },
      );
      if (!choice) return;
      const kept = await s.mirror.resolve(folder, conflict.chainId, choice.keep);
      s.logger.info(`Resolved the conflict on ${conflict.chainId} (${conflict.path}): kept ${choice.keep} as ${kept.id} (v${kept.version})`);
      await s.artifactTree.reveal(folder, kept);
      if (choice.edit && mine) {
        await vscode.commands.executeCommand('vscode.diff', s.documents.versionUriFor(folder, mine), s.documents.uriFor(folder, kept), `${kept.title}: mine (v${mine.version}) ↔ kept (edit and save)`);
        return;
      }
      vscode.window.setStatusBarMessage(`Context Ledger: kept ${choice.keep === 'mine' ? 'your' : 'their'} version of "${kept.title}" (v${kept.version}); the other stays in its history`, 5000);
    } },
    [COMMANDS.filterArtifacts]: { what: 'Filtering the artifacts', run: async () => {
      const current = s.artifactTree.filter;
      type Item = vscode.QuickPickItem & ({ type: ArtifactType } | { status: ArtifactStatus } | object);
      const items: Item[] = [
        { label: 'Status', kind: vscode.QuickPickItemKind.Separator },
        ...STATUSES.map((status) => ({ label: STATUS_LABELS[status], status, picked: current.statuses.includes(status) })),
        { label: 'Type (none picked: every type)', kind: vscode.QuickPickItemKind.Separator },
        ...ARTIFACT_TYPES.map((type) => ({
          label: `$(${TYPE_ICONS[type]}) ${TYPE_LABELS[type].many}`,
          description: TYPE_DESCRIPTIONS[type],
          type,
          picked: current.types.includes(type),
        })),
      ];
      const picked = await vscode.window.showQuickPick(items, {
        title: 'Context Ledger: filter artifacts',
        placeHolder: 'Show artifacts with these statuses and types (none picked: all)',
        canPickMany: true,
      });
      if (!picked) return;
      const types = picked.flatMap((i) => ('type' in i ? [i.type] : []));
      const statuses = picked.flatMap((i) => ('status' in i ? [i.status] : []));
      s.artifactTree.setFilter({ ...current, types, statuses });
    } },
    [COMMANDS.searchArtifacts]: { what: 'Searching the artifacts', run: async () => {
      const current = s.artifactTree.filter;
      const text = await vscode.window.showInputBox({
        title: 'Context Ledger: search artifacts',
        prompt: 'Words to find in the title, body, tags, paths or id, as `list --text` and search_artifacts find them (empty: no search)',
        value: current.text,
        valueSelection: [0, current.text.length],
      });
      if (text === undefined) return;
      s.artifactTree.setFilter({ ...current, text: text.trim() });
    } },
    [COMMANDS.clearArtifactFilter]: { what: 'Clearing the filter', run: () => s.artifactTree.setFilter({ ...DEFAULT_FILTER }) },
  };
}

/** The conflict a Resolve… was invoked on: the tree's row or artifact, else the one the user picks (none: says so). */
async function conflictArg(s: Services, arg?: ArtifactTreeNode): Promise<{ folder: vscode.WorkspaceFolder; conflict: MirrorConflict } | undefined> {
  if (arg?.kind === 'conflict') return { folder: arg.folder, conflict: arg.conflict };
  if (arg?.kind === 'artifact') {
    const conflict = s.mirror.conflicts(arg.folder).get(arg.artifact.chainId);
    if (conflict) return { folder: arg.folder, conflict };
  }
  const all = s.registry.folders().flatMap((folder) => [...s.mirror.conflicts(folder).values()].map((conflict) => ({ folder, conflict })));
  if (all.length === 0) {
    void vscode.window.showInformationMessage('Context Ledger: no artifact is in conflict.');
    return undefined;
  }
  if (all.length === 1) return all[0];
  const picked = await vscode.window.showQuickPick(
    all.map((c) => ({ label: c.conflict.title, description: c.conflict.path, detail: s.registry.folders().length > 1 ? c.folder.name : undefined, c })),
    { title: 'Context Ledger: resolve which conflict?' },
  );
  return picked?.c;
}
