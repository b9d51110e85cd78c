import * as vscode from 'vscode';
import { ARTIFACT_TYPES, type ArtifactStatus, type ArtifactType, STATUSES } from '../../core/model';
import { fieldsOf } from '../artifactDocument';
import { DEFAULT_FILTER, TYPE_DESCRIPTIONS, TYPE_ICONS, TYPE_LABELS } from '../artifactTreeModel';
import { COMMANDS } from '../ids';
import type { Services } from '../services';
import { artifactArg, artifactPickItem, type ArtifactPick, isVersionNode, type Register } from './common';

const STATUS_LABELS: Readonly<Record<ArtifactStatus, string>> = {
  active: 'Active',
  archived: 'Archived',
  superseded: 'Superseded',
};

/** New version, supersede, restore, and the artifact tree's filter and search. */
export function registerArtifactCommands(register: Register, s: Services): void {
  register(COMMANDS.newVersion, 'Starting a new version', async (arg?: unknown) => {
    const node = await artifactArg(s, arg, ['active'], 'Context Ledger: new version of…');
    // Not a preview tab: the user is about to edit it. The save (Ctrl+S) writes version N+1.
    // The cursor at the end from the start: set after opening, it jumped back under a user who already typed.
    const document = await vscode.workspace.openTextDocument(s.documents.uriFor(node.folder, node.artifact));
    const end = document.lineAt(document.lineCount - 1).range.end;
    await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(end, end) });
    vscode.window.setStatusBarMessage(`Context Ledger: edit "${node.artifact.title}" and save (Ctrl+S) to make version ${node.artifact.version + 1}`, 8000);
  });

  register(COMMANDS.supersede, 'Superseding the artifact', async (arg?: unknown) => {
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
    const { superseded, by } = await s.registry.get(node.folder).write((store) => store.supersede(old.id, replacement.id), 'artifacts');
    s.artifactTree.refresh();
    void vscode.window.showInformationMessage(`"${superseded.title}" is superseded by "${by.title}"; it no longer goes into the context.`);
  });

  register(COMMANDS.restore, 'Restoring the artifact', async (arg?: unknown) => {
    if (isVersionNode(arg)) {
      // An older version from the tree's history: it becomes the newest version again.
      const old = arg.artifact;
      const restored = await s.registry.get(arg.folder).write((store) => store.restoreVersion(old.id), 'artifacts');
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
  });

  register(COMMANDS.filterArtifacts, 'Filtering the artifacts', async () => {
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
  });

  register(COMMANDS.searchArtifacts, 'Searching the artifacts', async () => {
    const current = s.artifactTree.filter;
    const text = await vscode.window.showInputBox({
      title: 'Context Ledger: search artifacts',
      prompt: 'Words that must all appear in the title, body, tags, paths or id (empty: no search)',
      value: current.text,
      valueSelection: [0, current.text.length],
    });
    if (text === undefined) return;
    s.artifactTree.setFilter({ ...current, text: text.trim() });
  });

  register(COMMANDS.clearArtifactFilter, 'Clearing the filter', () => s.artifactTree.setFilter({ ...DEFAULT_FILTER }));
}
