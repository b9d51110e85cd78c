import * as vscode from 'vscode';

/**
 * Guards a command that reads or writes files the workspace controls (import, export to
 * rule files, sync, the agent inbox): in Restricted Mode it says so, offers the trust
 * editor, and returns false. Everything else keeps working untrusted.
 */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showWarningMessage(
      `Context Ledger does not ${what} in Restricted Mode: it would read and write files this workspace controls. Trust the workspace to ${what}.`,
      'Manage Workspace Trust',
    )
    .then((pick) => pick && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}
