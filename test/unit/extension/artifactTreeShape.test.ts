/**
 * The Artifacts view's shape in a side bar of about 300 px: a scope that holds one type lists its
 * artifacts itself (no type row between), and a row is its title, with only what a user looks for
 * at a glance beside it (tokens and paths are in the tooltip).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Artifact, ArtifactInput } from '../../../src/core/model';
import { artifactDescription, DEFAULT_FILTER, groupArtifacts, scopeDescription, scopeShowsTypes } from '../../../src/extension/artifactTreeModel';
import { memoryStore } from '../helpers';

async function ledger(inputs: ArtifactInput[]): Promise<readonly Artifact[]> {
  const store = await memoryStore();
  for (const input of inputs) store.createArtifact(input);
  return store.latestArtifacts();
}

test('a scope of one type lists its artifacts under itself and names the type; a scope of several keeps a row per type', async () => {
  const artifacts = await ledger([
    { id: 'c1', type: 'convention', title: 'AGENTS: CI', body: 'x' },
    { id: 'c2', type: 'convention', title: 'Comment Style', body: 'x', pinned: true },
    { id: 'p1', type: 'convention', scope: 'path', paths: ['frontend/docs/**'], title: 'This is NOT the Next.js you know', body: 'x' },
    { id: 'p2', type: 'module_memory', scope: 'path', paths: ['pkg/analytics/**'], title: 'Module: pkg/analytics', body: 'x' },
  ]);
  const [global, path] = groupArtifacts(artifacts, DEFAULT_FILTER);
  assert.equal(global!.scope, 'global');
  assert.equal(scopeShowsTypes(global!), false);
  assert.equal(scopeDescription(global!), '2 · Conventions');
  assert.deepEqual(global!.types[0]!.artifacts.map((a) => a.title), ['Comment Style', 'AGENTS: CI'], 'pinned first');
  assert.equal(scopeShowsTypes(path!), true);
  assert.equal(scopeDescription(path!), '2');
  // Filtered to one type, the path scope loses its type rows too.
  const [onlyMemories] = groupArtifacts(artifacts, { ...DEFAULT_FILTER, types: ['module_memory'] });
  assert.equal(scopeShowsTypes(onlyMemories!), false);
  assert.equal(scopeDescription(onlyMemories!), '1 · Module memories');
});

test("an artifact's row describes only what a user looks for at a glance: a conflict, possibly stale, a later version, not active", async () => {
  const [path] = await ledger([{ id: 'p', type: 'convention', scope: 'path', paths: ['sdks/ruby/src/**', 'examples/*/guides/**/*'], title: 'Common Commands', body: 'x' }]);
  assert.equal(artifactDescription(path!), '', 'no globs, no tokens, no v1 on the row');
  assert.equal(artifactDescription({ ...path!, status: 'archived' }), 'archived');
  assert.equal(artifactDescription({ ...path!, version: 3, status: 'superseded' }, { conflict: true, stale: true }), 'conflict · possibly stale · v3 · superseded');
});

test('an empty ledger and a filter that matches nothing give no scopes', async () => {
  assert.deepEqual(groupArtifacts([], DEFAULT_FILTER), []);
  const artifacts = await ledger([{ id: 'n', type: 'note', title: 'Über — 日本語', body: 'x' }]);
  assert.deepEqual(groupArtifacts(artifacts, { ...DEFAULT_FILTER, text: 'nothing-like-this' }), []);
  assert.equal(scopeDescription(groupArtifacts(artifacts, DEFAULT_FILTER)[0]!), '1 · Notes');
});
