/**
 * What an agent writes through the MCP server reaches the workspace's Markdown mirror at
 * once, like any CLI write, so the next commit carries it (issue 19): the built server
 * (dist/cli.js mcp) driven by the official SDK client, on a real workspace ledger.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cli, tempDir } from '../helpers';

test('create_artifact through MCP writes its mirror file and leaves the others as they were', async () => {
  const workspace = tempDir('ledger-mcp-mirror-');
  assert.equal(cli(['add', '--type', 'decision', '--title', 'Existing decision', '--body', 'kept'], { cwd: workspace }).code, 0);
  const mirror = path.join(workspace, '.context-ledger', 'artifacts');
  const existing = path.join(mirror, 'decision', 'existing-decision.md');
  const before = fs.statSync(existing).mtimeMs;

  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: workspace, stderr: 'pipe' });
  const client = new Client({ name: 'mirror-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'create_artifact', arguments: { type: 'learning', title: 'Retries need jitter — naïve delays herd', body: 'Use full jitter.' } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
  } finally {
    await client.close();
  }
  const learnings = fs.readdirSync(path.join(mirror, 'learning'));
  assert.equal(learnings.length, 1, learnings.join(', '));
  const text = fs.readFileSync(path.join(mirror, 'learning', learnings[0]!), 'utf8');
  assert.match(text, /title: "Retries need jitter — naïve delays herd"/);
  assert.match(text, /\nUse full jitter\.\n$/);
  assert.equal(fs.statSync(existing).mtimeMs, before, 'the other file was not rewritten');
});
