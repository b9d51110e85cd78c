/**
 * The MCP server as real clients drive it: the official SDK client (which checks every
 * structuredContent against the tool's outputSchema) and a raw JSON-RPC client on stdio,
 * both against the built server (dist/cli.js) on real ledger files.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildContextTool, type LedgerAccess } from '../../../src/core/agentTools';
import { resolveOptions } from '../../../src/core/assemble';
import { ledgerIndex } from '../../../src/core/assemble/cache';
import { titleLine } from '../../../src/core/assemble/render';
import { TokenCounter } from '../../../src/core/tokens';
import { LedgerFile } from '../../../src/node/ledgerFile';
import { CLI, cli, jsonOf, memoryStore, tempDir } from '../helpers';
import { mcpToolResult, serializedBuildContext } from '../../../src/cli/mcp/results';
import { RawClient } from './mcpRawClient';

interface Called {
  text: string;
  isError: boolean;
  data: Record<string, unknown> | undefined;
  content: Array<{ type: string; text?: string; uri?: string }>;
}

interface Session {
  client: Client;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<Called>;
  close(): Promise<void>;
}

async function connect(args: string[], cwd: string, name = 'conformance'): Promise<Session> {
  const errors: string[] = [];
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  // The SDK client validates structuredContent against outputSchema only for tools it has listed.
  await client.listTools();
  return {
    client,
    stderr: () => errors.join(''),
    async call(tool, input) {
      const result = await client.callTool({ name: tool, arguments: input });
      const content = result.content as Called['content'];
      return {
        text: content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
        isError: result.isError === true,
        data: result.structuredContent as Record<string, unknown> | undefined,
        content,
      };
    },
    close: () => client.close(),
  };
}

function writeJsonl(file: string, rows: Array<Record<string, unknown>>): void {
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

describe('MCP conformance: defects', () => {
  const dir = tempDir('ledger-mcp-conf-');
  let session: Session;

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    writeJsonl(path.join(dir, 'seed.jsonl'), [
      { id: 'api-rest', type: 'decision', title: 'Use REST for the admin API', body: 'The admin API is REST over JSON.', status: 'superseded', supersededBy: 'api-graphql' },
      { id: 'api-graphql', type: 'decision', title: 'Use GraphQL for the admin API', body: 'The admin API moved to GraphQL.' },
      { id: 'journal-import', type: 'learning', title: 'Journal import replays records', body: 'The journal import replays each record onto the database.' },
      { id: 'journal-import-2', type: 'note', title: 'Import of a cut journal', body: 'A journal cut short by a crash: the import skips its last line.' },
      { id: 'uploads', type: 'convention', title: 'Uploads retry with backoff', body: 'Uploads retry five times.' },
      ...Array.from({ length: 12 }, (_, i) => ({ id: `cache-note-${i}`, type: 'note', title: `Cache note ${i}`, body: `The render cache keeps entry ${i} for a while.` })),
    ]);
    assert.equal(cli(['import', path.join(dir, 'seed.jsonl')], { cwd: dir }).code, 0);
    session = await connect([], dir);
  });

  after(async () => {
    await session.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('every tool but build_context declares an outputSchema, and structuredContent carries the knowledge text and the unreviewed flag', async () => {
    const { tools } = await session.client.listTools();
    for (const tool of tools) assert.equal(tool.outputSchema?.type, tool.name === 'build_context' ? undefined : 'object', tool.name);
    const secret = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const created = await session.call('create_artifact', { type: 'learning', title: 'Deploy key lives in the vault', body: `The deploy token ${secret} must never be committed.`, tags: ['deploy'] });
    assert.equal(created.isError, false, created.text);
    assert.equal(created.data?.unreviewed, true);
    assert.match(created.data?.text as string, /unreviewed/);
    const id = created.data?.id as string;

    const got = await session.call('get_artifact', { id });
    assert.match(got.data?.text as string, /must never be committed/);
    assert.equal(got.data?.unreviewed, true);
    // Secrets leave the ledger masked in the structured part too.
    assert.doesNotMatch(JSON.stringify(got.data), new RegExp(secret));

    const built = await session.call('build_context', { task: 'Rotate the deploy key in the vault', budget: 3000 });
    // build_context: the knowledge once, as one text naming each item's ledger:// id. No structured copy:
    // Claude Code shows a model the structuredContent in place of the text when there is one.
    assert.match(built.text, /Deploy key lives in the vault/);
    assert.deepEqual(built.content.map((c) => c.type), ['text']);
    assert.equal(built.data, undefined);
    assert.doesNotMatch(built.text, new RegExp(secret));

    const found = await session.call('search_artifacts', { query: 'deploy vault' });
    const results = found.data?.results as Array<{ id: string; snippet: string; unreviewed: boolean }>;
    assert.equal(results[0]?.id, id);
    assert.equal(results[0]?.unreviewed, true);
    assert.doesNotMatch(results[0].snippet, new RegExp(secret));
  });

  test('get_artifact of a superseded artifact names its successor, even when only the import recorded it', async () => {
    const got = await session.call('get_artifact', { id: 'api-rest' });
    assert.match(got.text, /SUPERSEDED by ledger:\/\/artifact\/api-graphql "Use GraphQL for the admin API"/);
    assert.equal((got.data?.supersededBy as { id: string }).id, 'api-graphql');
  });

  test('propose_supersession refuses a replacement titled like another active artifact, as create_artifact does', async () => {
    const before = jsonOf<unknown[]>(cli(['list', '--format', 'json'], { cwd: dir })).length;
    const dup = await session.call('propose_supersession', { supersedes: 'api-graphql', type: 'convention', title: 'Uploads retry with backoff', body: 'x' });
    assert.equal(dup.isError, true, dup.text);
    assert.match(dup.text, /already exists: ledger:\/\/artifact\/uploads/);
    assert.equal(jsonOf<unknown[]>(cli(['list', '--format', 'json'], { cwd: dir })).length, before);
  });

  test('an invalid glob, an unknown stage and an unknown argument are refused with a clear error', async () => {
    const glob = await session.call('create_artifact', { type: 'note', title: 'Unclosed', body: 'b', paths: ['src/[unclosed'] });
    assert.equal(glob.isError, true, glob.text);
    assert.match(glob.text, /glob "src\/\[unclosed" is invalid/);
    const stage = await session.call('build_context', { task: 'x', stage: 'banana' });
    assert.equal(stage.isError, true, stage.text);
    assert.match(stage.text, /stage: the text "banana" is not a stage\. Use one of: plan, develop, review, test/);
    const unknown = await session.call('get_artifact', { id: 'uploads', path: 'src/x.ts' });
    assert.equal(unknown.isError, true, unknown.text);
    assert.match(unknown.text, /unknown argument "path"; this tool takes: id, offset, limit/);
  });

  test('"Also noted" lines are ledger:// URIs, and the notes on ignored paths survive the smallest budget', async () => {
    // The line the assembler renders for a title-only item (every surface uses it).
    const store = await memoryStore();
    const artifact = store.createArtifact({ type: 'note', title: 'Cache note', body: 'b', id: 'cache-note' });
    assert.equal(titleLine(artifact, artifact.title), '- Cache note (note) ledger://artifact/cache-note');
    const small = await session.call('build_context', { task: 'uploads retry', budget: 100, paths: ['/etc/passwd'] });
    assert.equal(small.isError, false, small.text);
    assert.match(small.text, /Ignored paths outside the workspace: "\/etc\/passwd"/);
  });

  test('search_artifacts takes a sentence as keywords and pages with a cursor', async () => {
    const sentence = await session.call('search_artifacts', { query: 'how do we handle journal import' });
    const ids = (sentence.data?.results as Array<{ id: string }>).map((r) => r.id).sort();
    assert.deepEqual(ids, ['journal-import', 'journal-import-2']);
    assert.deepEqual(sentence.data?.keywords, ['handle', 'journal', 'import']);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await session.call('search_artifacts', { query: 'render cache', limit: 5, ...(cursor ? { cursor } : {}) });
      assert.equal(page.isError, false, page.text);
      seen.push(...(page.data?.results as Array<{ id: string }>).map((r) => r.id));
      cursor = page.data?.nextCursor as string | undefined;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 12);
    const wrong = await session.call('search_artifacts', { query: 'something else', cursor: '5.abc' });
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, /cursor belongs to another search/);
  });

  test('get_artifact pages through a huge artifact', async () => {
    const body = Array.from({ length: 1500 }, (_, i) => `Line ${i}: ${'détail 🚀 '.repeat(4)}`).join('\n');
    const file = path.join(dir, 'huge.md');
    fs.writeFileSync(file, body);
    const added = jsonOf<{ id: string }>(cli(['add', '--type', 'module_memory', '--title', 'The huge module', '--body-file', file, '--format', 'json'], { cwd: dir }));
    let offset: number | undefined = 0;
    let text = '';
    let pages = 0;
    while (offset !== undefined) {
      const page = await session.call('get_artifact', { id: added.id, offset });
      assert.equal(page.isError, false, page.text);
      assert.ok((page.data?.text as string).length <= 20_000);
      text += page.data?.text as string;
      offset = page.data?.nextOffset as number | undefined;
      pages++;
    }
    assert.ok(pages >= 4, `pages: ${pages}`);
    assert.equal(text, body);
    const past = await session.call('get_artifact', { id: added.id, offset: body.length + 10 });
    assert.equal(past.isError, true);
  });

  test('a malformed tools/call is a JSON-RPC -32602 error naming the problem; the current protocol revision is offered', async () => {
    const raw = new RawClient([], dir);
    try {
      const init = await raw.initialize(LATEST_PROTOCOL_VERSION);
      assert.equal(init.result?.protocolVersion, LATEST_PROTOCOL_VERSION);
      raw.send({ id: 1, method: 'tools/call', params: { arguments: {} } });
      raw.send({ id: 2, method: 'tools/call', params: { name: 'build_context', arguments: ['task'] } });
      raw.send({ id: 3, method: 'tools/call' });
      for (const id of [1, 2, 3]) {
        const reply = await raw.waitFor((m) => m.id === id);
        assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
        assert.doesNotMatch(reply.error.message, /"code":|invalid_type/);
      }
      assert.match((await raw.waitFor((m) => m.id === 1)).error!.message, /needs "params\.name"/);
      assert.match((await raw.waitFor((m) => m.id === 2)).error!.message, /must be an object of named arguments, not a list/);
    } finally {
      await raw.close();
    }
  });
});

describe('MCP conformance: held knowledge keeps its reviewed version (--unreviewed hold)', () => {
  const dir = tempDir('ledger-mcp-hold2-');
  let session: Session;

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    writeJsonl(path.join(dir, 'seed.jsonl'), [
      { id: 'webhook-retries', type: 'decision', title: 'Webhook retries', body: 'Webhook deliveries retry three times with backoff.' },
      { id: 'queue-broker', type: 'decision', title: 'Queue broker is RabbitMQ', body: 'Webhook jobs go through RabbitMQ.' },
    ]);
    assert.equal(cli(['import', path.join(dir, 'seed.jsonl')], { cwd: dir }).code, 0);
    session = await connect(['--unreviewed', 'hold'], dir);
  });

  after(async () => {
    await session.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const task = { task: 'Change how webhook deliveries retry and which queue broker carries webhook jobs', budget: 3000 };

  test('propose_version: the approved version stays in until a person approves the new one', async () => {
    const revised = await session.call('propose_version', { id: 'webhook-retries', body: 'Webhook deliveries retry five times with jitter.' });
    assert.equal(revised.isError, false, revised.text);
    assert.doesNotMatch(revised.text, /already offered/);
    assert.match(revised.text, /holds it back until a person approves it; until then it offers version 1/);
    assert.equal(revised.data?.held, true);
    const built = await session.call('build_context', task);
    assert.match(built.text, /retry three times/);
    assert.doesNotMatch(built.text, /five times/);

    assert.equal(cli(['review', 'approve', 'webhook-retries'], { cwd: dir }).code, 0);
    const after = await session.call('build_context', task);
    assert.match(after.text, /retry five times/);
    assert.doesNotMatch(after.text, /three times/);
  });

  test('propose_supersession: the superseded artifact stays in until a person approves its replacement', async () => {
    const replaced = await session.call('propose_supersession', { supersedes: 'queue-broker', title: 'Queue broker is SQS', body: 'Webhook jobs go through SQS.' });
    assert.equal(replaced.isError, false, replaced.text);
    assert.doesNotMatch(replaced.text, /already offered/);
    const built = await session.call('build_context', task);
    assert.match(built.text, /RabbitMQ/);
    assert.doesNotMatch(built.text, /SQS/);

    assert.equal(cli(['review', 'approve', replaced.data?.id as string], { cwd: dir }).code, 0);
    const after = await session.call('build_context', task);
    assert.match(after.text, /SQS/);
    assert.doesNotMatch(after.text, /RabbitMQ/);
  });
});

describe('MCP conformance: responsiveness (ping, cancellation, progress)', () => {
  const dir = tempDir('ledger-mcp-busy-');
  let raw: RawClient;
  const words = 'session token cache hook budget ledger artifact decision context agent module path glob stage review plan database index query migration schema webhook payment booking retry queue worker lock timeout'.split(' ');

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    // Enough knowledge that the first build (index, token counts) takes a while.
    let seed = 7;
    const pick = () => words[(seed = (seed * 1103515245 + 12345) % 2147483648) % words.length]!;
    writeJsonl(
      path.join(dir, 'many.jsonl'),
      Array.from({ length: 3000 }, (_, i) => ({ id: `k-${i}`, type: 'note', title: `${pick()} ${pick()} ${pick()} ${i}`, body: Array.from({ length: 120 }, pick).join(' ') })),
    );
    assert.equal(cli(['import', path.join(dir, 'many.jsonl')], { cwd: dir }).code, 0);
    raw = new RawClient([], dir);
    await raw.initialize(LATEST_PROTOCOL_VERSION);
  });

  after(async () => {
    await raw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('pings sent while a build runs are answered at once, not after it', async () => {
    // The first build on this ledger (index, token counts) takes a while. A server that runs
    // it on the thread reading the protocol answers the pings sent meanwhile only after it
    // (the defect: 2-3 s); here each is answered in a fraction of the build's time.
    const started = Date.now();
    raw.send({ id: 'build-1', method: 'tools/call', params: { name: 'build_context', arguments: { task: 'webhook retry queue worker lock timeout', budget: 8000 } } });
    const sent = new Map<string, number>();
    const answered = new Map<string, number>();
    let n = 0;
    while (!raw.received.some((m) => m.id === 'build-1')) {
      const id = `ping-${++n}`;
      sent.set(id, Date.now());
      raw.send({ id, method: 'ping' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const m of raw.received) if (typeof m.id === 'string' && sent.has(m.id) && !answered.has(m.id)) answered.set(m.id, Date.now());
    }
    const buildMs = Date.now() - started;
    for (const id of sent.keys()) await raw.waitFor((m) => m.id === id);
    for (const m of raw.received) if (typeof m.id === 'string' && sent.has(m.id) && !answered.has(m.id)) answered.set(m.id, Date.now());
    const waits = [...sent].map(([id, at]) => answered.get(id)! - at);
    const order = raw.received.map((m) => m.id);
    assert.ok(order.indexOf('ping-1') < order.indexOf('build-1'), `order: ${JSON.stringify(order)}`);
    assert.ok(Math.max(...waits) < Math.max(250, buildMs / 3), `the build took ${buildMs} ms; the pings waited ${JSON.stringify(waits)} ms`);
  });

  test('progress notifications arrive for a progressToken; a cancelled build is not answered and not logged', async () => {
    raw.send({ id: 'build-2', method: 'tools/call', params: { name: 'build_context', arguments: { task: 'cache budget ledger stage review' }, _meta: { progressToken: 'p-2' } } });
    await raw.waitFor((m) => m.id === 'build-2');
    const progress = raw.received.filter((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p-2');
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.ok(raw.received.indexOf(progress[0]!) < raw.received.findIndex((m) => m.id === 'build-2'));

    const logged = async () => {
      const ledger = await LedgerFile.open(path.join(dir, '.context-ledger', 'ledger.db'));
      try {
        return ledger.store.recentAssemblies(1000).length;
      } finally {
        ledger.close();
      }
    };
    const builds = await logged();
    // A build ahead of it keeps the worker busy, so the cancellation reaches build-3 before it starts.
    raw.send({ id: 'build-ahead', method: 'tools/call', params: { name: 'build_context', arguments: { task: 'retry queue worker lock timeout session token cache', budget: 20_000 } } });
    raw.send({ id: 'build-3', method: 'tools/call', params: { name: 'build_context', arguments: { task: 'payment booking migration schema index' } } });
    raw.send({ method: 'notifications/cancelled', params: { requestId: 'build-3', reason: 'user pressed stop' } });
    raw.send({ id: 'ping-3', method: 'ping' });
    await raw.waitFor((m) => m.id === 'ping-3');
    // The worker takes calls in order: once a later call is answered, the cancelled one is settled.
    raw.send({ id: 'search-4', method: 'tools/call', params: { name: 'search_artifacts', arguments: { query: 'webhook' } } });
    await raw.waitFor((m) => m.id === 'search-4');
    assert.equal(raw.received.some((m) => m.id === 'build-3'), false, 'a cancelled request gets no response');
    assert.equal(await logged(), builds + 1, 'the cancelled build was not logged (the one ahead of it was)');
  });
});

describe('MCP conformance: the ledger file', () => {
  const dir = tempDir('ledger-mcp-file-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('build_context works on a read-only ledger', async () => {
    const ws = path.join(dir, 'ro');
    fs.mkdirSync(ws);
    assert.equal(cli(['init'], { cwd: ws }).code, 0);
    assert.equal(cli(['add', '--type', 'decision', '--title', 'Prices are integers in cents', '--body', 'Never floats.'], { cwd: ws }).code, 0);
    const db = path.join(ws, '.context-ledger', 'ledger.db');
    fs.chmodSync(db, 0o444);
    const session = await connect([], ws);
    try {
      const built = await session.call('build_context', { task: 'Format prices in cents' });
      assert.equal(built.isError, false, built.text);
      assert.match(built.text, /Prices are integers in cents/);
      const write = await session.call('create_artifact', { type: 'note', title: 'n', body: 'b' });
      assert.equal(write.isError, true);
      assert.match(write.text, /read-only/);
    } finally {
      await session.close();
      fs.chmodSync(db, 0o644);
    }
  });

  test('the workspace is where the ledger is: settings, paths from a subfolder and from elsewhere', async () => {
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(path.join(ws, 'src', 'upload'), { recursive: true });
    fs.mkdirSync(path.join(ws, '.vscode'));
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{ "contextLedger.agent.unreviewed": "hold" }');
    assert.equal(cli(['init'], { cwd: ws }).code, 0);
    // Started in a subfolder (the ledger is found upwards): a workspace-rooted absolute path stays whole.
    const sub = await connect([], path.join(ws, 'src'));
    try {
      assert.match(sub.stderr(), /hold \(.*\.vscode\/settings\.json\)/);
      const created = await sub.call('create_artifact', { type: 'module_memory', title: 'Upload client', body: 'b', paths: [path.join(ws, 'src', 'upload.ts')] });
      assert.equal(created.isError, false, created.text);
    } finally {
      await sub.close();
    }
    // Started elsewhere with --db: the same.
    const elsewhere = await connect(['--db', path.join(ws, '.context-ledger', 'ledger.db')], os.tmpdir());
    try {
      assert.match(elsewhere.stderr(), /hold \(.*\.vscode\/settings\.json\)/);
      const built = await elsewhere.call('build_context', { task: 'upload client', paths: [path.join(ws, 'src', 'upload.ts')] });
      assert.doesNotMatch(built.text, /Ignored paths/);
    } finally {
      await elsewhere.close();
    }
    const listed = jsonOf<Array<{ title: string; paths: string[] }>>(cli(['list', '--format', 'json'], { cwd: ws }));
    assert.deepEqual(listed.find((a) => a.title === 'Upload client')?.paths, ['src/upload.ts']);
  });

  test('a --db with a variable the client did not fill in is refused, and nothing is created', () => {
    const ws = path.join(dir, 'unexpanded');
    fs.mkdirSync(ws);
    const result = cli(['mcp', '--db', '${workspaceFolder}/.context-ledger/ledger.db'], { cwd: ws, input: '' });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /\$\{workspaceFolder\}[\s\S]*did not fill it in[\s\S]*absolute path/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  test('a corrupt or Git LFS pointer ledger: the server refuses to start, says why, and leaves the file where it is', () => {
    for (const [name, bytes, expected] of [
      ['lfs', 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 24576\n', /Git LFS pointer[\s\S]*git lfs pull/],
      ['corrupt', 'this is not a database at all, just text that someone saved here', /not a ledger database[\s\S]*restore/],
    ] as const) {
      const ws = path.join(dir, name);
      fs.mkdirSync(path.join(ws, '.context-ledger'), { recursive: true });
      const db = path.join(ws, '.context-ledger', 'ledger.db');
      fs.writeFileSync(db, bytes);
      const result = cli(['mcp'], { cwd: ws, input: '' });
      assert.notEqual(result.code, 0, name);
      assert.match(result.stderr, expected);
      assert.deepEqual(fs.readdirSync(path.dirname(db)), ['ledger.db'], 'nothing renamed or added');
      assert.equal(fs.readFileSync(db, 'utf8'), bytes);
    }
  });
});

describe('MCP conformance: resources, prompts, explain and which', () => {
  const dir = tempDir('ledger-mcp-res-');
  let session: Session;
  const changed: unknown[] = [];

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Agents\n\nRun the tests before committing.\n');
    writeJsonl(path.join(dir, 'seed.jsonl'), [
      { id: 'cents', type: 'decision', title: 'Prices are integers in cents', body: 'Never floats for money.' },
      { id: 'old-money', type: 'decision', title: 'Prices are floats', body: 'Floats.', status: 'superseded', supersededBy: 'cents' },
    ]);
    assert.equal(cli(['import', path.join(dir, 'seed.jsonl')], { cwd: dir }).code, 0);
    session = await connect([], dir);
    session.client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => {
      changed.push(n);
    });
  });

  after(async () => {
    await session.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('artifacts are resources: a template, a list and a read', async () => {
    const { resourceTemplates } = await session.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['ledger://artifact/{id}']);
    const { resources } = await session.client.listResources();
    assert.ok(resources.some((r) => r.uri === 'ledger://artifact/cents'), JSON.stringify(resources));
    assert.ok(!resources.some((r) => r.uri === 'ledger://artifact/old-money'), 'superseded knowledge is not listed');
    const read = await session.client.readResource({ uri: 'ledger://artifact/cents' });
    assert.match((read.contents[0] as { text: string }).text, /Never floats for money/);
    await assert.rejects(session.client.readResource({ uri: 'ledger://artifact/nope' }), /No artifact "nope"/);
  });

  test('another process writing the ledger sends resources/list_changed', async () => {
    assert.equal(cli(['add', '--type', 'note', '--title', 'Added elsewhere', '--body', 'b'], { cwd: dir }).code, 0);
    const deadline = Date.now() + 20_000;
    while (changed.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(changed.length > 0, 'no list_changed notification');
  });

  test('prompts mirror @ledger /context, /remember and /explain', async () => {
    const { prompts } = await session.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['context', 'remember', 'explain']);
    const context = await session.client.getPrompt({ name: 'context', arguments: { task: 'Show prices in cents' } });
    assert.match((context.messages[0]!.content as { text: string }).text, /Prices are integers in cents[\s\S]*Task: Show prices in cents/);
    const remember = await session.client.getPrompt({ name: 'remember', arguments: { fact: 'Staging refreshes on Mondays' } });
    assert.match((remember.messages[0]!.content as { text: string }).text, /search_artifacts[\s\S]*create_artifact[\s\S]*Staging refreshes on Mondays/);
    const explain = await session.client.getPrompt({ name: 'explain', arguments: { task: 'Show prices', id: 'old-money' } });
    assert.match((explain.messages[0]!.content as { text: string }).text, /OUT: superseded/);
    await assert.rejects(session.client.getPrompt({ name: 'context', arguments: {} }), /needs the argument "task"/);
  });

  test('explain says why an artifact is in or out; which names the rule files for a file', async () => {
    const inside = await session.call('explain', { task: 'Format prices in cents', id: 'cents' });
    assert.equal(inside.data?.included, true, inside.text);
    const out = await session.call('explain', { task: 'Format prices in cents', id: 'ledger://artifact/old-money' });
    assert.equal(out.data?.included, false);
    assert.match(out.text, /OUT: superseded \(superseded by cents\)/);
    const all = await session.call('explain', { task: 'Format prices in cents' });
    assert.match(all.text, /Included:[\s\S]*Prices are integers in cents/);
    const which = await session.call('which', { path: 'src/price.ts' });
    assert.equal(which.isError, false, which.text);
    assert.match(which.text, /AGENTS\.md/);
    const outside = await session.call('which', { path: '../elsewhere.ts' });
    assert.equal(outside.isError, true);
  });
});

describe('the search index across the server\'s own writes', () => {
  test('logging a build keeps the index: the next build reuses it instead of re-reading every artifact', async () => {
    const store = await memoryStore();
    for (let i = 0; i < 20; i++) store.createArtifact({ type: 'note', title: `Note ${i} on retries`, body: `Retry rule ${i}.` });
    // As LedgerFile.write does it: the function runs on the store as it is, its own writes each a transaction.
    const access: LedgerAccess = { read: async (fn) => fn(store), write: (fn) => Promise.resolve(fn(store)) };
    const env = { ledger: access, channel: 'mcp' as const };
    const options = resolveOptions(undefined);
    const params = { fieldWeights: options.fieldWeights, fieldB: options.fieldB, k1: options.k1 };
    const first = await buildContextTool.run(env, { task: 'retry rules' });
    assert.equal(first.isError, undefined, first.text);
    const index = ledgerIndex(store, params);
    const generation = store.generation;
    await buildContextTool.run(env, { task: 'retry rules again' });
    assert.ok(store.generation > generation, 'the build was logged');
    assert.equal(ledgerIndex(store, params), index, 'the index was rebuilt');
    // An artifact written is a change the index must see.
    store.createArtifact({ type: 'note', title: 'New', body: 'x' });
    assert.notEqual(ledgerIndex(store, params), index);
  });
});

describe('build_context: the answer within the budget', () => {
  test('at every budget from the smallest up, with and without notes on ignored paths, in any script', async () => {
    const store = await memoryStore();
    const texts = ['Retry the webhook with backoff.', 'Webhook-Wiederholung: höchstens fünf Versuche — danach in die Warteschlange.', 'Webhook 重试：最多五次，然后进入队列。', 'Webhooks 🔁 retry 🚦 five times, then the queue 📬.'];
    for (let i = 0; i < 40; i++) store.createArtifact({ type: 'note', title: `Webhook retry ${i}`, body: `${texts[i % texts.length]} ${'Detail. '.repeat(i * 5)}` });
    const access: LedgerAccess = { read: async (fn) => fn(store), write: (fn) => Promise.resolve(fn(store)) };
    const env = { ledger: access, channel: 'mcp' as const, workspaceRoot: '/ws' };
    const counter = await TokenCounter.load('o200k_base');
    for (let budget = 100; budget <= 6000; budget += budget < 1000 ? 37 : 411) {
      for (const paths of [[], ['/elsewhere/a.ts', '../b.ts']]) {
        const result = await buildContextTool.run(env, { task: 'webhook retry queue', budget, paths });
        assert.equal(result.isError, undefined, result.text);
        assert.ok(counter.count(result.text) <= budget, `budget ${budget}, paths ${paths.length}: ${counter.count(result.text)} tokens`);
        if (paths.length > 0) assert.match(result.text, /Ignored paths outside the workspace/);
      }
    }
  });

  test('as MCP hands it over: the whole serialized tool result fits, escaping and structure included', async () => {
    const store = await memoryStore();
    // Line breaks, quotes and backslashes: what JSON escaping makes longer.
    const texts = ['Retry the "webhook" with backoff:\n- first\n- second', 'C:\\ledger\\paths and "quotes"\n\n\tindented', 'Webhook 重试：最多五次，然后进入队列。\n"引号"', 'Webhooks 🔁 retry 🚦\n\n> quoted "line"'];
    for (let i = 0; i < 40; i++) store.createArtifact({ type: 'note', title: `Webhook "retry" ${i}`, body: `${texts[i % texts.length]}\n${'Detail "x".\n'.repeat(i * 3)}` });
    const access: LedgerAccess = { read: async (fn) => fn(store), write: (fn) => Promise.resolve(fn(store)) };
    const env = { ledger: access, channel: 'mcp' as const, workspaceRoot: '/ws', delivered: serializedBuildContext };
    const counter = await TokenCounter.load('o200k_base');
    for (let budget = 100; budget <= 8000; budget += budget < 1000 ? 53 : 997) {
      const result = await buildContextTool.run(env, { task: 'webhook retry queue', budget });
      assert.equal(result.isError, undefined, result.text);
      const whole = counter.count(JSON.stringify(mcpToolResult('build_context', result)));
      assert.ok(whole <= budget, `budget ${budget}: the serialized result holds ${whole} tokens`);
      // Fitting takes what the structure and escaping need, not more.
      const plain = await buildContextTool.run({ ...env, delivered: undefined }, { task: 'webhook retry queue', budget });
      if (budget >= 1000) assert.ok(counter.count(result.text) >= counter.count(plain.text) * 0.6, `budget ${budget}: ${counter.count(result.text)} of ${counter.count(plain.text)}`);
    }
  });
});
