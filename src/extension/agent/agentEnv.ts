import type * as vscode from 'vscode';
import type { AgentToolEnv, LedgerAccess } from '../../core/agentTools';
import type { AgentChannel } from '../../core/review';
import type { ChatTurn } from '../../core/sources';
import type { Services } from '../services';

/**
 * Store access for the agent tools over a folder's ledger. A read-only tool only logs
 * its assembly; in a folder without a database that log goes to the in-memory ledger
 * rather than creating `.context-ledger/` behind the user's back.
 */
export function folderLedgerAccess(s: Services, folder: vscode.WorkspaceFolder, readOnly: boolean): LedgerAccess {
  const ledger = s.registry.get(folder);
  return {
    read: (fn) => ledger.read(fn),
    write: (fn) => (readOnly && !ledger.exists() ? ledger.read(fn) : ledger.write(fn, readOnly ? 'log' : 'artifacts')),
  };
}

/** The tools' environment for `folder`: its ledger, settings and the paths in front of the user. */
export function agentEnvFor(
  s: Services,
  folder: vscode.WorkspaceFolder,
  options: { channel: AgentChannel; readOnly: boolean; agent?: string; budgetCap?: number; conversation?: readonly ChatTurn[] },
): AgentToolEnv {
  const config = s.config.get(folder.uri);
  const budget = options.budgetCap !== undefined && options.budgetCap > 0 ? Math.min(config.budget, Math.floor(options.budgetCap)) : config.budget;
  return {
    ledger: folderLedgerAccess(s, folder, options.readOnly),
    channel: options.channel,
    ...(options.agent ? { agent: options.agent } : {}),
    workspaceRoot: folder.uri.fsPath.replace(/\\/g, '/'),
    defaultBudget: budget,
    tokenizer: config.tokenizer,
    assembleOptions: s.config.assembleOptions(folder.uri),
    activePaths: () => s.registry.get(folder).read((store) => s.contexts.activePathsFor(folder, store)),
    liveSources: (task) => s.contexts.liveSources(folder, task, options.conversation),
  };
}
