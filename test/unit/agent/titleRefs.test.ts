/**
 * A whole item in a built context is its heading and its text: no line of type and URN under
 * it (that line cost a quarter of a 2,000-token context made of short rule sections). So the
 * title the heading shows is a reference wherever the agent tools take an id: get_artifact,
 * propose_version, propose_supersession, explain. Previews, title lines and sections keep
 * their URNs: they are how the agent reaches the rest.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AgentToolEnv, findAgentTool, type LedgerAccess, MCP_TOOLS } from '../../../src/core/agentTools';
import { assembleContext } from '../../../src/core/assemble';
import type { LedgerStore } from '../../../src/core/store';
import { confirmationFor, runForModel } from '../../../src/extension/agent/lmToolModel';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-06-01T00:00:00Z');

function env(store: LedgerStore): AgentToolEnv {
  const access: LedgerAccess = { read: async (fn) => fn(store), write: (fn) => Promise.resolve(store.transaction(() => fn(store))) };
  return { ledger: access, channel: 'mcp', workspaceRoot: '/work/project', agent: 'claude-code' };
}

const tool = (name: string) => findAgentTool(name, MCP_TOOLS)!;

async function ledger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock());
  store.createArtifact({ id: 'storage', type: 'decision', title: 'Use sql.js for storage', body: 'No native build step: the database is sql.js in memory, exported whole on save.' });
  store.createArtifact({ id: 'csharp', type: 'convention', title: 'C# style: file-scoped namespaces', body: 'Every C# file uses a file-scoped namespace.' });
  store.createArtifact({ id: 'cjk', type: 'learning', title: '重试 webhook 三天', body: 'Stripe retries a webhook for three days; storage keeps the event id.' });
  return store;
}

describe('a whole item is named by its title', () => {
  test('a whole item is its heading (title and type) and its text; a preview still ends in its URN', async () => {
    const store = await ledger();
    store.createArtifact({ id: 'long', type: 'note', title: 'Storage internals', body: `Storage: sql.js pages. ${'The export writes every page of the database. '.repeat(400)}` });
    const result = await assembleContext(store, { budget: 600, now: NOW, task: { title: 'Storage with sql.js', description: '' }, paths: [], log: false });
    assert.equal(result.items.find((i) => i.id === 'storage')?.mode, 'full', JSON.stringify(result.items));
    assert.match(result.text, /^### Use sql\.js for storage · decision\n\nNo native build step/m);
    assert.ok(!result.text.includes('ledger://artifact/storage'), 'no URN line under a whole item');
    const long = result.items.find((i) => i.id === 'long');
    assert.ok(long && long.mode !== 'full', JSON.stringify(result.items));
    assert.ok(result.text.includes('ledger://artifact/long'), 'a preview or title line says where the rest is');
  });

  test('get_artifact takes the title as the heading shows it: the whole line, any case or spacing, non-ASCII, a # inside', async () => {
    const store = await ledger();
    for (const ref of ['Use sql.js for storage', '### Use sql.js for storage · decision', '  use SQL.JS   for storage ', 'ledger://artifact/storage', 'storage']) {
      const text = await runForModel(tool('get_artifact'), env(store), { id: ref });
      assert.match(text, /No native build step/, ref);
    }
    assert.match(await runForModel(tool('get_artifact'), env(store), { id: 'C# style: file-scoped namespaces · convention' }), /file-scoped namespace\./);
    assert.match(await runForModel(tool('get_artifact'), env(store), { id: '重试 webhook 三天' }), /three days/);
    // Not a title, not an id: the answer says what it takes, and nothing is guessed from a part of a title.
    for (const ref of ['Use sql.js', '../../etc/passwd', '### · decision']) {
      assert.match(await runForModel(tool('get_artifact'), env(store), { id: ref }), /No artifact/, ref);
    }
  });

  test('propose_version by title revises that artifact, and the confirmation names it', async () => {
    const store = await ledger();
    const input = { id: 'Use sql.js for storage · decision', body: 'No native build step on any platform.', reason: 'clearer' };
    assert.match(confirmationFor(tool('propose_version'), input, store)!.message, /revise decision \*\*Use sql\\\.js for storage\*\*/);
    const out = await runForModel(tool('propose_version'), env(store), input);
    assert.doesNotMatch(out, /No artifact|Invalid/, out);
    const latest = store.latestOfChain(store.getArtifact('storage')!.chainId)!;
    assert.equal(latest.version, 2);
    assert.equal(latest.body, 'No native build step on any platform.');
  });

  test('a title several current artifacts share names none: the answer lists their ids and nothing is written', async () => {
    const store = await ledger();
    store.createArtifact({ id: 'storage-2', type: 'note', title: 'Use sql.js for storage', body: 'A second note with the same title.' });
    const input = { id: 'Use sql.js for storage', body: 'Changed.' };
    assert.match(confirmationFor(tool('propose_version'), input, store)!.message, /2 artifacts have the title "Use sql\.js for storage": storage, storage-2/);
    const out = await runForModel(tool('propose_version'), env(store), input);
    assert.match(out, /2 artifacts have the title "Use sql\.js for storage": storage, storage-2\. Name one by its id\./);
    assert.equal(store.latestOfChain(store.getArtifact('storage')!.chainId)!.version, 1);
    assert.equal(store.latestOfChain(store.getArtifact('storage-2')!.chainId)!.version, 1);
    // Once one is archived the title names the other again.
    store.setStatus('storage-2', 'archived');
    assert.match(await runForModel(tool('get_artifact'), env(store), { id: 'Use sql.js for storage' }), /No native build step/);
  });

  test('explain takes the title too', async () => {
    const store = await ledger();
    const out = await runForModel(tool('explain'), env(store), { task: 'Storage with sql.js', id: 'Use sql.js for storage' });
    assert.match(out, /ledger:\/\/artifact\/storage "Use sql\.js for storage" is IN/);
  });
});
