/**
 * The ledger in an agent CLI's own loop, offered from VS Code: where a trusted workspace has a
 * ledger and an agent's project folder (`.claude/`, `.gemini/`, `.codex/`, `.github/hooks/`) without the ledger's
 * hooks, the extension asks once whether to install them; **Context Ledger: Connect Agent
 * Hooks…** does the same on request. Nothing is written without the person's yes, and "Don't
 * Ask Again" is remembered for that folder and agent (workspace state). Installing is the one
 * code path of `context-ledger hooks install` (src/node/hooks/agentHooks.ts), into the person's
 * own, uncommitted settings, with a command that runs this extension's hook client by absolute
 * path: the copy kept in the extension's global storage (refreshed at every activation), not the
 * extension's own folder, which an update replaces (src/node/hooks/stableClient.ts); docs/hooks.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HookAgent } from '../../core/hooks/agents';
import { UserError } from '../../core/model';
import { AFTER_INSTALL, HOOK_CONFIG_FILES, changeAgentHooks, hooksInstalled, shellQuote } from '../../node/hooks/agentHooks';
import { refreshStableClient } from '../../node/hooks/stableClient';
import type { Services } from '../services';
import { requireTrust } from '../trust';
import { AGENT_COMMANDS } from './ids';

/** The agents whose hooks carry context (verified with their binaries), and the folder that says a project uses one. */
const AGENTS: ReadonlyArray<{ agent: HookAgent; folder: string; name: string }> = [
  { agent: 'claude-code', folder: '.claude', name: 'Claude Code' },
  { agent: 'gemini-cli', folder: '.gemini', name: 'Gemini CLI' },
  { agent: 'codex', folder: '.codex', name: 'Codex' },
  { agent: 'copilot-cli', folder: '.github/hooks', name: 'Copilot CLI' },
];

const CONNECT = 'Connect';
const NOT_NOW = 'Not Now';
const NEVER = "Don't Ask Again";

const dontAskKey = (folder: vscode.WorkspaceFolder, agent: HookAgent): string => `contextLedger.hooksOffer.dontAsk:${agent}:${folder.uri.toString()}`;

/**
 * The command the hooks run: the hook client's copy in this extension's global storage, by the
 * extension host's own executable. In desktop VS Code that is Electron, which runs a script as
 * Node with ELECTRON_RUN_AS_NODE (the agents run hook commands through a shell).
 */
function runner(client: string): string {
  const command = `${shellQuote(process.execPath)} ${shellQuote(client)}`;
  return process.versions.electron !== undefined ? `ELECTRON_RUN_AS_NODE=1 ${command}` : command;
}

/** The copy of the hook client the installed hooks run, refreshed from this version of the extension. */
function stableClient(s: Services): string {
  return refreshStableClient(s.context.globalStorageUri.fsPath, path.join(s.context.extensionPath, 'dist'));
}

function install(s: Services, folder: vscode.WorkspaceFolder, agent: (typeof AGENTS)[number]): void {
  try {
    const client = stableClient(s);
    const report = changeAgentHooks(folder.uri.fsPath, { agent: agent.agent, install: true, shared: false, runner: runner(client), guard: client });
    for (const change of report.changes) s.logger.info(`${report.relative}: ${change.change} ${change.eventName}: ${change.command}`);
    const done =
      report.changes.length === 0
        ? `Context Ledger: ${agent.name} has the ledger's hooks already (${report.relative}).`
        : `Context Ledger: ${agent.name} now gets the ledger's context in its loop (${report.relative}, yours, not committed).${AFTER_INSTALL[agent.agent] ? ` ${AFTER_INSTALL[agent.agent]}` : ''}`;
    void vscode.window.showInformationMessage(done);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    void vscode.window.showErrorMessage(`Context Ledger: ${error.message}${error.hint ? ` ${error.hint}` : ''}`);
  }
}

/** Agents `folder` shows signs of using, without the ledger's hooks, not declined for good. */
function candidates(s: Services, folder: vscode.WorkspaceFolder): Array<(typeof AGENTS)[number]> {
  const root = folder.uri.fsPath;
  return AGENTS.filter((a) => fs.existsSync(path.join(root, a.folder)) && !hooksInstalled(root, a.agent) && s.context.workspaceState.get<boolean>(dontAskKey(folder, a.agent)) !== true);
}

/** Asks, one agent at a time, for the trusted folders with a ledger; each question at most once a session. */
async function offer(s: Services, asked: Set<string>): Promise<void> {
  if (!vscode.workspace.isTrusted) return;
  for (const folder of s.registry.foldersWithLedger().filter((f) => f.uri.scheme === 'file')) {
    for (const agent of candidates(s, folder)) {
      const key = dontAskKey(folder, agent.agent);
      if (asked.has(key)) continue;
      asked.add(key);
      const where = HOOK_CONFIG_FILES[agent.agent]?.local ?? '';
      const pick = await vscode.window.showInformationMessage(
        `Give ${agent.name} this project's ledger context by itself, at each prompt${agent.agent === 'codex' ? '' : ' and each file it writes'}? Context Ledger would add its hooks to ${where} in ${folder.name} (yours, not committed).`,
        CONNECT,
        NOT_NOW,
        NEVER,
      );
      if (pick === CONNECT) install(s, folder, agent);
      else if (pick === NEVER) await s.context.workspaceState.update(key, true);
    }
  }
}

/** The command: the person picks the folder (when there are several) and the agent; the pick is the yes. */
async function connect(s: Services): Promise<void> {
  if (!requireTrust('install agent hooks')) return;
  const folders = s.registry.folders().filter((f) => f.uri.scheme === 'file');
  const folder = folders.length <= 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'The project whose agent gets the ledger’s context' });
  if (folder === undefined) return;
  const root = folder.uri.fsPath;
  const picked = await vscode.window.showQuickPick(
    AGENTS.map((a) => ({
      label: a.name,
      description: hooksInstalled(root, a.agent) ? 'connected' : fs.existsSync(path.join(root, a.folder)) ? `${a.folder}/ found` : '',
      detail: `Adds the ledger's hooks to ${HOOK_CONFIG_FILES[a.agent]?.local ?? ''} (yours, not committed); \`context-ledger hooks uninstall ${a.agent}\` takes them out.`,
      agent: a,
    })),
    { title: 'Context Ledger: Connect Agent Hooks', placeHolder: 'The agent CLI that should get the ledger’s context in its own loop' },
  );
  if (picked === undefined) return;
  install(s, folder, picked.agent);
}

export function registerHooksOffer(s: Services): vscode.Disposable[] {
  // Hooks installed by an earlier version run this copy: after an update it must be this version's.
  // File work, so after activation returns rather than inside it.
  const refresh = setTimeout(() => {
    try {
      stableClient(s);
    } catch (error) {
      s.logger.error('Refreshing the agent hooks’ client failed', error);
    }
  }, 0);
  const asked = new Set<string>();
  const ask = (): void => {
    offer(s, asked).catch((error: unknown) => s.logger.error('The agent hooks offer failed', error));
  };
  ask();
  return [
    { dispose: () => clearTimeout(refresh) },
    vscode.commands.registerCommand(AGENT_COMMANDS.connectAgentHooks, () => connect(s)),
    s.registry.onDidChange(ask),
    vscode.workspace.onDidGrantWorkspaceTrust(ask),
  ];
}
