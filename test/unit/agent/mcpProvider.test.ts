import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_TOOLS } from '../../../src/core/agentTools';
import { mcpServerSpec } from '../../../src/extension/agent/mcpServerSpec';
import { CLI, cli, tempDir } from '../helpers';

const dir = tempDir('ledger-mcp-spec-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the server definition VS Code is given starts a working MCP server on the folder database', async () => {
  const folder = path.join(dir, 'Mein Projekt ✓');
  const db = path.join(folder, '.context-ledger', 'ledger.db');
  fs.mkdirSync(path.dirname(db), { recursive: true });
  assert.equal(cli(['add', '--db', db, '--type', 'convention', '--title', 'Prices are integers in cents', '--body', 'Never floats for money.']).code, 0);

  const spec = mcpServerSpec({ folderName: 'Mein Projekt ✓', folderPath: folder, databaseFile: db, cliPath: CLI, execPath: process.execPath, version: '0.1.0', multiRoot: true });
  assert.equal(spec.label, 'Context Ledger (Mein Projekt ✓)');
  assert.deepEqual(spec.args, [CLI, 'mcp', '--db', db]);
  assert.equal(mcpServerSpec({ folderName: 'x', folderPath: folder, databaseFile: db, cliPath: CLI, execPath: 'node', version: '1', multiRoot: false }).label, 'Context Ledger');
  // The folder's contextLedger.agent.unreviewed travels as a flag, so MCP agents see what the language-model tools see.
  assert.deepEqual(mcpServerSpec({ folderName: 'x', folderPath: folder, databaseFile: db, cliPath: CLI, execPath: 'node', version: '1', multiRoot: false, unreviewed: 'hold' }).args, [CLI, 'mcp', '--db', db, '--unreviewed', 'hold']);

  // Started as VS Code starts it: command, args, env over the inherited environment, cwd.
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...(process.env as Record<string, string>), ...spec.env }, cwd: spec.cwd, stderr: 'pipe' });
  const client = new Client({ name: 'vscode-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), MCP_TOOLS.map((t) => t.name));
    const result = await client.callTool({ name: 'search_artifacts', arguments: { query: 'cents' } });
    const text = (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
    assert.match(text, /Prices are integers in cents/);
    // An absolute path inside the folder is made relative to the server's cwd (the folder).
    const created = await client.callTool({
      name: 'create_artifact',
      arguments: { type: 'module_memory', title: 'Checkout module', body: 'Totals are computed server-side.', paths: [path.join(folder, 'src', 'checkout', '**')] },
    });
    assert.notEqual(created.isError, true, JSON.stringify(created.content));
    const listed = JSON.parse(cli(['list', '--db', db, '--format', 'json']).stdout) as Array<{ title: string; paths: string[] }>;
    assert.deepEqual(listed.find((a) => a.title === 'Checkout module')?.paths, ['src/checkout/**']);
  } finally {
    await client.close();
  }
});
