/**
 * One path to a new version (src/core/artifactService.ts): a person's update, a review, a
 * revert and an agent's proposal follow the same rules, and supersession by a person or an
 * agent leaves the same state behind.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AgentToolEnv, findAgentTool } from '../../src/core/agentTools';
import { applyReview, newVersion, restoreVersion, supersedeChain } from '../../src/core/artifactService';
import { UserError } from '../../src/core/model';
import { reviewState } from '../../src/core/review';
import type { LedgerStore } from '../../src/core/store';
import { memoryStore } from './helpers';

function env(store: LedgerStore): AgentToolEnv {
  return { ledger: { read: async (fn) => fn(store), write: (fn) => Promise.resolve(store.transaction(() => fn(store))) }, channel: 'mcp', agent: 'claude-code', workspaceRoot: '/work/project' };
}

async function propose(store: LedgerStore, name: string, input: Record<string, unknown>): Promise<{ text: string; isError?: boolean }> {
  return findAgentTool(name)!.run(env(store), input);
}

async function seeded(): Promise<LedgerStore> {
  const store = await memoryStore();
  store.createArtifact({
    id: 'd1', type: 'decision', title: 'Use sql.js', body: 'No native build.', tags: ['db'], conditions: { labels: ['storage'] },
    author: 'ana@example.com',
  });
  store.setPinned('d1', true);
  return store;
}

describe('one path to a new version', () => {
  test("a person's update and an agent's proposal keep the chain's status, pin, supersession and creation; conditions merge", async () => {
    const store = await seeded();
    const person = newVersion(store, 'd1', { patch: { body: 'No native build, on any platform.', conditions: { keywords: ['wasm'] } } });
    assert.equal(person.changed, true);
    assert.equal(person.artifact.version, 2);
    assert.equal(person.artifact.pinned, true);
    assert.equal(person.artifact.createdAt, person.previous.createdAt);
    assert.deepEqual(person.artifact.conditions, { labels: ['storage'], keywords: ['wasm'], paths: [] });
    // Who wrote a teammate's version is not who wrote the next.
    assert.equal(person.artifact.author, undefined);
    assert.equal(person.artifact.source, 'user');

    const reply = await propose(store, 'propose_version', { id: 'd1', body: 'No native build step on any platform.', reason: 'clearer' });
    assert.notEqual(reply.isError, true, reply.text);
    const agent = store.latestOfChain('d1')!;
    assert.equal(agent.version, 3);
    assert.equal(agent.pinned, true);
    assert.deepEqual(agent.conditions, person.artifact.conditions);
    assert.equal(agent.source, 'agent:claude-code');
    assert.equal(reviewState(agent), 'unreviewed');
    assert.equal(agent.previousVersion, person.artifact.id);
    assert.equal(agent.changeNote, 'clearer');
  });

  test('a change that alters nothing adds no version, for a person and for an agent', async () => {
    const store = await seeded();
    assert.equal(newVersion(store, 'd1', { patch: { title: 'Use sql.js', body: 'No native build.' } }).changed, false);
    const reply = await propose(store, 'propose_version', { id: 'd1', title: 'Use sql.js' });
    assert.match(reply.text, /Nothing changed/);
    assert.equal(store.history('d1').length, 1);
  });

  test('a review is a new version with the same content; a rejected chain is archived; only agent versions are reviewed', async () => {
    const store = await seeded();
    assert.throws(() => applyReview(store, 'd1', 'approved'), UserError);
    await propose(store, 'propose_version', { id: 'd1', body: 'Proposed.' });
    const proposed = store.latestOfChain('d1')!;
    const approved = applyReview(store, 'd1', 'approved', 'ana');
    assert.equal(approved.version, proposed.version + 1);
    assert.equal(approved.body, proposed.body);
    assert.equal(approved.source, proposed.source);
    assert.equal(reviewState(approved), 'approved');
    assert.equal(approved.reviewedBy, 'ana');
    // The same verdict again writes nothing.
    assert.equal(applyReview(store, 'd1', 'approved').id, approved.id);
    await propose(store, 'propose_version', { id: 'd1', body: 'Wrong.' });
    assert.equal(applyReview(store, 'd1', 'rejected').status, 'archived');
  });

  test('a revert brings old content back as the newest version; the same content is refused', async () => {
    const store = await seeded();
    newVersion(store, 'd1', { patch: { body: 'Changed.' } });
    const restored = restoreVersion(store, 'd1');
    assert.equal(restored.version, 3);
    assert.equal(restored.body, 'No native build.');
    assert.throws(() => restoreVersion(store, store.history('d1')[0]!.id), /nothing to restore/);
  });

  test('bad input is refused with nothing written: an unknown chain, a NUL body, a path scope without paths', async () => {
    const store = await seeded();
    assert.throws(() => newVersion(store, 'nope', { patch: { body: 'x' } }), UserError);
    assert.throws(() => newVersion(store, 'd1', { patch: { body: 'bin\u0000ary' } }), /NUL/);
    assert.throws(() => newVersion(store, 'd1', { patch: { scope: 'path' } }), /needs at least one/);
    assert.equal(store.history('d1').length, 1);
  });

  test('supersession by a person and by an agent leaves the same state: the old chain superseded, the new one naming it', async () => {
    const store = await seeded();
    store.createArtifact({ id: 'd2', type: 'decision', title: 'Use LevelDB', body: 'Old.' });
    const byPerson = supersedeChain(store, 'd2', { input: { type: 'decision', title: 'Use SQLite files', body: 'New.' } });
    const reply = await propose(store, 'propose_supersession', { supersedes: 'd1', title: 'Use files as the ledger', body: 'Files are canonical.' });
    assert.notEqual(reply.isError, true, reply.text);
    const byAgent = store.latestArtifacts().find((a) => a.supersedes === 'd1')!;
    for (const [old, by] of [['d2', byPerson.by], ['d1', byAgent]] as const) {
      assert.equal(store.latestOfChain(old)!.status, 'superseded');
      assert.equal(by.supersedes, old);
      assert.equal(by.status, 'active');
    }
    assert.equal(byPerson.by.scope, 'global');
    assert.equal(reviewState(byAgent), 'unreviewed');
    assert.equal(byAgent.supersedesId, 'd1');
    assert.throws(() => supersedeChain(store, 'd1', { by: 'd1' }), /own chain/);
  });
});
