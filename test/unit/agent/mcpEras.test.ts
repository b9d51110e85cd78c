/**
 * Both protocol eras from one server: the official SDK v2 client (@modelcontextprotocol/client)
 * speaks 2025-11-25 (the `initialize` handshake) and 2026-07-28 (no handshake; the protocol
 * version, client info and capabilities in each request's `_meta`; `server/discover`) to the
 * built `context-ledger mcp`, on stdio and over Streamable HTTP (`--http`), on a real ledger.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, cli, tempDir } from '../helpers';

const MODERN = '2026-07-28';
type Era = 'legacy' | 'modern';
type Link = 'stdio' | 'http';

/** `context-ledger mcp --http 0` in `cwd`, once it says where it listens. */
async function startHttp(cwd: string, args: string[] = []): Promise<{ url: string; child: ChildProcess; stderr: () => string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'mcp', '--http', '0', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s: ${stderr}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function newClient(era: Era): Client {
  return new Client({ name: `eras-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
}

async function connect(era: Era, link: Link, dir: string, url: string): Promise<Client> {
  const client = newClient(era);
  const transport =
    link === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return client;
}

function text(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
}

describe('MCP: 2025-11-25 and 2026-07-28 from one server (SDK v2 client, stdio and HTTP)', () => {
  const dir = tempDir('ledger-mcp-eras-');
  let http: Awaited<ReturnType<typeof startHttp>>;
  let id = '';

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    const added = cli(['add', '--type', 'decision', '--title', 'Webhooks are idempotent', '--body', 'A retried payment webhook never books twice: the idempotency key is checked first.', '--format', 'json'], { cwd: dir });
    assert.equal(added.code, 0, added.stderr);
    id = (JSON.parse(added.stdout) as { id: string }).id;
    http = await startHttp(dir);
  });

  after(async () => {
    await http.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const link of ['stdio', 'http'] as const) {
    for (const era of ['legacy', 'modern'] as const) {
      test(`${era === 'modern' ? MODERN : '2025-11-25'} over ${link}: discover or handshake, tools, a call, a resource, a prompt, a completion`, async () => {
        const client = await connect(era, link, dir, http.url);
        try {
          assert.equal(client.getProtocolEra(), era);
          // server/discover (2026-07-28) or initialize (2025) gave the same server: its instructions and capabilities.
          assert.match(client.getInstructions() ?? '', /Context Ledger/);
          assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
          const { tools } = await client.listTools();
          assert.deepEqual(
            tools.map((t) => t.name).sort(),
            ['build_context', 'create_artifact', 'explain', 'get_artifact', 'propose_supersession', 'propose_version', 'search_artifacts', 'which'],
          );
          const found = await client.callTool({ name: 'search_artifacts', arguments: { query: 'retried webhook' } });
          assert.match(text(found), /Webhooks are idempotent/);
          const built = await client.callTool({ name: 'build_context', arguments: { task: 'Fix double bookings on webhook retries', budget: 1500 } });
          assert.match(text(built), /idempotency key/);
          const read = await client.readResource({ uri: `ledger://artifact/${id}` });
          assert.match((read.contents[0] as { text: string }).text, /never books twice/);
          const prompt = await client.getPrompt({ name: 'explain', arguments: { task: 'webhook retries', id } });
          assert.match((prompt.messages[0]!.content as { text: string }).text, /Webhooks are idempotent|idempotent/);
          const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'explain' }, argument: { name: 'id', value: id.slice(0, 5) } });
          assert.deepEqual(completion.completion.values, [id]);
          // The plain errors carry over to both eras: an unknown tool is -32602 with one "MCP error" prefix at most.
          await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: Error & { code?: number }) => {
            assert.equal(error.code, -32602);
            assert.doesNotMatch(error.message, /MCP error -32602:.*MCP error -32602:/);
            return true;
          });
        } finally {
          await client.close();
        }
      });
    }
  }

  for (const link of ['http', 'stdio'] as const) {
    test(`a 2026-07-28 client over ${link} hears of a listened artifact edited on disk (subscriptions/listen)`, async () => {
      const client = newClient('modern');
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
      await client.connect(
        link === 'http'
          ? new StreamableHTTPClientTransport(new URL(http.url))
          : new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, stderr: 'pipe' }),
      );
      const uri = `ledger://artifact/${(await client.listResources()).resources[0]!.name}`;
      const subscription = await client.listen({ resourceSubscriptions: [uri] });
      try {
        assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
        const mirror = path.join(dir, '.context-ledger', 'artifacts');
        const file = fs
          .readdirSync(mirror, { recursive: true, encoding: 'utf8' })
          .map((f) => path.join(mirror, f))
          .find((f) => f.endsWith('.md') && fs.readFileSync(f, 'utf8').includes('never books twice'));
        assert.ok(file, 'no mirror file for the artifact');
        // Let the server's watch settle on the file before the edit.
        await new Promise((r) => setTimeout(r, 300));
        fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('never books twice', `never books twice (checked over ${link})`));
        const deadline = Date.now() + 20_000;
        while (!updated.includes(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        assert.ok(updated.includes(uri), `no resources/updated for ${uri}; got ${JSON.stringify(updated)}; server: ${http.stderr()}`);
      } finally {
        await subscription.close();
        await client.close();
      }
    });
  }
});

describe('MCP 2026-07-28 where there is no ledger', () => {
  test('server/discover says so, offers no roots search (the era has none), and the server creates nothing', async () => {
    const dir = tempDir('ledger-mcp-eras-none-');
    const client = newClient('modern');
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, stderr: 'pipe' }));
      assert.equal(client.getProtocolEra(), 'modern');
      const said = client.getInstructions() ?? '';
      assert.match(said, /No Context Ledger found/);
      assert.doesNotMatch(said, /roots/);
      const called = await client.callTool({ name: 'create_artifact', arguments: { type: 'note', title: 'Nowhere to go', body: 'x' } });
      assert.equal(called.isError, true);
      assert.match(text(called), /Nothing was written/);
      assert.equal(fs.existsSync(path.join(dir, '.context-ledger')), false);
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
