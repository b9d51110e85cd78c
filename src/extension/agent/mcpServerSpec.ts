/**
 * The stdio MCP server VS Code (1.101+) starts for a workspace folder: the bundled CLI's
 * `mcp` command on the folder's database, run by the editor's own Node. vscode-free.
 */

export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  version: string;
}

export function mcpServerSpec(options: {
  folderName: string;
  folderPath: string;
  databaseFile: string;
  cliPath: string;
  /** The extension host's executable (Electron in desktop VS Code, Node in code-server). */
  execPath: string;
  version: string;
  multiRoot: boolean;
  /** The folder's contextLedger.agent.unreviewed, so MCP agents see what the language-model tools see. */
  unreviewed?: 'include' | 'hold';
}): McpServerSpec {
  return {
    label: options.multiRoot ? `Context Ledger (${options.folderName})` : 'Context Ledger',
    command: options.execPath,
    args: [options.cliPath, 'mcp', '--db', options.databaseFile, ...(options.unreviewed ? ['--unreviewed', options.unreviewed] : [])],
    // Makes Electron behave as plain Node; Node ignores it.
    env: { ELECTRON_RUN_AS_NODE: '1' },
    // The server makes absolute paths agents send relative to its working folder.
    cwd: options.folderPath,
    version: options.version,
  };
}
