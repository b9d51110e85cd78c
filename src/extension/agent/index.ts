import * as vscode from 'vscode';
import type { Services } from '../services';
import { requireTrust } from '../trust';
import { registerChatParticipant } from './chatParticipant';
import { AGENT_COMMANDS } from './ids';
import { InboxWatcher } from './inboxWatcher';
import { registerLanguageModelTools } from './lmTools';
import { registerMcpServerProvider } from './mcpProvider';
import { ReviewTreeProvider } from './reviewView';
import { registerWithoutChatModel } from './withoutChatModel';

/**
 * The agent loop: language-model tools and the `@ledger` participant (agents in VS Code),
 * the MCP server definition (agents reached through VS Code's MCP client), the inbox
 * (agents without tools) and the review of what they all write.
 */
export function registerAgentFeatures(context: vscode.ExtensionContext, services: Services): void {
  const own = (...disposables: vscode.Disposable[]) => context.subscriptions.push(...disposables);
  own(...registerLanguageModelTools(services));
  own(...registerChatParticipant(services));
  own(registerWithoutChatModel());
  own(...registerMcpServerProvider(services));
  own(new ReviewTreeProvider(services));
  const inbox = new InboxWatcher(services);
  own(inbox);
  own(
    vscode.commands.registerCommand(AGENT_COMMANDS.ingestInbox, async () => {
      if (!requireTrust('read the agent inbox')) return;
      const folders = services.registry.folders();
      const outcomes = (await Promise.all(folders.map((f) => inbox.ingest(f)))).flat();
      if (outcomes.length === 0) void vscode.window.showInformationMessage('Context Ledger: the agent inbox is empty.');
    }),
  );
}
