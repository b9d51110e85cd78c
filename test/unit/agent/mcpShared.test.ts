/**
 * MCP servers on stdio keep no ledger of their own: the workspace's ledger server (the one the
 * agent hooks use) keeps it, and every MCP server on the workspace sends its ledger requests
 * there (src/cli/mcp/remote.ts). The built server (dist/cli.js mcp), driven by the SDK client
 * agents embed, on real workspace files: two servers share one ledger process, each sees the
 * other's writes and a teammate's file with no command in between, the socket is private, and a
 * server whose ledger server is off or killed still answers.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cli, tempDir } from '../helpers';

interface Served {
  client: Client;
  stderr: () => string;
}

const opened: Client[] = [];
after(async () => {
  for (const client of opened) await client.close().catch(() => undefined);
});

async function serve(workspace: string, env: Record<string, string> = {}): Promise<Served> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: workspace, stderr: 'pipe', env: { ...(process.env as Record<string, string>), ...env } });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'shared-test', version: '1.0.0' });
  await client.connect(transport);
  opened.push(client);
  return { client, stderr: () => stderr };
}

async function text(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  assert.notEqual(result.isError, true, result.content[0]?.text);
  return result.content[0]!.text;
}

/** The ledger servers (`cli.js hook --serve`) running in `workspace`. */
function ledgerServers(workspace: string): number[] {
  const real = fs.realpathSync(workspace);
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args[1] !== CLI || args[2] !== 'hook' || args[3] !== '--serve') continue;
      if (fs.realpathSync(`/proc/${name}/cwd`) === real) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Ends the workspace's ledger servers and waits until they are gone (each writes a last log line into the workspace). */
async function stopServers(workspace: string): Promise<void> {
  for (const pid of ledgerServers(workspace)) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && ledgerServers(workspace).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

test('two MCP servers on one workspace share one ledger server: writes, a teammate\'s file, a private socket', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const workspace = tempDir('ledger-mcp-shared-');
  assert.equal(cli(['add', '--type', 'decision', '--title', 'Queue broker is RabbitMQ', '--body', 'Webhook jobs go through RabbitMQ.'], { cwd: workspace }).code, 0);
  const a = await serve(workspace);
  const b = await serve(workspace);
  try {
    assert.match(a.stderr(), /the ledger is kept by the workspace's ledger server/);
    assert.match(b.stderr(), /the ledger is kept by the workspace's ledger server/);
    assert.equal(ledgerServers(workspace).length, 1, 'one ledger process for both MCP servers');

    // A write through one is read through the other.
    await text(a.client, 'create_artifact', { type: 'learning', title: 'Retries need jitter — naïve delays herd', body: 'Use full jitter between webhook retries.' });
    assert.match(await text(b.client, 'search_artifacts', { query: 'jitter' }), /Retries need jitter — naïve delays herd/);

    // A teammate's artifact file (the CLI's add writes the file alone), with no command in between.
    assert.equal(cli(['add', '--type', 'convention', '--title', 'Idempotency keys on every webhook', '--body', 'Store the provider event id.'], { cwd: workspace }).code, 0);
    assert.match(await text(b.client, 'search_artifacts', { query: 'idempotency' }), /Idempotency keys on every webhook/);
    assert.match(await text(a.client, 'build_context', { task: 'webhook retries and idempotency', budget: 4000 }), /Idempotency keys on every webhook/);

    // The socket is the user's only.
    const folder = path.join(os.tmpdir(), `context-ledger-${process.getuid!()}`);
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    const sockets = fs.readdirSync(folder).filter((f) => f.endsWith('.sock'));
    assert.ok(sockets.length > 0);
    for (const socket of sockets) assert.equal(fs.statSync(path.join(folder, socket)).mode & 0o077, 0, `${socket} is private`);
  } finally {
    await a.client.close();
    await b.client.close();
    await stopServers(workspace);
    fs.rmSync(workspace, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test('an MCP server whose ledger server is killed mid-session answers on its own from then on', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const workspace = tempDir('ledger-mcp-killed-');
  assert.equal(cli(['add', '--type', 'decision', '--title', 'Queue broker is RabbitMQ', '--body', 'Webhook jobs go through RabbitMQ.'], { cwd: workspace }).code, 0);
  const a = await serve(workspace);
  try {
    assert.match(await text(a.client, 'search_artifacts', { query: 'RabbitMQ' }), /Queue broker is RabbitMQ/);
    const [server] = ledgerServers(workspace);
    assert.ok(server !== undefined);
    process.kill(server, 'SIGKILL');
    for (let i = 0; i < 50 && !/stopped/.test(a.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(a.stderr(), /the workspace's ledger server stopped: this server keeps the ledger itself for the rest of the session/);
    assert.match(await text(a.client, 'search_artifacts', { query: 'RabbitMQ' }), /Queue broker is RabbitMQ/);
    await text(a.client, 'create_artifact', { type: 'learning', title: 'Written after the server went away', body: 'Still recorded.' });
    assert.equal(cli(['list', '--text', 'went away'], { cwd: workspace }).stdout.includes('Written after the server went away'), true);
  } finally {
    await a.client.close();
    fs.rmSync(workspace, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test('with the ledger server off (CONTEXT_LEDGER_HOOK_SERVER=off) an MCP server keeps its own ledger, as before', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const workspace = tempDir('ledger-mcp-own-');
  assert.equal(cli(['add', '--type', 'decision', '--title', 'Queue broker is RabbitMQ', '--body', 'Webhook jobs go through RabbitMQ.'], { cwd: workspace }).code, 0);
  const a = await serve(workspace, { CONTEXT_LEDGER_HOOK_SERVER: 'off' });
  try {
    assert.match(await text(a.client, 'search_artifacts', { query: 'RabbitMQ' }), /Queue broker is RabbitMQ/);
    assert.doesNotMatch(a.stderr(), /workspace's ledger server/);
    assert.deepEqual(ledgerServers(workspace), []);
  } finally {
    await a.client.close();
    fs.rmSync(workspace, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});

test('the relay an agent starts loads neither the MCP SDK nor zod nor the ledger; the answers are the server\'s', async () => {
  const workspace = tempDir('ledger-mcp-relay-');
  assert.equal(cli(['add', '--type', 'decision', '--title', 'Queue broker is RabbitMQ', '--body', 'Webhook jobs go through RabbitMQ.'], { cwd: workspace }).code, 0);
  // Preloaded into the MCP process: prints the files it loaded when it exits.
  const probe = path.join(workspace, 'probe.cjs');
  fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n");
  try {
    const child = spawn(process.execPath, ['-r', probe, CLI, 'mcp'], { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...(message as object) })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'relay-test', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'search_artifacts', arguments: { query: 'RabbitMQ' } } });
    for (let i = 0; i < 300 && !/"id":2\}/.test(out); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    assert.match(out, /Queue broker is RabbitMQ/);
    assert.match(err, /kept by the workspace's ledger server/);
    const files = JSON.parse(/^LOADED (.*)$/m.exec(err)![1]!) as string[];
    assert.ok(files.some((f) => f.endsWith('cli.js')));
    assert.deepEqual(files.filter((f) => /vendor-(agent|zod)\.js|tokenizer-/.test(f)), []);
  } finally {
    await stopServers(workspace);
    fs.rmSync(workspace, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
});
