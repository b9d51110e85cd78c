import * as vscode from 'vscode';
import { guarded } from '../errors';
import { lazily } from '../lazy';
import type { Services } from '../services';
import { requireTrust } from '../trust';
import { INTEROP_COMMANDS, WHICH_SCHEME } from './ids';
import { ImportProblems } from './importProblems';

/** The commands' work (the parsers of every format, the import and the export) loads with the first of them. */
const actions = lazily(() => import('./actions.js'));
const which = lazily(() => import('./whichRulesCommand.js'));

/**
 * Import / export / sync / which in the editor, over the same code as the CLI
 * (src/node/folderImport, ruleFileExport, mirrorSync, whichRules) and the folder's own
 * ledger (the registry's locked writes, so the tree refreshes and other windows reload).
 * The commands are registered here; what they do loads with the first of them (./actions.ts).
 */
export function registerInteropFeatures(context: vscode.ExtensionContext, services: Services): void {
  const s = services;
  const reports = new Map<string, string>();
  const whichChanged = new vscode.EventEmitter<vscode.Uri>();
  const problems = new ImportProblems();
  context.subscriptions.push(
    problems,
    whichChanged,
    vscode.workspace.registerTextDocumentContentProvider(WHICH_SCHEME, {
      onDidChange: whichChanged.event,
      provideTextDocumentContent: (uri) => reports.get(uri.toString()) ?? 'This report is no longer available: run "Which Rules Apply to This File?" again.',
    }),
  );
  const register = (id: string, what: string, fn: (...args: never[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(s.logger, what, fn as (...args: unknown[]) => unknown)));
  };

  register(INTEROP_COMMANDS.importKnowledge, 'Importing knowledge', async () => {
    if (!requireTrust('import knowledge')) return;
    const { pickFolder, importKnowledge } = await actions();
    const folder = await pickFolder(s, 'import into');
    if (folder) await importKnowledge(s, problems, folder);
  });

  register(INTEROP_COMMANDS.exportAgentRules, 'Exporting agent rules', async () => {
    if (!requireTrust('export agent rules')) return;
    const { pickFolder, exportAgentRules } = await actions();
    const folder = await pickFolder(s, 'export from');
    if (folder) await exportAgentRules(s, folder);
  });

  register(INTEROP_COMMANDS.syncMirror, 'Syncing the artifact files', async () => {
    if (!requireTrust('sync the artifact files')) return;
    const { pickFolder, syncFolderMirror } = await actions();
    const folder = await pickFolder(s, 'sync');
    if (folder) await syncFolderMirror(s, folder);
  });

  register(INTEROP_COMMANDS.whichRules, 'Finding the rules that apply', async (arg?: unknown) =>
    (await which()).showWhichRules(s, arg, async (doc, text) => {
      reports.set(doc.toString(), text);
      whichChanged.fire(doc);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(doc), { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }),
  );
}
