import * as vscode from 'vscode';
import { formatTokens } from '../budgetMeter';
import type { BuiltContext } from '../contextService';
import { COMMANDS } from '../ids';
import { INTEROP_COMMANDS } from '../interop/ids';
import type { Services } from '../services';
import { type CommandTable, requireFolder } from './common';
import type { CONTEXT_COMMAND_IDS } from './tableIds';

/** Build, preview and explain the agent context; refresh the views; show the log. */
export function contextCommands(s: Services): CommandTable<(typeof CONTEXT_COMMAND_IDS)[number]> {
  return {
    [COMMANDS.buildContext]: { what: 'Building the agent context', run: async () => {
      const folder = s.contexts.currentFolder();
      if (!folder) {
        void vscode.window.showWarningMessage('Context Ledger needs an open folder to build context for.');
        return;
      }
      const built = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Context Ledger: building context…' },
        () => s.contexts.build(folder, { trigger: 'command', log: true }),
      );
      if (built.result.candidates === 0) {
        // A first build on a new workspace: "0 artifacts" alone would read as a fault.
        const add = 'Add Artifact';
        const importKnowledge = 'Import Knowledge…';
        const message = `Context Ledger: the ledger of ${folder.name} holds no knowledge yet, so there is no context to copy. Add what the team knows, or import the rules and decision records it keeps.`;
        void vscode.window.showInformationMessage(message, add, importKnowledge).then((pick) => {
          if (pick === add) void vscode.commands.executeCommand(COMMANDS.addArtifact);
          if (pick === importKnowledge) void vscode.commands.executeCommand(INTEROP_COMMANDS.importKnowledge);
        });
        return;
      }
      const markdown = built.result.text;
      await vscode.env.clipboard.writeText(markdown);
      const where = (await sendToChat(markdown)) ? 'put it in the chat' : (await s.explain.showContext(built), 'opened it beside');
      const message = `Context Ledger: copied the context (${usage(built)}, ${built.result.items.length} artifacts) and ${where}.`;
      void vscode.window.showInformationMessage(message, 'Show details').then((pick) => {
        if (pick) void vscode.commands.executeCommand(COMMANDS.openInspector);
      });
    } },
    [COMMANDS.previewContext]: { what: 'Previewing the agent context', run: async () => {
      const folder = requireFolder(s);
      const built = await s.contexts.build(folder, { trigger: 'preview', log: false });
      await s.explain.showContext(built);
    } },
    [COMMANDS.showDetails]: { what: 'Showing the context details', run: async () => {
      const folder = requireFolder(s);
      const built = s.contexts.lastBuilt(folder) ?? (await s.contexts.build(folder, { trigger: 'preview', log: false }));
      await s.explain.show(built);
    } },
    [COMMANDS.refresh]: { what: 'Refreshing', run: async () => {
      await Promise.all(s.registry.folders().map((folder) => s.git.refresh(folder)));
      s.artifactTree.refresh();
      s.taskTree.refresh();
      s.filesTree.refresh();
      s.live.schedule(0);
    } },
    [COMMANDS.showLog]: { what: 'Showing the log', run: () => s.logger.show() },
  };
}

function usage(built: BuiltContext): string {
  const { tokensUsed, budget, tokenizer } = built.result;
  return `${tokensUsed} of ${budget} tokens (${formatTokens(tokensUsed)}/${formatTokens(budget)}, ${tokenizer})`;
}

/** Puts the context into the chat panel when there is one (feature-detected); false when there is none. */
async function sendToChat(markdown: string): Promise<boolean> {
  const commands = await vscode.commands.getCommands(true);
  if (!commands.includes('workbench.action.chat.open')) return false;
  // A chat command can exist without any chat provider (e.g. code-server without Copilot).
  const hasModels = typeof vscode.lm?.selectChatModels === 'function' && (await vscode.lm.selectChatModels().then((m) => m.length > 0, () => false));
  if (!hasModels) return false;
  try {
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: markdown, isPartialQuery: true });
    return true;
  } catch {
    return false;
  }
}
