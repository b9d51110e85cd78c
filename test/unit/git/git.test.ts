import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain, toContractJson } from '../../../src/core/assemble';
import { workflowNarrative } from '../../../src/core/assemble/workflow';
import {
  commitEventPayload,
  commitLines,
  commitsToRecord,
  describeStale,
  markStale,
  parseGitLog,
  staleMemories,
  stalenessHorizon,
} from '../../../src/core/git';
import type { Artifact, TaskEvent } from '../../../src/core/model';
import type { GitCommit } from '../../../src/core/sources';
import { moveTaskToStage } from '../../../src/core/stages';
import { activePaths } from '../../../src/extension/activePaths';
import { memoryStore } from '../helpers';

const RS = '\x1e';

function commit(hash: string, date: string | undefined, files: string[], subject = `commit ${hash}`): GitCommit {
  return { hash: hash.padEnd(40, '0'), subject, ...(date ? { date } : {}), files };
}

function memory(over: Partial<Artifact> & { id: string }): Artifact {
  return {
    chainId: over.id,
    version: 1,
    type: 'module_memory',
    scope: 'path',
    taskId: null,
    paths: ['src/payments/**'],
    title: `Memory ${over.id}`,
    body: 'How it works.',
    summary: null,
    tags: [],
    conditions: { labels: [], keywords: [], paths: [] },
    status: 'active',
    supersedes: null,
    pinned: false,
    source: 'user',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    contentHash: 'h',
    extra: {},
    ...over,
  };
}

describe('parseGitLog', () => {
  test('reads hash, date, subject and files; keeps non-ASCII names and subjects; maps paths into the workspace folder', () => {
    const text =
      `${RS}${'a'.repeat(40)}\t2026-03-02T09:00:00+01:00\tRéparer les webhooks — 修正\n\napp/src/payments/wébhooks.ts\nother/outside.ts\n` +
      `${RS}${'b'.repeat(40)}\t2026-03-01T09:00:00+01:00\tEmpty commit\n`;
    const commits = parseGitLog(text, (p) => (p.startsWith('app/') ? p.slice(4) : undefined));
    assert.equal(commits.length, 2);
    assert.equal(commits[0]!.subject, 'Réparer les webhooks — 修正');
    assert.deepEqual(commits[0]!.files, ['src/payments/wébhooks.ts'], 'files outside the folder are dropped, the commit stays');
    assert.deepEqual(commits[1]!.files, []);
    assert.equal(commits[1]!.date, '2026-03-01T09:00:00+01:00');
  });

  test('empty and malformed output give no commits, not an error', () => {
    assert.deepEqual(parseGitLog(''), []);
    assert.deepEqual(parseGitLog(`${RS}not a hash\tx\ty\n${RS}\n\n`), []);
    assert.deepEqual(parseGitLog('fatal: not a git repository'), []);
  });
});

describe('commits as task events', () => {
  test('the payload has hash, subject and files; a multi-line subject is one line; thousands of files are cut to 50 with the total', () => {
    const files = Array.from({ length: 3000 }, (_, i) => `src/f${i}.ts`);
    const payload = commitEventPayload(commit('c1', '2026-03-02T00:00:00Z', files, 'Fix\n  the   thing'));
    assert.equal(payload.subject, 'Fix the thing');
    assert.equal(payload.files.length, 50);
    assert.equal(payload.filesTotal, 3000);
    assert.ok(payload.hash.startsWith('c1'));
    assert.equal(commitEventPayload(commit('c2', undefined, ['a.ts'], 'x'.repeat(500))).subject.length, 200);
  });

  test('only commits not recorded yet and not older than the task, oldest first', () => {
    const events: TaskEvent[] = [{ id: 1, taskId: 't', kind: 'commit', at: '2026-03-02T00:00:00Z', payload: { hash: commit('b2', undefined, []).hash } }];
    const newestFirst = [
      commit('c3', '2026-03-03T12:00:00Z', ['a.ts']),
      commit('b2', '2026-03-02T12:00:00Z', ['a.ts']),
      commit('a1', '2026-03-02T11:00:00Z', ['b.ts']),
      commit('z0', '2026-02-01T00:00:00Z', ['old.ts']),
    ];
    const picked = commitsToRecord(newestFirst, '2026-03-02T00:00:00.000Z', events);
    assert.deepEqual(picked.map((c) => c.hash.slice(0, 2)), ['a1', 'c3']);
    assert.deepEqual(commitsToRecord([], '2026-03-02T00:00:00Z', events), []);
  });

  test('recorded commits reach the Active Task row, the stage summary and workflow memory', async () => {
    const store = await memoryStore();
    const task = store.createTask({ title: 'Retry webhooks', stage: 'develop' });
    store.setActiveTask(task.id);
    const fresh = commitsToRecord([commit('d4', '2099-01-01T00:00:00Z', ['src/payments/webhooks.ts'], 'Handle retried webhooks once')], task.createdAt, store.taskEvents(task.id));
    for (const c of fresh) store.addTaskEvent(task.id, 'commit', commitEventPayload(c) as unknown as Record<string, unknown>);
    assert.deepEqual(commitLines(store.taskEvents(task.id)), ['d4000000 Handle retried webhooks once']);
    assert.match(workflowNarrative(store.taskEvents(task.id), 3), /Commits: d4000000 Handle retried webhooks once/);
    const { summary } = moveTaskToStage(store, task.id, 'review');
    assert.deepEqual(summary?.commits, ['d4000000 Handle retried webhooks once']);
    assert.deepEqual(summary?.filesChanged, ['src/payments/webhooks.ts'], "the commit's files count as changed in the stage");
  });
});

describe('staleness of module memories', () => {
  const commits = [
    commit('c3', '2026-03-05T00:00:00Z', ['src/payments/webhooks.ts', 'README.md'], 'Retry webhooks'),
    commit('c2', '2026-03-04T00:00:00Z', ['src/search/index.ts'], 'Search'),
    commit('c1', '2026-02-01T00:00:00Z', ['src/payments/old.ts'], 'Old'),
  ];

  test('a memory whose paths changed in commits after its last update is flagged, with those commits and files', () => {
    const flags = staleMemories([memory({ id: 'm1' })], commits);
    const flag = flags.get('m1');
    assert.ok(flag);
    assert.deepEqual(flag.commits.map((c) => c.subject), ['Retry webhooks']);
    assert.deepEqual(flag.commits[0]!.files, ['src/payments/webhooks.ts']);
    assert.match(describeStale(flag), /possibly stale: src\/payments\/webhooks\.ts changed in 1 commit since its last update \(2026-03-01\), latest c3000000 "Retry webhooks"/);
  });

  test('not flagged: updated after the commits, paths untouched, not a module memory, archived, no paths, bad glob, undated commits', () => {
    const artifacts = [
      memory({ id: 'fresh', updatedAt: '2026-03-06T00:00:00.000Z' }),
      memory({ id: 'elsewhere', paths: ['lib/**'] }),
      memory({ id: 'adr', type: 'adr' }),
      memory({ id: 'gone', status: 'archived' }),
      memory({ id: 'nopaths', paths: [] }),
      memory({ id: 'badglob', paths: ['src/[payments'] }),
    ];
    assert.equal(staleMemories(artifacts, commits).size, 0);
    assert.equal(staleMemories([memory({ id: 'm1' })], [commit('x', undefined, ['src/payments/a.ts'])]).size, 0);
    assert.equal(staleMemories([memory({ id: 'm1' })], []).size, 0);
  });

  test('exact file paths, folder paths and base-name globs all match; a huge history lists 10 commits and keeps the count', () => {
    const history = Array.from({ length: 400 }, (_, i) => commit(`h${i}`, new Date(Date.parse('2026-03-10T00:00:00Z') - i * 60_000).toISOString(), [`src/payments/f${i}.ts`]));
    const flags = staleMemories(
      [memory({ id: 'file', paths: ['src/payments/f3.ts'] }), memory({ id: 'dir', paths: ['src/payments'] }), memory({ id: 'base', paths: ['f7.ts'] })],
      history,
    );
    assert.deepEqual([...flags.keys()].sort(), ['base', 'dir', 'file']);
    assert.equal(flags.get('dir')!.commits.length, 10);
    assert.equal(flags.get('dir')!.total, 400);
    assert.match(describeStale(flags.get('dir')!), /in 400 commits/);
    assert.equal(flags.get('file')!.total, undefined);
  });

  test('the horizon is the oldest candidate update; none without candidates', () => {
    assert.equal(stalenessHorizon([memory({ id: 'a', updatedAt: '2026-03-02T00:00:00Z' }), memory({ id: 'b' }), memory({ id: 'n', type: 'note', updatedAt: '2020-01-01T00:00:00Z' })]), '2026-03-01T10:00:00.000Z');
    assert.equal(stalenessHorizon([memory({ id: 'n', type: 'note' })]), undefined);
  });

  test('explain and the JSON contract show the flag; without flags the result is unchanged', async () => {
    const store = await memoryStore();
    const m = store.createArtifact({ type: 'module_memory', scope: 'path', paths: ['src/payments/**'], title: 'Payments webhooks', body: 'Webhooks are idempotent by event id.' });
    const result = await assembleContext(store, { budget: 2000, paths: ['src/payments/webhooks.ts'], log: false });
    assert.equal(markStale(result, new Map()), result);
    const flags = staleMemories(store.latestArtifacts(), [commit('e5', '2099-01-01T00:00:00Z', ['src/payments/webhooks.ts'], 'Make webhooks async')]);
    const marked = markStale(result, flags);
    const text = renderExplain(marked);
    assert.match(text, /Possibly stale: 1 module memory/);
    assert.match(text, /\[full\] POSSIBLY STALE Payments webhooks/);
    assert.match(text, /latest e5000000 "Make webhooks async"/);
    const json = toContractJson(marked) as { items: Array<{ id: string; stale?: { commits: unknown[] } }> };
    assert.equal(json.items.find((i) => i.id === m.id)?.stale?.commits.length, 1);
    assert.doesNotMatch(renderExplain(result), /stale/i);
    assert.equal(marked.text, result.text, 'the agent context itself is not changed');
  });
});

describe('active paths', () => {
  test('files the branch changed come after the visible and recently worked-on files, before other tabs, without duplicates', () => {
    const paths = activePaths({
      visible: ['src/a.ts'],
      open: ['docs/x.md'],
      branch: ['src/b.ts', 'src/a.ts'],
      activity: [],
      now: new Date('2026-03-01T00:00:00Z'),
      halfLifeHours: 24,
    });
    assert.deepEqual(paths, ['src/a.ts', 'src/b.ts', 'docs/x.md']);
  });
});
