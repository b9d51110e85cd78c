import * as vscode from 'vscode';
import { type Artifact, type ArtifactStatus, UserError } from '../../core/model';
import { TYPE_ICONS, TYPE_LABELS } from '../artifactTreeModel';
import { guarded } from '../errors';
import type { Services } from '../services';
import type { ArtifactTreeNode } from '../views/artifactTree';

/** A command's handler and what it does (named in its error message: "<what> failed"). */
export interface Command {
  what: string;
  run: (...args: never[]) => unknown;
}

/** A command file's commands by id; its ids are listed in tableIds.ts. */
export type CommandTable<Id extends string> = Readonly<Record<Id, Command>>;

/**
 * The one place the command files' commands are registered, each through `guarded`
 * (errors are logged and shown, never thrown at the workbench).
 */
export function registerCommandTables(context: vscode.ExtensionContext, s: Services, tables: readonly CommandTable<string>[]): void {
  for (const table of tables) {
    for (const [id, command] of Object.entries(table)) {
      context.subscriptions.push(vscode.commands.registerCommand(id, guarded(s.logger, command.what, command.run as (...args: unknown[]) => unknown)));
    }
  }
}

/** The folder of the active editor or the only one; none cancels the command. */
export function requireFolder(s: Services): vscode.WorkspaceFolder {
  const folder = s.contexts.currentFolder();
  if (!folder) throw new vscode.CancellationError();
  return folder;
}

/**
 * The folder a command acts on: the one of the active editor, the only one, or (in a
 * multi-root workspace) the one the user picks. Cancelling the pick cancels the command.
 */
export async function chooseFolder(s: Services, placeHolder = 'Which folder’s ledger?'): Promise<vscode.WorkspaceFolder> {
  const editor = vscode.window.activeTextEditor;
  const fromEditor = editor ? s.registry.folderOf(editor.document.uri) : undefined;
  if (fromEditor) return fromEditor;
  const folders = s.registry.folders();
  if (folders.length === 0) throw new UserError('Context Ledger needs an open folder: open one first (File → Open Folder).');
  if (folders.length === 1) return folders[0]!;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder });
  if (!picked) throw new vscode.CancellationError();
  return picked;
}

export type ArtifactNode = Extract<ArtifactTreeNode, { kind: 'artifact' }>;

export function isArtifactNode(node: unknown): node is ArtifactNode {
  return typeof node === 'object' && node !== null && (node as { kind?: unknown }).kind === 'artifact';
}

export type VersionNode = Extract<ArtifactTreeNode, { kind: 'version' }>;

export function isVersionNode(node: unknown): node is VersionNode {
  return typeof node === 'object' && node !== null && (node as { kind?: unknown }).kind === 'version';
}

export interface ArtifactPick extends vscode.QuickPickItem {
  artifact?: Artifact;
}

export function artifactPickItem(a: Artifact): ArtifactPick & { artifact: Artifact } {
  return {
    label: `$(${TYPE_ICONS[a.type]}) ${a.title}`,
    description: [TYPE_LABELS[a.type].one, a.scope, a.version > 1 ? `v${a.version}` : '', a.status !== 'active' ? a.status : ''].filter(Boolean).join(' · '),
    detail: a.body.replace(/\s+/g, ' ').trim().slice(0, 140),
    artifact: a,
  };
}

/**
 * The artifact a tree command acts on: the node it was invoked on, or (from the command
 * palette) one the user picks among the folder's latest versions with one of `statuses`.
 */
export async function artifactArg(s: Services, arg: unknown, statuses: readonly ArtifactStatus[], title: string): Promise<ArtifactNode> {
  if (isArtifactNode(arg)) return arg;
  const folder = await chooseFolder(s);
  const artifacts = await s.registry.get(folder).read((store) => store.latestArtifacts().filter((a) => statuses.includes(a.status)));
  if (artifacts.length === 0) throw new UserError(`There is no ${statuses.join(' or ')} artifact in ${folder.name} to act on.`);
  const picked = await vscode.window.showQuickPick(artifacts.map(artifactPickItem), { title, placeHolder: 'Type to search by title', matchOnDescription: true, matchOnDetail: true });
  if (!picked) throw new vscode.CancellationError();
  return { kind: 'artifact', folder, artifact: picked.artifact };
}
