/**
 * One search: `context-ledger list --text`, the sidebar's filter and `search_artifacts`
 * (a real MCP server over stdio) find the same artifacts, in the same order, for the same
 * words — accents, case, other scripts, sentences, empty and hostile queries included.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Artifact } from '../../src/core/model';
import { searchArtifacts, searchWords } from '../../src/core/search';
import { DEFAULT_FILTER, filterArtifacts } from '../../src/extension/artifactTreeModel';
import { CLI, cli, jsonOf, memoryStore, tempDir } from './helpers';

const SEEDS: Array<{ id: string; type: string; title: string; body: string; tags?: string; paths?: string; status?: string }> = [
  { id: 'd-sql', type: 'decision', title: 'Use sql.js for storage', body: 'No native build step; SQLite compiled to WebAssembly.', tags: 'storage' },
  { id: 'l-cafe', type: 'learning', title: 'Café menu encoding', body: 'The CAFÉ export is Latin-1, not UTF-8: decode it first.' },
  { id: 'n-jp', type: 'note', title: 'タイトルの規則', body: 'レジャーのタイトルは短く 🚀' },
  { id: 'm-api', type: 'module_memory', title: 'Upload client', body: 'Retry with backoff on 503.', paths: 'src/api/**' },
  { id: 'c-retry', type: 'convention', title: 'Retry policy', body: 'Every upload retries three times with exponential backoff.', tags: 'upload,retry' },
  { id: 'adr-0007', type: 'adr', title: 'ADR-0007: Files are canonical', body: 'The database is only the index.' },
  { id: 'd-old', type: 'decision', title: 'Use LevelDB for storage', body: 'Superseded by sql.js.', status: 'archive' },
];

const QUERIES = [
  'storage', 'STORAGE', 'sql.js', 'cafe', 'CAFÉ', 'café menu', 'タイトル', '🚀', 'upload retry', 'how do we handle upload retry',
  'retry xyzzy', 'src/api', 'ADR 7', 'adr-0007', 'backoff 503', '', '   ', '???', "'; DROP TABLE artifact; --", 'nothing-like-this',
];

describe('one search: list --text, the sidebar filter and search_artifacts agree', () => {
  const dir = tempDir('ledger-search-');
  const db = path.join(dir, 'ledger.db');
  let client: Client;

  before(async () => {
    assert.equal(cli(['init', '--db', db]).code, 0);
    for (const seed of SEEDS) {
      const args = ['add', '--db', db, '--id', seed.id, '--type', seed.type, '--title', seed.title, '--body', seed.body];
      if (seed.tags) args.push('--tag', seed.tags);
      if (seed.paths) args.push('--scope', 'path', '--path', seed.paths);
      const added = cli(args);
      assert.equal(added.code, 0, added.stderr);
      if (seed.status === 'archive') assert.equal(cli(['archive', seed.id, '--db', db]).code, 0);
    }
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db], cwd: dir, stderr: 'pipe' });
    client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function searched(query: string): Promise<string[]> {
    const result = await client.callTool({ name: 'search_artifacts', arguments: { query, limit: 50 } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    return (result.structuredContent as { results: Array<{ id: string }> }).results.map((r) => r.id);
  }

  test('the same artifacts, in the same order, for every query', async () => {
    const all = jsonOf<Artifact[]>(cli(['list', '--db', db, '--status', 'active', '--format', 'json']));
    for (const query of QUERIES) {
      const listed = jsonOf<Artifact[]>(cli(['list', '--db', db, '--status', 'active', '--text', query, '--format', 'json'])).map((a) => a.id);
      assert.deepEqual(await searched(query), listed, `search_artifacts vs list --text for ${JSON.stringify(query)}`);
      // The sidebar groups what it shows; the set is what must agree.
      const sidebar = filterArtifacts(all.map((a) => ({ ...a, body: SEEDS.find((s) => s.id === a.id)!.body })), { ...DEFAULT_FILTER, text: query });
      assert.deepEqual(sidebar.map((a) => a.id).sort(), [...listed].sort(), `sidebar vs list --text for ${JSON.stringify(query)}`);
    }
  });

  test('what a user would expect each query to find', () => {
    const ids = (query: string) => jsonOf<Artifact[]>(cli(['list', '--db', db, '--text', query, '--format', 'json'])).map((a) => a.id);
    // Accents and case folded on both sides (SQLite's lower() folded neither É nor é before).
    assert.deepEqual(ids('cafe'), ['l-cafe']);
    assert.deepEqual(ids('CAFÉ'), ['l-cafe']);
    assert.deepEqual(ids('タイトル'), ['n-jp']);
    assert.deepEqual(ids('🚀'), ['n-jp']);
    // Words, not one phrase: both words anywhere; title matches first.
    assert.deepEqual(ids('upload retry'), ['c-retry', 'm-api']);
    // A sentence is taken as its keywords.
    assert.deepEqual(ids('how do we handle upload retry'), ['c-retry', 'm-api']);
    // Paths are searched too (the sidebar searched them; the CLI and the tool did not).
    assert.deepEqual(ids('src/api'), ['m-api']);
    assert.deepEqual(ids('ADR 7'), ['adr-0007']);
    // Empty: everything, as without --text; punctuation is looked for as written; hostile text is only text.
    assert.equal(ids('').length, SEEDS.length);
    assert.deepEqual(ids('???'), []);
    assert.deepEqual(ids("'; DROP TABLE artifact; --"), []);
    assert.deepEqual(ids('backoff 503'), ['m-api']);
    assert.deepEqual(ids('nothing-like-this'), []);
    // --limit applies to the matches.
    assert.deepEqual(jsonOf<Artifact[]>(cli(['list', '--db', db, '--text', 'storage', '--limit', '1', '--format', 'json'])).length, 1);
  });
});

describe('searchArtifacts', () => {
  test('none with every word: those with the most, and the words it looked for', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'a', type: 'note', title: 'Upload', body: 'retry' });
    store.createArtifact({ id: 'b', type: 'note', title: 'Download', body: 'nothing' });
    const result = searchArtifacts(store.latestArtifacts(), 'upload retry xyzzy');
    assert.deepEqual(result.words, ['upload', 'retry', 'xyzzy']);
    assert.equal(result.matched, 2);
    assert.deepEqual(result.artifacts.map((a) => a.id), ['a']);
  });

  test('words: folded, filler dropped unless nothing else, punctuation trimmed', () => {
    assert.deepEqual(searchWords('  Ünïcode CAFÉ, the  '), ['unicode', 'cafe']);
    assert.deepEqual(searchWords('how to'), ['how', 'to']);
    assert.deepEqual(searchWords('src/api/** v1.2.'), ['src/api', 'v1.2']);
    assert.deepEqual(searchWords('rocket 🚀'), ['rocket', '🚀']);
    assert.deepEqual(searchWords(' ?? '), ['??']);
    assert.deepEqual(searchWords(' \t'), []);
    assert.deepEqual(searchWords(''), []);
  });

  test('a huge body and a huge query are searched, not refused', async () => {
    const store = await memoryStore();
    store.createArtifact({ id: 'big', type: 'note', title: 'Big', body: `${'lorem ipsum '.repeat(200_000)}needle` });
    assert.deepEqual(searchArtifacts(store.latestArtifacts(), 'needle').artifacts.map((a) => a.id), ['big']);
    assert.deepEqual(searchArtifacts(store.latestArtifacts(), `needle ${'x'.repeat(100_000)}`).matched, 1);
  });
});
