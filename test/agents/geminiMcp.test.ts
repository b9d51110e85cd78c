/**
 * Gemini CLI's own MCP client against `context-ledger mcp`, end to end: the server registered
 * as docs/mcp.md tells a user (`gemini mcp add context-ledger node …/cli.js mcp`, which writes
 * the project's .gemini/settings.json), the real Gemini CLI against a scripted model, and what
 * the model received asserted — once on stdio, once over Streamable HTTP (`mcp --http`).
 * Headless (`gemini -p`), Gemini CLI offers an MCP server's tools to the model only when the
 * server is allowed for the run (`--allowed-mcp-server-names`) or trusted: without either, the
 * first request lists none of them (verified with 0.61.0).
 */
import { strict as assert } from 'node:assert';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI_PATH, createWorkspace, geminiScript, requestText, runGemini, startScriptedModel, type Workspace } from './harness';

const DECISION = 'Refunds of cancelled bookings go back to the original card within 5 days (marker LEDGER-GEMINI-MCP-5521).';
const TOOL = 'mcp_context-ledger_build_context';
const TOOLS = ['build_context', 'get_artifact', 'search_artifacts', 'create_artifact', 'propose_version', 'propose_supersession', 'explain', 'which'];

function run(ws: Workspace, bin: string, args: string[]): string {
  const r = spawnSync(bin, args, { cwd: ws.dir, env: { ...process.env, HOME: ws.home }, encoding: 'utf8' });
  assert.equal(r.status, 0, `${path.basename(bin)} ${args.join(' ')} failed: ${r.stderr}`);
  // Gemini CLI says what `mcp add` did on stderr.
  return r.stdout + r.stderr;
}

function ledgerWorkspace(): Workspace {
  const ws = createWorkspace({ files: { 'src/bookings/refund.ts': 'export {};\n' } });
  run(ws, process.execPath, [CLI_PATH, 'init']);
  run(ws, process.execPath, [CLI_PATH, 'add', '--type', 'decision', '--title', 'Refunds of cancelled bookings go back to the card', '--body', DECISION]);
  return ws;
}

/** The function declarations Gemini CLI offered the model, by name. */
function offered(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>;
  return tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** The functionResponse parts of a request, as JSON. */
function functionResponses(body: Record<string, unknown>): string[] {
  const contents = (body.contents ?? []) as Array<{ parts?: Array<{ functionResponse?: unknown }> }>;
  return contents.flatMap((c) => (c.parts ?? []).filter((p) => p.functionResponse !== undefined).map((p) => JSON.stringify(p.functionResponse)));
}

async function listAndCall(ws: Workspace): Promise<void> {
  const model = await startScriptedModel([
    { tool: { name: TOOL, input: { task: 'Refund the deposit when a booking is cancelled', paths: ['src/bookings/refund.ts'], budget: 2000 } } },
    { text: 'Used the refund decision.' },
  ]);
  try {
    const result = await runGemini({ workspace: ws, baseUrl: model.url, prompt: 'Refund the deposit when a booking is cancelled', args: ['--allowed-mcp-server-names', 'context-ledger'] });
    assert.equal(result.code, 0, `gemini failed: ${result.stderr}`);
    const [first, second] = model.mainRequests();
    assert.ok(first && second, `two main-loop requests, got ${model.mainRequests().length}: ${result.stderr.slice(-600)}`);
    // Listed: every tool of the server, under Gemini CLI's mcp_<server>_<tool> names, and the server's instructions.
    const names = offered(first);
    for (const tool of TOOLS) assert.ok(names.includes(`mcp_context-ledger_${tool}`), `${tool} not offered: ${names.join(', ')}`);
    assert.match(requestText(first), /instructions provided by the tool server 'context-ledger'[\s\S]*Call build_context at the start of a task/);
    // Called: the context comes back as the call's result, the decision once.
    const responses = functionResponses(second).join('\n');
    assert.equal(responses.split('LEDGER-GEMINI-MCP-5521').length - 1, 1, `the decision once in the tool's result: ${responses.slice(0, 600)}`);
    assert.match(result.stdout, /Used the refund decision\./);
  } finally {
    await model.close();
  }
}

test('Gemini CLI lists the server’s tools and calls build_context on stdio, registered with gemini mcp add', async () => {
  const ws = ledgerWorkspace();
  try {
    const added = run(ws, process.execPath, [geminiScript(), 'mcp', 'add', 'context-ledger', process.execPath, CLI_PATH, 'mcp']);
    assert.match(added, /added to project settings/);
    const settings = JSON.parse(fs.readFileSync(path.join(ws.dir, '.gemini', 'settings.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    assert.deepEqual(settings.mcpServers['context-ledger'], { command: process.execPath, args: [CLI_PATH, 'mcp'] });
    await listAndCall(ws);
    assert.equal(fs.existsSync(path.join(ws.home, '.context-ledger')), false, 'no ledger made in the home folder');
  } finally {
    ws.dispose();
  }
});

test('Gemini CLI lists and calls the same tools over Streamable HTTP (mcp --http on 127.0.0.1)', async () => {
  const ws = ledgerWorkspace();
  let server: ChildProcess | undefined;
  try {
    server = spawn(process.execPath, [CLI_PATH, 'mcp', '--http', '0'], { cwd: ws.dir, env: { ...process.env, HOME: ws.home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server printed no URL: ${log}`)), 30_000);
      server!.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      });
    });
    const added = run(ws, process.execPath, [geminiScript(), 'mcp', 'add', '--transport', 'http', 'context-ledger', url]);
    assert.match(added, /added to project settings/);
    await listAndCall(ws);
  } finally {
    server?.kill('SIGTERM');
    ws.dispose();
  }
});
