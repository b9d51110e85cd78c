/**
 * Claude Code's own MCP client against `context-ledger mcp`, end to end: the server registered
 * as the README tells a user (`claude mcp add --scope project …`), the real Claude Code binary
 * against a scripted model, and what the model received asserted. MCP tools are deferred in
 * Claude Code: the model first selects the tool with ToolSearch, then calls it.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { TokenCounter } from '../../src/core/tokens';
import { CLI_PATH, claudeBinary, createWorkspace, requestText, runClaude, startScriptedModel } from './harness';

const DECISION = 'Refunds of cancelled bookings go back to the original card within 5 days (marker LEDGER-MCP-8812).';
const TOOL = 'mcp__context-ledger__build_context';
const BUDGET = 2000;

type Block = { type: string; text?: string; content?: unknown; tool_use_id?: string; id?: string; name?: string };

/** The tool_result blocks of the last user message of a Messages API request. */
function toolResults(body: Record<string, unknown>): Block[] {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages[messages.length - 1]!;
  return Array.isArray(last.content) ? (last.content as Block[]).filter((b) => b.type === 'tool_result') : [];
}

test("Claude Code's MCP client lists and calls build_context; the model gets the context once, within its budget", async () => {
  const ws = createWorkspace({ files: { 'src/bookings/refund.ts': 'export {};\n' } });
  const model = await startScriptedModel([
    { tool: { name: 'ToolSearch', input: { query: `select:${TOOL}` } } },
    { tool: { name: TOOL, input: { task: 'Refund the deposit when a booking is cancelled', paths: ['src/bookings/refund.ts'], budget: BUDGET } } },
    { text: 'Used the refund decision.' },
  ]);
  try {
    const env = { ...process.env, HOME: ws.home };
    for (const args of [
      ['init'],
      ['add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION],
      ...Array.from({ length: 30 }, (_, i) => ['add', '--type', 'note', '--title', `Booking note ${i}`, '--body', `Bookings and refunds: detail ${i}. ${'Cancelled bookings keep their history. '.repeat(20)}`]),
    ]) {
      const r = spawnSync(process.execPath, [CLI_PATH, ...args], { cwd: ws.dir, env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    // Registered as the README says, by Claude Code itself.
    const added = spawnSync(claudeBinary(), ['mcp', 'add', '--scope', 'project', 'context-ledger', '--', process.execPath, CLI_PATH, 'mcp'], { cwd: ws.dir, env, encoding: 'utf8' });
    assert.equal(added.status, 0, added.stderr);
    const config = path.join(ws.dir, '.mcp.json');
    const written = JSON.parse(fs.readFileSync(config, 'utf8')) as { mcpServers: Record<string, { args: string[] }> };
    assert.deepEqual(written.mcpServers['context-ledger']?.args, [CLI_PATH, 'mcp']);

    const run = await runClaude({
      workspace: ws,
      baseUrl: model.url,
      prompt: 'Refund the deposit when a booking is cancelled',
      args: ['--mcp-config', config, '--strict-mcp-config', '--allowedTools', TOOL],
    });
    assert.equal(run.code, 0, `claude failed: ${run.stderr}`);
    assert.match(run.stdout, /Used the refund decision\./);
    if (process.env.CLAUDE_MCP_DUMP) fs.writeFileSync(process.env.CLAUDE_MCP_DUMP, JSON.stringify({ requests: model.requests, stderr: run.stderr, stdout: run.stdout }, null, 1));
    const [first, second, third] = model.mainRequests();
    assert.ok(first && second && third, `three main-loop requests, got ${model.mainRequests().length}`);

    // Listed: the deferred tool is named in the first request and described once selected.
    assert.ok(JSON.stringify(first).includes(TOOL), 'the first request names the MCP tool');
    assert.ok(requestText(third).includes('LEDGER-MCP-8812'), 'the context reaches the model');
    assert.match(JSON.stringify(second), /recorded knowledge/);

    // Called: the tool result the model gets is the context, once, in one part, within the budget.
    const [result] = toolResults(third);
    assert.ok(result, `no tool_result in ${JSON.stringify(third.messages).slice(-600)}`);
    const parts = Array.isArray(result.content) ? (result.content as Block[]) : [{ type: 'text', text: String(result.content) }];
    const text = parts.map((p) => p.text ?? '').join('\n');
    assert.equal(parts.length, 1, `one part, not one per item: ${JSON.stringify(parts).slice(0, 400)}`);
    assert.equal(text.split(DECISION).length - 1, 1, `the decision once: ${text.slice(0, 400)}`);
    const counter = await TokenCounter.load('o200k_base');
    const tokens = counter.count(JSON.stringify(result.content));
    assert.ok(tokens <= BUDGET, `the model received ${tokens} tokens for a ${BUDGET}-token budget`);
    assert.equal(fs.existsSync(path.join(ws.home, '.context-ledger')), false);
  } finally {
    await model.close();
    ws.dispose();
  }
});
