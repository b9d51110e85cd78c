import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { AGENT_SETTINGS, MCP_PROVIDER_ID } from './ids';
import { SETTINGS_SECTION } from '../ids';
import { mcpServerSpec } from './mcpServerSpec';

/**
 * The MCP API (stable in VS Code 1.101) is newer than the 1.100 types this extension is
 * built against, so it is reached through these narrow shapes and feature-detected.
 */
interface McpStdioServerDefinitionLike {
  cwd?: vscode.Uri;
}
type McpStdioServerDefinitionClass = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => McpStdioServerDefinitionLike;
interface McpServerDefinitionProviderLike {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinitionLike[]>;
}
type RegisterMcpProvider = (id: string, provider: McpServerDefinitionProviderLike) => vscode.Disposable;

/** Offers `context-ledger mcp` for each trusted workspace folder to VS Code's MCP client, where the API exists. */
export function registerMcpServerProvider(s: Services): vscode.Disposable[] {
  const register = (vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterMcpProvider }).registerMcpServerDefinitionProvider;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionClass }).McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') {
    s.logger.info('This editor has no MCP server provider API (VS Code 1.101+); agents can still run `context-ledger mcp` themselves.');
    return [];
  }
  const changed = new vscode.EventEmitter<void>();
  const cliPath = path.join(s.context.extensionPath, 'dist', 'cli.js');
  const declared = (s.context.extension.packageJSON as { version?: unknown }).version;
  const version = typeof declared === 'string' ? declared : '0';
  const provider: McpServerDefinitionProviderLike = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      // The server writes to the workspace; like the other writers, only where the folder is trusted.
      if (!vscode.workspace.isTrusted) return [];
      const folders = s.registry.folders();
      return folders
        .filter((folder) => folder.uri.scheme === 'file')
        .filter((folder) => vscode.workspace.getConfiguration(SETTINGS_SECTION, folder.uri).get<boolean>(AGENT_SETTINGS.mcpProvider) !== false)
        .map((folder) => {
          const spec = mcpServerSpec({
            folderName: folder.name,
            folderPath: folder.uri.fsPath,
            databaseFile: s.registry.databaseFile(folder),
            cliPath,
            execPath: process.execPath,
            version,
            multiRoot: folders.length > 1,
            unreviewed: s.config.get(folder.uri).unreviewed,
          });
          const definition = new Definition(spec.label, spec.command, spec.args, spec.env, spec.version);
          definition.cwd = vscode.Uri.file(spec.cwd);
          return definition;
        });
    },
  };
  try {
    const registration = register(MCP_PROVIDER_ID, provider);
    s.logger.info('Registered the Context Ledger MCP server with the editor.');
    return [
      registration,
      changed,
      vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        const ours = [AGENT_SETTINGS.mcpProvider, 'databasePath', 'agent.unreviewed'].some((name) => event.affectsConfiguration(`${SETTINGS_SECTION}.${name}`));
        if (ours) changed.fire();
      }),
    ];
  } catch (error) {
    // VS Code 1.100 has the function behind a proposed-API check that throws for extensions.
    changed.dispose();
    s.logger.info(`The editor refused the MCP server provider (${error instanceof Error ? error.message : String(error)}); agents can still run \`context-ledger mcp\`.`);
    return [];
  }
}
