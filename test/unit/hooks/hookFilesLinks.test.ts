/**
 * What a hook keeps in the workspace (its log, each agent session's record of what it was given)
 * is never written through a link: a clone can ship `.context-ledger/hooks` or its `sessions`
 * folder as a symbolic link pointing anywhere, and a hard link at the log shares another file's
 * bytes. Run as an agent runs the hook (the real client, dist/hook.cjs, with a real payload):
 * the agent still gets its context, and the place the link points to gets nothing.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { replaceFileAtomically } from '../../../src/node/atomicWrite';
import { CLI, ROOT, tempDir } from '../helpers';

const HOOK_CLIENT = path.join(ROOT, 'dist', 'hook.cjs');

function setUp(): { dir: string; outside: string; state: string; hook: (payload: object) => { code: number; stdout: string } } {
  const root = tempDir('ledger-hook-links-');
  const dir = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  const state = path.join(root, 'state');
  fs.mkdirSync(dir);
  fs.mkdirSync(outside);
  const env = { ...process.env, HOME: path.join(root, 'home'), XDG_STATE_HOME: state, CONTEXT_LEDGER_HOOK_SERVER: 'off', CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000' };
  for (const args of [['init'], ['add', '--type', 'decision', '--title', 'Refunds go back to the card', '--body', 'Marker REFUND-LINK-1.']]) {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
  }
  const hook = (payload: object): { code: number; stdout: string } => {
    const r = spawnSync(process.execPath, [HOOK_CLIENT, 'hook', 'prompt', '--agent', 'claude-code'], { cwd: dir, input: JSON.stringify({ cwd: dir, ...payload }), encoding: 'utf8', env });
    return { code: r.status ?? -1, stdout: r.stdout };
  };
  return { dir, outside, state, hook };
}

function listed(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
}

test('a symlinked .context-ledger/hooks: the agent gets its context, the link target gets nothing, the log goes to the user state folder', () => {
  const { dir, outside, state, hook } = setUp();
  fs.rmSync(path.join(dir, '.context-ledger', 'hooks'), { recursive: true, force: true });
  fs.symlinkSync(outside, path.join(dir, '.context-ledger', 'hooks'));
  const first = hook({ session_id: 'links-1', prompt: 'Refund a cancelled booking' });
  assert.equal(first.code, 0);
  assert.match(first.stdout, /REFUND-LINK-1/);
  assert.deepEqual(listed(outside), []);
  const userLog = fs.readFileSync(path.join(state, 'context-ledger', 'hooks.log.jsonl'), 'utf8');
  assert.match(userLog, /"outcome":"added"/);
});

test('a symlinked hooks/sessions folder: nothing is written or pruned through it, and the agent still gets its context', () => {
  const { dir, outside, hook } = setUp();
  fs.writeFileSync(path.join(outside, 'claude-code-keep.json'), 'not the ledger’s');
  fs.utimesSync(path.join(outside, 'claude-code-keep.json'), new Date('2001-01-01'), new Date('2001-01-01'));
  fs.mkdirSync(path.join(dir, '.context-ledger', 'hooks'), { recursive: true });
  fs.symlinkSync(outside, path.join(dir, '.context-ledger', 'hooks', 'sessions'));
  const start = spawnSync(process.execPath, [HOOK_CLIENT, 'hook', 'session-start', '--agent', 'claude-code'], {
    cwd: dir,
    input: JSON.stringify({ cwd: dir, session_id: 'links-2', source: 'startup' }),
    encoding: 'utf8',
    env: { ...process.env, CONTEXT_LEDGER_HOOK_SERVER: 'off', CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000' },
  });
  assert.equal(start.status, 0);
  const prompt = hook({ session_id: 'links-2', prompt: 'Refund a cancelled booking' });
  assert.equal(prompt.code, 0);
  assert.match(prompt.stdout, /REFUND-LINK-1/, 'without a session record the prompt still gets its context');
  assert.deepEqual(listed(outside), ['claude-code-keep.json'], 'the session start prunes nothing through the link');
});

test('a hard link at the hook log: the file it shares keeps its bytes; the log holds the new entry', () => {
  const { dir, outside, hook } = setUp();
  const shared = path.join(outside, 'notes.txt');
  fs.writeFileSync(shared, 'a file of the user’s\n');
  fs.mkdirSync(path.join(dir, '.context-ledger', 'hooks'), { recursive: true });
  const log = path.join(dir, '.context-ledger', 'hooks', 'log.jsonl');
  fs.linkSync(shared, log);
  assert.equal(hook({ session_id: 'links-3', prompt: 'Refund a cancelled booking' }).code, 0);
  assert.equal(fs.readFileSync(shared, 'utf8'), 'a file of the user’s\n');
  assert.match(fs.readFileSync(log, 'utf8'), /"outcome":"added"/);
  assert.equal(fs.statSync(log).nlink, 1);
});

test('a .context-ledger/.gitignore that links out (symbolic or hard) is not appended to by the first hook', () => {
  for (const kind of ['symbolic', 'hard'] as const) {
    const { dir, outside, hook } = setUp();
    const target = path.join(outside, 'bashrc');
    fs.writeFileSync(target, 'export PATH=$HOME/bin:$PATH\n');
    const ignore = path.join(dir, '.context-ledger', '.gitignore');
    fs.rmSync(path.join(dir, '.context-ledger', 'hooks'), { recursive: true, force: true });
    fs.rmSync(ignore);
    if (kind === 'symbolic') fs.symlinkSync(target, ignore);
    else fs.linkSync(target, ignore);
    const answer = hook({ session_id: `links-ignore-${kind}`, prompt: 'Refund a cancelled booking' });
    assert.equal(answer.code, 0);
    assert.match(answer.stdout, /REFUND-LINK-1/);
    assert.equal(fs.readFileSync(target, 'utf8'), 'export PATH=$HOME/bin:$PATH\n', `a ${kind} link`);
  }
});

test('replaceFileAtomically: a hard link keeps the old text, the mode is the one asked for, a refused write leaves the file and no temporary file', () => {
  const dir = tempDir('ledger-atomic-');
  const file = path.join(dir, 'settings.json');
  const other = path.join(dir, 'other-name.json');
  fs.writeFileSync(file, '{"old":true}');
  fs.linkSync(file, other);
  replaceFileAtomically(file, '{"new":"ünï"}', { mode: 0o600 });
  assert.equal(fs.readFileSync(file, 'utf8'), '{"new":"ünï"}');
  assert.equal(fs.readFileSync(other, 'utf8'), '{"old":true}');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.throws(
    () =>
      replaceFileAtomically(file, 'never', {
        beforeRename() {
          throw new Error('refused');
        },
      }),
    /refused/,
  );
  assert.equal(fs.readFileSync(file, 'utf8'), '{"new":"ünï"}');
  assert.deepEqual(listed(dir), ['other-name.json', 'settings.json']);
  replaceFileAtomically(file, '');
  assert.equal(fs.readFileSync(file, 'utf8'), '', 'empty content is a file, not a missing one');
});
