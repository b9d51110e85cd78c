import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { artifactsForExport, decodeJsonl, importJsonl, toJsonl } from '../../core/jsonl';
import { UserError } from '../../core/model';
import { COMMANDS } from '../ids';
import type { Services } from '../services';
import { chooseFolder, type CommandTable } from './common';
import type { LEDGER_COMMAND_IDS } from './tableIds';

/** Larger imports are refused before reading (same cap as the CLI's import). */
const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

/** Import and export JSONL through file dialogs, and reveal the database. */
export function ledgerCommands(s: Services): CommandTable<(typeof LEDGER_COMMAND_IDS)[number]> {
  return {
    [COMMANDS.importJsonl]: { what: 'Importing JSONL', run: async () => {
      const folder = await chooseFolder(s, 'Import into which folder’s ledger?');
      const picked = await vscode.window.showOpenDialog({
        title: 'Context Ledger: import artifacts (JSONL)',
        openLabel: 'Import',
        canSelectMany: false,
        defaultUri: folder.uri,
        filters: { 'JSON Lines': ['jsonl', 'ndjson'], 'All files': ['*'] },
      });
      const uri = picked?.[0];
      if (!uri) return;
      const size = (await vscode.workspace.fs.stat(uri)).size;
      if (size > MAX_IMPORT_BYTES) throw new UserError(`${path.basename(uri.fsPath)} is ${Math.round(size / 1024 / 1024)} MB: the import takes at most 512 MB.`);
      // Decoded line by line, as the CLI does: a NUL or a byte that is not UTF-8 costs its own line, not the file.
      const decoded = decodeJsonl(await vscode.workspace.fs.readFile(uri));
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Importing ${path.basename(uri.fsPath)}…` }, () =>
        s.registry.get(folder).write((store) => importJsonl(store, decoded.text, decoded.errors), 'artifacts'),
      );
      s.artifactTree.refresh();
      const summary = `${report.added.length} added, ${report.updated.length} updated, ${report.unchanged.length} unchanged`;
      s.logger.info(`Imported ${uri.fsPath} into ${folder.name}: ${summary}, ${report.errors.length} bad lines`);
      if (report.errors.length === 0) {
        void vscode.window.showInformationMessage(`Context Ledger: imported ${path.basename(uri.fsPath)}: ${summary}.`);
        return;
      }
      for (const error of report.errors.slice(0, 50)) s.logger.warn(`${path.basename(uri.fsPath)} line ${error.line}: ${error.message}`);
      const first = report.errors[0]!;
      const lines = report.errors.map((e) => e.line);
      void vscode.window
        .showWarningMessage(
          `Context Ledger: imported ${path.basename(uri.fsPath)} (${summary}), but skipped ${report.errors.length} bad line${report.errors.length === 1 ? '' : 's'} (${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ', …' : ''}). Line ${first.line}: ${first.message}`,
          'Show Log',
        )
        .then((pick) => pick && s.logger.show());
    } },
    [COMMANDS.exportJsonl]: { what: 'Exporting JSONL', run: async () => {
      const folder = await chooseFolder(s, 'Export which folder’s ledger?');
      const artifacts = await s.registry.get(folder).read((store) => artifactsForExport(store));
      if (artifacts.length === 0) throw new UserError(`The ledger of ${folder.name} has no artifacts to export.`);
      const uri = await vscode.window.showSaveDialog({
        title: 'Context Ledger: export artifacts (JSONL, every version)',
        saveLabel: 'Export',
        defaultUri: vscode.Uri.joinPath(folder.uri, 'context-ledger-export.jsonl'),
        filters: { 'JSON Lines': ['jsonl'] },
      });
      if (!uri) return;
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(toJsonl(artifacts)));
      const chains = new Set(artifacts.map((a) => a.chainId)).size;
      s.logger.info(`Exported ${artifacts.length} versions of ${chains} artifacts from ${folder.name} to ${uri.fsPath}`);
      void vscode.window.showInformationMessage(`Context Ledger: exported ${chains} artifacts (${artifacts.length} versions) to ${vscode.workspace.asRelativePath(uri)}.`, 'Open').then((pick) => {
        if (pick) void vscode.window.showTextDocument(uri);
      });
    } },
    [COMMANDS.openDatabaseFolder]: { what: 'Opening the database folder', run: async () => {
      const folder = await chooseFolder(s);
      const file = s.registry.databaseFile(folder);
      if (!fs.existsSync(file)) {
        throw new UserError(`${folder.name} has no ledger yet (${file}).`, 'It is created on the first write: add an artifact or import a JSONL file.');
      }
      const uri = vscode.Uri.file(file);
      // In a browser or remote window the OS file manager is out of reach; the Explorer is not, when the file is in the workspace.
      const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
      if (vscode.env.uiKind === vscode.UIKind.Web || vscode.env.remoteName) {
        if (!inWorkspace) throw new UserError(`The database is outside the workspace, at ${file}.`, 'Open that folder on the machine that runs VS Code.');
        await vscode.commands.executeCommand('revealInExplorer', uri);
        return;
      }
      await vscode.commands.executeCommand('revealFileInOS', uri);
    } },
  };
}
