import * as vscode from 'vscode';
import { AGENT_TOOLS, type AgentTool } from '../../core/agentTools';
import type { Services } from '../services';
import { agentEnvFor } from './agentEnv';
import { SETTINGS_SECTION } from '../ids';
import { AGENT_SETTINGS } from './ids';
import { confirmationFor, invocationMessage, isWriteTool, runForModel } from './lmToolModel';

const NO_FOLDER =
  'The Context Ledger needs an open workspace folder, and none is open. Tell the user to open the project folder; do not retry.';

/** One `vscode.lm` tool per core agent tool; the work and its validation stay in the core. */
class LedgerLanguageModelTool implements vscode.LanguageModelTool<unknown> {
  constructor(
    private readonly tool: AgentTool,
    private readonly s: Services,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): Promise<vscode.PreparedToolInvocation> {
    const invocation = invocationMessage(this.tool, options.input);
    const folder = this.s.contexts.currentFolder();
    if (!folder || !isWriteTool(this.tool) || !confirmWrites(folder)) return { invocationMessage: invocation };
    const confirmation = await this.s.registry.get(folder).read((store) => confirmationFor(this.tool, options.input, store));
    if (!confirmation) return { invocationMessage: invocation };
    return {
      invocationMessage: invocation,
      confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>): Promise<vscode.LanguageModelToolResult> {
    const folder = this.s.contexts.currentFolder();
    let text: string;
    if (!folder) {
      text = NO_FOLDER;
    } else {
      const env = agentEnvFor(this.s, folder, {
        channel: 'lm-tool',
        readOnly: !isWriteTool(this.tool),
        ...(options.tokenizationOptions ? { budgetCap: options.tokenizationOptions.tokenBudget } : {}),
      });
      text = await runForModel(this.tool, env, options.input, (error) => this.s.logger.error(`Tool ${this.tool.lmName}`, error));
      if (isWriteTool(this.tool)) this.s.artifactTree.refresh();
    }
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  }
}

function confirmWrites(folder: vscode.WorkspaceFolder): boolean {
  return vscode.workspace.getConfiguration(SETTINGS_SECTION, folder.uri).get<boolean>(AGENT_SETTINGS.confirmWrites) !== false;
}

/** The `vscode.lm` tool named `lmName` (loaded on the first call: see ./index.ts), or undefined when the core has no such tool. */
export function languageModelTool(lmName: string, s: Services): vscode.LanguageModelTool<unknown> | undefined {
  const tool = AGENT_TOOLS.find((t) => t.lmName === lmName);
  return tool ? new LedgerLanguageModelTool(tool, s) : undefined;
}
