import * as vscode from 'vscode';
import { lazily } from '../lazy';
import type { Services } from '../services';
import { requireTrust } from '../trust';
import type { LedgerChatMetadata, RememberSaveArgs } from './chatParticipant';
import { AGENT_COMMANDS, CHAT_COMMANDS, CHAT_PARTICIPANT_ID } from './ids';
import { InboxWatcher } from './inboxWatcher';
import { registerMcpServerProvider } from './mcpProvider';
import { ReviewTreeProvider } from './reviewView';
import { registerWithoutChatModel } from './withoutChatModel';

/**
 * The agent loop: language-model tools and the `@ledger` participant (agents in VS Code),
 * the MCP server definition (agents reached through VS Code's MCP client), the inbox
 * (agents without tools) and the review of what they all write. The tools and the chat
 * are registered here and loaded on their first use: with them come the tool schemas
 * (zod) and the chat's answers, which activation does not need.
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

const chat = lazily(() => import('./chatParticipant.js'));
const tools = lazily(() => import('./lmTools.js'));

/** The tool names the manifest contributes (a unit test keeps them equal to the core's agent tools). */
function contributedToolNames(s: Services): string[] {
  const contributes = (s.context.extension.packageJSON as { contributes?: { languageModelTools?: { name?: unknown }[] } }).contributes;
  return (contributes?.languageModelTools ?? []).map((t) => t.name).filter((name): name is string => typeof name === 'string');
}

/** Registers every contributed agent tool with `vscode.lm` (VS Code 1.95+; feature-detected). */
function registerLanguageModelTools(s: Services): vscode.Disposable[] {
  if (typeof vscode.lm?.registerTool !== 'function') {
    s.logger.info('Language-model tools are not available in this editor; the agent tools are offered over MCP only.');
    return [];
  }
  return contributedToolNames(s).map((name) => {
    const tool = lazily(async () => {
      const found = (await tools()).languageModelTool(name, s);
      if (!found) throw new Error(`Context Ledger has no tool named ${name}`);
      return found;
    });
    return vscode.lm.registerTool<unknown>(name, {
      prepareInvocation: async (options, token) => (await tool()).prepareInvocation?.(options, token),
      invoke: async (options, token) => (await tool()).invoke(options, token),
    });
  });
}

/** `@ledger` (VS Code 1.90+; feature-detected): its answers load on the first request. */
function registerChatParticipant(s: Services): vscode.Disposable[] {
  if (typeof vscode.chat?.createChatParticipant !== 'function') return [];
  const participant = vscode.chat.createChatParticipant(CHAT_PARTICIPANT_ID, async (request, context, stream, token) =>
    (await chat()).handleChatRequest(s, request, context, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(s.context.extensionUri, 'media', 'ledger.svg');
  participant.followupProvider = {
    provideFollowups(result: vscode.ChatResult): vscode.ChatFollowup[] {
      const meta = result.metadata as LedgerChatMetadata | undefined;
      if (!meta) return [];
      if ((meta.command === CHAT_COMMANDS.search || meta.command === CHAT_COMMANDS.context) && meta.artifactId) {
        return [{ prompt: meta.artifactId, command: CHAT_COMMANDS.explain, label: `Why is ${meta.artifactId} in or out?` }];
      }
      if (meta.command === CHAT_COMMANDS.context) return [{ prompt: '', command: CHAT_COMMANDS.explain, label: 'Explain every choice' }];
      return [];
    },
  };
  const save = vscode.commands.registerCommand(AGENT_COMMANDS.rememberSave, async (args: RememberSaveArgs) => (await chat()).saveRemembered(s, args));
  return [participant, save];
}
