import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import { AGENT_COMMANDS } from './ids';

/**
 * `@ledger` without a chat model. VS Code refuses a participant's request when no model
 * exists ("Language model unavailable") before the participant runs, so the participant
 * cannot say so itself. This command does: it says which part needs a model and offers,
 * for each `@ledger` command, the command that does the same without one.
 */
export function registerWithoutChatModel(): vscode.Disposable {
  return vscode.commands.registerCommand(AGENT_COMMANDS.withoutChatModel, async () => {
    const models = await chatModelCount();
    const items: (vscode.QuickPickItem & { command?: string })[] = [
      { label: 'Works without a chat model', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(copy) Copy the context', description: 'as @ledger /context: Build agent context, on the clipboard', command: COMMANDS.buildContext },
      { label: '$(preview) Preview the context', description: 'the same context as a document to read, copy or send', command: COMMANDS.previewContext },
      { label: '$(search) Search the ledger', description: 'as @ledger /search: filters the Artifacts view', command: COMMANDS.searchArtifacts },
      { label: '$(question) Why is an artifact in or out', description: 'as @ledger /explain: the Context Inspector', command: COMMANDS.openInspector },
      { label: '$(add) Remember something', description: 'as @ledger /remember: Add Artifact', command: COMMANDS.addArtifact },
      { label: 'Needs a chat model', kind: vscode.QuickPickItemKind.Separator },
      {
        label: '$(comment-discussion) Ask @ledger a question',
        description: models > 0 ? 'opens the chat' : 'no chat model here (install one, e.g. GitHub Copilot)',
        ...(models > 0 ? { command: 'workbench.action.chat.open' } : {}),
      },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: 'Context Ledger without a chat model',
      placeHolder:
        models > 0
          ? `${models} chat model${models === 1 ? '' : 's'} here: @ledger works in the chat. These work with or without one:`
          : 'No chat model in this VS Code, so the chat refuses @ledger ("Language model unavailable"). These work without one:',
      matchOnDescription: true,
    });
    if (!pick) return;
    if (pick.command) {
      await vscode.commands.executeCommand(pick.command, ...(pick.command === 'workbench.action.chat.open' ? [{ query: '@ledger ', isPartialQuery: true }] : []));
    } else {
      void vscode.window.showInformationMessage(
        'Context Ledger: a question to @ledger is answered by a chat model, and this VS Code has none. Install a chat model extension (such as GitHub Copilot), or copy the context and give it to the agent you use.',
      );
    }
  });
}

/** How many chat models VS Code offers now; 0 where the language-model API is missing. */
async function chatModelCount(): Promise<number> {
  if (typeof vscode.lm?.selectChatModels !== 'function') return 0;
  return vscode.lm.selectChatModels().then(
    (models) => models.length,
    () => 0,
  );
}
