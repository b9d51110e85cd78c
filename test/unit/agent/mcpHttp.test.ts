/**
 * `context-ledger mcp --http` at its edges, with raw HTTP: loopback only, a foreign Host or
 * Origin refused (DNS rebinding), every frame checked as on stdio, an oversized body refused
 * without stopping the server, and the 2026-07-28 wire (envelope and Mcp-* headers).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { CLI, cli, tempDir } from '../helpers';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } } | undefined;
}

const ACCEPT = 'application/json, text/event-stream';

/** One POST (or other method) with exactly these headers and body. */
function send(url: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        // An SSE answer carries its message on a data: line.
        const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
        let json: Answer['json'];
        try {
          json = JSON.parse(data) as Answer['json'];
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('MCP over HTTP (mcp --http): loopback only, checked frames, both eras', () => {
  const dir = tempDir('ledger-mcp-http-');
  let url = '';
  let stderr = '';
  let child: ReturnType<typeof spawn>;

  before(async () => {
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    assert.equal(cli(['add', '--type', 'convention', '--title', 'Ünïcode titles stay whole', '--body', 'Titles keep their accents: café, naïve, 東京.'], { cwd: dir }).code, 0);
    child = spawn(process.execPath, [CLI, 'mcp', '--http', '0'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${stderr}`)), 20_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      });
    });
  });

  after(async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a host other than the loopback is refused before anything starts, with what to do', () => {
    for (const place of ['0.0.0.0:8765', '192.168.1.20:8765', 'example.com:80']) {
      const r = cli(['mcp', '--http', place], { cwd: dir });
      assert.notEqual(r.code, 0, place);
      assert.match(r.stderr, /loopback interface only \(127\.0\.0\.1\)/, place);
    }
    const bad = cli(['mcp', '--http', 'eighty'], { cwd: dir });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /is not a port/);
  });

  test('DNS rebinding: a foreign Host or Origin gets 403 and no answer from the ledger; the loopback ones are served', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const host = await send(url, ping, { host: 'attacker.example:80' });
    assert.equal(host.status, 403);
    const origin = await send(url, ping, { origin: 'http://attacker.example' });
    assert.equal(origin.status, 403);
    assert.match(stderr, /refused a request from host attacker\.example:80/);
    const local = await send(url, ping, { origin: new URL(url).origin });
    assert.equal(local.status, 200, local.text);
    assert.deepEqual(local.json?.result, {});
  });

  test('every frame is checked as on stdio: not JSON, a bad shape, missing params; other paths are 404', async () => {
    const parse = await send(url, '{');
    assert.equal(parse.status, 400);
    assert.equal(parse.json?.error?.code, -32700);
    const shape = await send(url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: 'nope' }));
    assert.equal(shape.status, 400);
    assert.deepEqual([shape.json?.id, shape.json?.error?.code], [7, -32600]);
    const missing = await send(url, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'resources/read', params: {} }), { 'mcp-protocol-version': '2025-11-25' });
    assert.equal(missing.json?.error?.code, -32602);
    assert.match(missing.json?.error?.message ?? '', /resources\/read needs "params\.uri"/);
    const elsewhere = await send(url.replace(/\/mcp$/, '/other'), '{}');
    assert.equal(elsewhere.status, 404);
  });

  test('a body over 4 MiB is refused with 413 and the server goes on serving', async () => {
    const huge = Buffer.alloc(5 * 1024 * 1024, 0x61);
    const refused = await send(url, huge);
    assert.equal(refused.status, 413);
    assert.match(refused.json?.error?.message ?? '', /Message too large/);
    const after = await send(url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    assert.deepEqual(after.json?.result, {});
  });

  test('2026-07-28 on the wire: server/discover and a tool call with the _meta envelope and Mcp-* headers, no handshake; non-ASCII intact', async () => {
    const headers = { 'mcp-protocol-version': '2026-07-28' };
    const discover = await send(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN_META } }), { ...headers, 'mcp-method': 'server/discover' });
    assert.equal(discover.status, 200, discover.text);
    assert.ok((discover.json?.result?.supportedVersions as string[]).includes('2026-07-28'), discover.text);
    assert.match(String(discover.json?.result?.instructions), /Context Ledger/);
    const call = await send(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_artifacts', arguments: { query: 'accents' }, _meta: MODERN_META } }),
      { ...headers, 'mcp-method': 'tools/call', 'mcp-name': 'search_artifacts' },
    );
    assert.equal(call.status, 200, call.text);
    assert.equal(call.json?.result?.resultType, 'complete');
    assert.match(JSON.stringify(call.json?.result?.content), /Ünïcode titles stay whole/);
    // A modern request must say its method in the headers too (2026-07-28): without them it is refused, not served.
    const bare = await send(url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: MODERN_META } }));
    assert.equal(bare.status, 400, bare.text);
    assert.ok(bare.json?.error, bare.text);
  });
});
