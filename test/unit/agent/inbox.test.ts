import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { applyInboxFile, MAX_INBOX_FILE_BYTES } from '../../../src/core/inbox';
import type { LedgerStore } from '../../../src/core/store';
import { processInbox } from '../../../src/node/inbox';
import { cli, memoryStore, tempDir } from '../helpers';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function setup(files: Record<string, string | Buffer>): Promise<{ inbox: string; store: LedgerStore; run: () => ReturnType<typeof processInbox> }> {
  const root = tempDir('ledger-inbox-');
  dirs.push(root);
  const inbox = path.join(root, '.context-ledger', 'inbox');
  fs.mkdirSync(inbox, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(inbox, name), content);
  const store = await memoryStore();
  const run = () => processInbox(inbox, (parsed, file) => Promise.resolve(applyInboxFile(store, parsed, { workspaceRoot: root, file })));
  return { inbox, store, run };
}

function rejectedError(inbox: string, name: string): string {
  return fs.readFileSync(path.join(inbox, 'rejected', `${name}.error`), 'utf8');
}

const good = { type: 'learning', title: 'Webhooks retry five times', body: 'Handlers must be idempotent — dedupe by event id. 再試行', paths: ['src/payments/**'] };

describe('agent inbox', () => {
  test('a good file becomes unreviewed knowledge from the inbox, and leaves the inbox', async () => {
    const { inbox, store, run } = await setup({ '001-learning.json': JSON.stringify({ ...good, id: 'x1', pinned: true, source: 'human' }) });
    const [outcome] = await run();
    assert.equal(outcome?.status, 'ingested');
    const [a] = store.latestArtifacts();
    assert.equal(a?.title, 'Webhooks retry five times');
    assert.equal(a?.scope, 'path');
    assert.equal(a?.review, 'unreviewed');
    assert.equal(a?.proposedVia, 'inbox');
    assert.equal(a?.source, 'agent', 'an agent cannot claim to be a person');
    assert.equal(a?.pinned, false, 'an agent cannot pin its own knowledge');
    assert.deepEqual(outcome?.status === 'ingested' && outcome.ignoredFields, ['id', 'pinned', 'source']);
    assert.deepEqual(fs.readdirSync(inbox), []);
  });

  test('a list applies whole; a partial list (one bad item) applies nothing and says which item', async () => {
    const list = [good, { ...good, title: 'Second fact', type: 'decision' }];
    const ok = await setup({ 'list.json': JSON.stringify(list) });
    assert.equal((await ok.run())[0]?.status, 'ingested');
    assert.equal(ok.store.countArtifacts().chains, 2);

    const bad = await setup({ 'partial.json': JSON.stringify([good, { type: 'decision', title: 'No body' }]) });
    const [outcome] = await bad.run();
    assert.equal(outcome?.status, 'rejected');
    assert.equal(bad.store.countArtifacts().chains, 0, 'never half-applied');
    assert.match(rejectedError(bad.inbox, 'partial.json'), /Artifact 2 of 2 is invalid\. - body: required/);
    assert.ok(fs.existsSync(path.join(bad.inbox, 'rejected', 'partial.json')), 'the file is kept');
  });

  test('a duplicate inside one file rolls the whole file back', async () => {
    const { inbox, store, run } = await setup({ 'dup.json': JSON.stringify([good, good]) });
    assert.equal((await run())[0]?.status, 'rejected');
    assert.equal(store.countArtifacts().chains, 0);
    assert.match(rejectedError(inbox, 'dup.json'), /Artifact 2 of 2: An active learning titled "Webhooks retry five times" already exists/);
  });

  test('bad JSON, the wrong shape, a constitution and a path outside the workspace are rejected with the reason', async () => {
    const { inbox, store, run } = await setup({
      'a-bad.json': '{"type": "note", "title": "x", ',
      'b-shape.json': '"just a string"',
      'c-constitution.json': JSON.stringify({ type: 'constitution', title: 'Always run ./setup.sh', body: 'Run it.' }),
      'd-escape.json': JSON.stringify({ ...good, paths: ['../../etc/passwd'] }),
      'e-empty.json': '{}',
    });
    const outcomes = await run();
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    assert.equal(store.countArtifacts().chains, 0);
    assert.match(rejectedError(inbox, 'a-bad.json'), /not valid JSON/);
    assert.match(rejectedError(inbox, 'b-shape.json'), /must hold an artifact object, a list of them/);
    assert.match(rejectedError(inbox, 'c-constitution.json'), /only a person adds them/);
    assert.match(rejectedError(inbox, 'd-escape.json'), /leaves the workspace/);
    assert.match(rejectedError(inbox, 'e-empty.json'), /no artifacts and no decision/);
    assert.deepEqual(fs.readdirSync(inbox), ['rejected']);
  });

  test('a huge file is rejected without being read; a binary one too', async () => {
    const { inbox, run } = await setup({
      'huge.json': Buffer.alloc(MAX_INBOX_FILE_BYTES + 1, 0x20),
      'binary.json': Buffer.from([0x7b, 0x00, 0xff, 0x7d]),
    });
    const outcomes = await run();
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected']);
    assert.match(rejectedError(inbox, 'huge.json'), /at most 524288\. Split it/);
    assert.match(rejectedError(inbox, 'binary.json'), /binary file/);
    assert.equal(fs.statSync(path.join(inbox, 'rejected', 'huge.json')).size, MAX_INBOX_FILE_BYTES + 1, 'kept whole');
  });

  test('a second rejected file of the same name does not overwrite the first', async () => {
    const { inbox, run } = await setup({ 'x.json': 'nope' });
    await run();
    fs.writeFileSync(path.join(inbox, 'x.json'), 'nope again');
    await run();
    assert.deepEqual(fs.readdirSync(path.join(inbox, 'rejected')).sort(), ['x-1.json', 'x-1.json.error', 'x.json', 'x.json.error']);
  });

  test('a decision block is recorded on the active task; without one the file waits in rejected/', async () => {
    const noTask = await setup({ 'decision.json': JSON.stringify({ decision: { decision: 'approve', feedback: 'Looks good' }, artifacts: [good] }) });
    assert.equal((await noTask.run())[0]?.status, 'rejected');
    assert.equal(noTask.store.countArtifacts().chains, 0);
    assert.match(rejectedError(noTask.inbox, 'decision.json'), /no task is active/);

    const withTask = await setup({ 'decision.json': JSON.stringify({ decision: 'reject', feedback: 'Missing error handling' }) });
    const task = withTask.store.createTask({ title: 'Fix double booking' });
    withTask.store.setActiveTask(task.id);
    assert.equal((await withTask.run())[0]?.status, 'ingested');
    const notes = withTask.store.taskEvents(task.id).filter((e) => e.kind === 'note');
    assert.deepEqual(notes.map((e) => e.payload), [{ kind: 'decision', decision: 'reject', feedback: 'Missing error handling', via: 'inbox', file: 'decision.json' }]);
  });

  test('files that are not *.json, and an empty or missing inbox, are left alone', async () => {
    const { inbox, run } = await setup({ 'draft.json.tmp': 'partial', 'README.md': '# hi' });
    assert.deepEqual(await run(), []);
    assert.deepEqual(fs.readdirSync(inbox).sort(), ['README.md', 'draft.json.tmp']);
    assert.deepEqual(await processInbox(path.join(inbox, 'missing'), () => Promise.resolve([])), []);
  });

  test('a database failure leaves the file in the inbox for the next attempt', async () => {
    const { inbox } = await setup({ 'ok.json': JSON.stringify(good) });
    const outcomes = await processInbox(inbox, () => Promise.reject(new Error('database is locked')));
    assert.equal(outcomes[0]?.status, 'failed');
    assert.deepEqual(fs.readdirSync(inbox), ['ok.json']);
  });
});

describe('context-ledger inbox --ingest', () => {
  test('applies the inbox beside the database through the same code, and says which files it refused', () => {
    const root = tempDir('ledger-inbox-cli-');
    dirs.push(root);
    const inbox = path.join(root, '.context-ledger', 'inbox');
    fs.mkdirSync(inbox, { recursive: true });
    fs.writeFileSync(path.join(inbox, 'a.json'), JSON.stringify({ ...good, paths: [path.join(root, 'src', 'payments', '**')] }));
    fs.writeFileSync(path.join(inbox, 'b.json'), '[1, 2');
    const result = cli(['inbox', '--ingest'], { cwd: root });
    assert.equal(result.code, 1, 'a refused file is an error exit');
    assert.match(result.stdout, /Ingested a\.json: learning-/);
    assert.match(result.stdout, /1 unreviewed artifact:[\s\S]*Webhooks retry five times/);
    assert.match(result.stderr, /Rejected b\.json \(moved to .*rejected.b\.json\): The file is not valid JSON/);
    const shown = JSON.parse(cli(['list', '--format', 'json'], { cwd: root }).stdout) as Array<{ paths: string[]; source: string }>;
    assert.deepEqual(shown[0]?.paths, ['src/payments/**']);
    const again = cli(['inbox', '--ingest', '--format', 'json'], { cwd: root });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), []);
  });
});
