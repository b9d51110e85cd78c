/**
 * The MCP server at the protocol's edges, as a raw JSON-RPC client and the official SDK
 * client see it: error codes and messages, an answer to every request that has an id,
 * bounded frames, whole resources, masked titles, and a server started where there is no
 * ledger (Cline starts servers in `/`).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, ListRootsRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../../src/core/tokens';
import { CLI, cli, tempDir } from '../helpers';
import { RawClient } from './mcpRawClient';

const AWS_KEY = ['AKIA', 'Z3QW8RT2LMN4XP7K'].join('');

function writeJsonl(file: string, rows: Array<Record<string, unknown>>): void {
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** A body of `chars` characters in lines, each line numbered so a lost part shows. */
function longBody(chars: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < chars; i++) {
    const line = `Line ${i}: the ledger keeps every word of a long artifact — ünïcödé too.`;
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

describe('MCP protocol edges (raw JSON-RPC)', () => {
  const dir = tempDir('ledger-mcp-proto-');
  const body = longBody(250_000);
  let raw: RawClient;

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    writeJsonl(path.join(dir, 'seed.jsonl'), [
      { id: 'long-one', type: 'note', title: 'A very long note', body },
      { id: 'secret-title', type: 'note', title: `Rotate ${AWS_KEY} every quarter`, body: 'Keys rotate quarterly.' },
      { id: 'cents', type: 'convention', title: 'Prices are integers in cents', body: 'Never floats for money.' },
    ]);
    const imported = cli(['import', path.join(dir, 'seed.jsonl')], { cwd: dir });
    assert.equal(imported.code, 0, imported.stderr);
    raw = new RawClient([], dir);
    await raw.initialize(LATEST_PROTOCOL_VERSION);
  });

  after(async () => {
    await raw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('an unknown tool is the JSON-RPC error -32602, not a tool result', async () => {
    const reply = await raw.request(1, 'tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(reply.result, undefined, JSON.stringify(reply));
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error.message, /no tool "no_such_tool".*build_context/i);
  });

  test('prompts/get without a name and resources/read without a uri: -32602 in plain words', async () => {
    const prompt = await raw.request(2, 'prompts/get', {});
    const read = await raw.request(3, 'resources/read', {});
    const noParams = await raw.request(4, 'resources/read');
    for (const reply of [prompt, read, noParams]) {
      assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
      assert.doesNotMatch(reply.error.message, /invalid_type|"code"|\[\s*\{|MCP error/);
    }
    assert.match(prompt.error!.message, /"params\.name"/);
    assert.match(read.error!.message, /"params\.uri"/);
  });

  test('no error message carries "MCP error -32602:" (clients add it themselves)', async () => {
    const replies = [
      await raw.request(5, 'prompts/get', { name: 'nope' }),
      await raw.request(6, 'resources/read', { uri: 'https://example.com/x' }),
      await raw.request(7, 'resources/read', { uri: 'ledger://artifact/nope' }),
      await raw.request(8, 'resources/list', { cursor: 'zzz' }),
    ];
    for (const reply of replies) {
      assert.ok(reply.error, JSON.stringify(reply));
      assert.doesNotMatch(reply.error.message, /MCP error/);
    }
  });

  test('every request with an id is answered: wrong-shape params, jsonrpc 1.0, an object id, a lone "{"', async () => {
    raw.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'tools/list', params: 'nope' }));
    raw.sendLine(JSON.stringify({ jsonrpc: '1.0', id: 21, method: 'ping' }));
    raw.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 22, method: 42 }));
    const wrongParams = await raw.waitFor((m) => m.id === 20);
    const oldVersion = await raw.waitFor((m) => m.id === 21);
    const numberMethod = await raw.waitFor((m) => m.id === 22);
    for (const reply of [wrongParams, oldVersion, numberMethod]) assert.equal(reply.error?.code, -32600, JSON.stringify(reply));
    assert.match(wrongParams.error!.message, /params/);
    assert.match(oldVersion.error!.message, /"jsonrpc": "2\.0"/);

    const before = raw.received.length;
    raw.sendLine(JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }));
    raw.sendLine('{');
    raw.sendLine('[{"jsonrpc":"2.0","id":23,"method":"ping"}]');
    await raw.waitFor(() => raw.received.length >= before + 3);
    const [objectId, parse, batch] = raw.received.slice(before);
    assert.equal(objectId!.error?.code, -32600, JSON.stringify(objectId));
    assert.match(objectId!.error.message, /id/);
    assert.equal(parse!.error?.code, -32700, JSON.stringify(parse));
    assert.equal(batch!.error?.code, -32600, JSON.stringify(batch));
    // Every line is a well-formed JSON-RPC message, and the server goes on serving.
    for (const m of raw.received) assert.equal(m.jsonrpc, '2.0');
    assert.deepEqual((await raw.request(24, 'ping')).result, {});
  });

  test('a 50 MB line is refused with an error and the server keeps serving', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'build_context', arguments: { task: 'x'.repeat(50 * 1024 * 1024) } } });
    raw.sendLine(huge);
    const refused = await raw.waitFor((m) => m.id === 30, 120_000);
    assert.equal(refused.error?.code, -32600, JSON.stringify(refused));
    assert.match(refused.error.message, /too large|at most/i);
    assert.deepEqual((await raw.request(31, 'ping')).result, {});
    assert.equal(raw.exitCode, undefined, 'the server is still running');
    const listed = await raw.request(32, 'tools/list');
    assert.ok(Array.isArray(listed.result?.tools));
  });

  test('resources/read of a 250,000-character artifact returns all of it', async () => {
    const reply = await raw.request(40, 'resources/read', { uri: 'ledger://artifact/long-one' });
    const contents = reply.result?.contents as Array<{ uri: string; text: string }>;
    assert.ok(contents, JSON.stringify(reply).slice(0, 400));
    const text = contents.map((c) => c.text).join('');
    assert.ok(text.includes(body), `got ${text.length} characters of a ${body.length}-character body`);
    assert.doesNotMatch(text, /More follows|call get_artifact/);
  });

  test('resources/list masks a secret in a title, as build_context does', async () => {
    const reply = await raw.request(50, 'resources/list');
    const resources = reply.result?.resources as Array<{ uri: string; title: string }>;
    const listed = resources.find((r) => r.uri === 'ledger://artifact/secret-title');
    assert.ok(listed, JSON.stringify(resources));
    assert.doesNotMatch(JSON.stringify(reply), new RegExp(AWS_KEY));
    assert.match(listed.title, /Rotate .* every quarter/);
  });
});

describe('MCP with no ledger above the working folder', () => {
  const empty = tempDir('ledger-mcp-none-');
  const project = tempDir('ledger-mcp-rooted-');

  before(() => {
    assert.equal(cli(['add', '--type', 'convention', '--title', 'Prices are integers in cents', '--body', 'Never floats for money.'], { cwd: project }).code, 0);
  });

  after(() => {
    fs.rmSync(empty, { recursive: true, force: true });
    fs.rmSync(project, { recursive: true, force: true });
  });

  test('creates nothing, says so in its instructions and in every answer, and refuses writes', async () => {
    const raw = new RawClient([], empty);
    try {
      const init = await raw.initialize(LATEST_PROTOCOL_VERSION);
      assert.match(String(init.result?.instructions), /No Context Ledger/);
      const built = await raw.request(1, 'tools/call', { name: 'build_context', arguments: { task: 'show prices' } });
      const created = await raw.request(2, 'tools/call', { name: 'create_artifact', arguments: { type: 'note', title: 'Lost note', body: 'Nobody would see this.' } });
      for (const reply of [built, created]) {
        const text = (reply.result?.content as Array<{ text: string }>)[0]!.text;
        assert.equal(reply.result?.isError, true, JSON.stringify(reply));
        assert.match(text, /No Context Ledger/);
      }
      assert.match((created.result!.content as Array<{ text: string }>)[0]!.text, /nothing was written/i);
      const read = await raw.request(3, 'resources/read', { uri: 'ledger://artifact/x' });
      assert.match(read.error!.message, /No Context Ledger/);
      const prompt = await raw.request(4, 'prompts/get', { name: 'context', arguments: { task: 'show prices' } });
      assert.match(JSON.stringify(prompt), /No Context Ledger/);
      const listed = await raw.request(5, 'resources/list');
      assert.deepEqual(listed.result?.resources, []);
    } finally {
      await raw.close();
    }
    assert.deepEqual(fs.readdirSync(empty), [], 'nothing was created in the working folder');
  });

  test("finds the ledger from the client's roots", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: empty, stderr: 'pipe' });
    const client = new Client({ name: 'rooted', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(path.join(project, 'src')).href, name: 'src' }, { uri: pathToFileURL(project).href, name: 'project' }] }));
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'build_context', arguments: { task: 'show prices in cents' } });
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      assert.notEqual(result.isError, true, text);
      assert.match(text, /Prices are integers in cents/);
    } finally {
      await client.close();
    }
    assert.deepEqual(fs.readdirSync(empty), []);
  });
});

describe('MCP build_context within its budget as the model sees it', () => {
  const dir = tempDir('ledger-mcp-budget-');

  before(() => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    writeJsonl(
      path.join(dir, 'seed.jsonl'),
      Array.from({ length: 60 }, (_, i) => ({
        id: `retry-${i}`,
        type: i % 3 === 0 ? 'decision' : 'note',
        title: `Webhook "retry" rule ${i}`,
        body: `Webhook deliveries retry with backoff ("${i}").\n- step one\n- step two\n${'Detail about queues and "retries".\n'.repeat(i)}`,
      })),
    );
    assert.equal(cli(['import', path.join(dir, 'seed.jsonl')], { cwd: dir }).code, 0);
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the whole tools/call result a raw client receives fits the budget: one text, no second copy, no links', async () => {
    const raw = new RawClient([], dir);
    try {
      await raw.initialize(LATEST_PROTOCOL_VERSION);
      const counter = await TokenCounter.load('o200k_base');
      let id = 0;
      for (const budget of [100, 500, 2000, 4000, 8000]) {
        const reply = await raw.request(++id, 'tools/call', { name: 'build_context', arguments: { task: 'change how webhook deliveries retry', budget } });
        const line = raw.lines.find((l) => (JSON.parse(l) as { id?: number }).id === id)!;
        const result = reply.result as { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown> };
        assert.deepEqual(result.content.map((c) => c.type), ['text']);
        assert.equal(result.structuredContent, undefined);
        if (budget >= 500) assert.match(result.content[0]!.text, /Webhook "retry" rule/);
        const whole = counter.count(JSON.stringify(result));
        assert.ok(whole <= budget, `budget ${budget}: the result holds ${whole} tokens`);
        // The frame around it is the protocol's, not the answer's: a few tokens.
        assert.ok(counter.count(line) <= budget + 20, `budget ${budget}: the line holds ${counter.count(line)} tokens`);
      }
    } finally {
      await raw.close();
    }
  });
});

describe('MCP completions, subscriptions, logging and metadata (SDK client)', () => {
  const dir = tempDir('ledger-mcp-sub-');
  let client: Client;
  const updated: string[] = [];

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    for (const [title, body] of [
      ['Prices are integers in cents', 'Never floats for money.'],
      ['Cents are rounded half to even', 'Banker’s rounding for every total.'],
      ['Uploads retry with backoff', 'Five tries.'],
    ]) {
      assert.equal(cli(['add', '--type', 'convention', '--title', title!, '--body', body!], { cwd: dir }).code, 0);
    }
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, stderr: 'pipe' });
    client = new Client({ name: 'subscriber', version: '1.0.0' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('declares completions, subscriptions and logging; resources carry their size, tools their titles', async () => {
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps?.completions, {});
    assert.equal(caps?.resources?.subscribe, true);
    assert.deepEqual(caps?.logging, {});
    await client.setLoggingLevel('warning');
    const { resources } = await client.listResources();
    for (const r of resources) assert.ok(typeof r.size === 'number' && r.size > 0, JSON.stringify(r));
    const { tools } = await client.listTools();
    for (const t of tools) assert.ok(t.title && t.annotations?.title, t.name);
  });

  test('completion/complete offers artifact ids for the explain prompt and the artifact template', async () => {
    const { resources } = await client.listResources();
    const ids = resources.map((r) => r.name).sort();
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'explain' }, argument: { name: 'id', value: '' } });
    assert.deepEqual([...prompt.completion.values].sort(), ids);
    const first = ids[0]!.slice(0, 3);
    const template = await client.complete({ ref: { type: 'ref/resource', uri: 'ledger://artifact/{id}' }, argument: { name: 'id', value: first } });
    assert.ok(template.completion.values.length > 0 && template.completion.values.every((v) => v.startsWith(first)), JSON.stringify(template));
    const viaUri = await client.complete({ ref: { type: 'ref/prompt', name: 'explain' }, argument: { name: 'id', value: `ledger://artifact/${first}` } });
    assert.deepEqual(viaUri.completion.values, template.completion.values);
    const other = await client.complete({ ref: { type: 'ref/prompt', name: 'explain' }, argument: { name: 'task', value: 'x' } });
    assert.deepEqual(other.completion.values, []);
  });

  test('a subscribed artifact whose file changes on disk is announced with resources/updated, and names its new version', async () => {
    const { resources } = await client.listResources();
    const cents = resources.find((r) => r.title === 'Prices are integers in cents')!;
    await client.subscribeResource({ uri: cents.uri });
    const files = fs.readdirSync(path.join(dir, '.context-ledger', 'artifacts'), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, '.context-ledger', 'artifacts', f));
    const file = files.find((f) => f.endsWith('.md') && fs.readFileSync(f, 'utf8').includes('Never floats for money'));
    assert.ok(file, `no mirror file among ${files.join(', ')}`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Never floats for money.', 'Never floats for money, not even in tests.'));
    const deadline = Date.now() + 20_000;
    while (!updated.includes(cents.uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(updated.includes(cents.uri), `no resources/updated for ${cents.uri}; got ${JSON.stringify(updated)}`);
    // The edit is a new version: the subscribed one says which, and that one holds the new text.
    const read = await client.readResource({ uri: cents.uri });
    const latest = /the latest is (ledger:\/\/artifact\/\S+)/.exec((read.contents[0] as { text: string }).text)?.[1];
    assert.ok(latest, JSON.stringify(read));
    const now = await client.readResource({ uri: latest });
    assert.match((now.contents[0] as { text: string }).text, /not even in tests/);
    await client.unsubscribeResource({ uri: cents.uri });
  });
});
