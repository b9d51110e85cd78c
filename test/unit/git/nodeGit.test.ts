import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { branchFiles, gitCommits, gitHead, staleFlagsFor } from '../../../src/node/git';
import { cli, jsonOf, tempDir } from '../helpers';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** A repository on main with one commit, then a feature branch. */
function repo(): string {
  const root = tempDir('ledger-git-');
  dirs.push(root);
  git(root, 'init', '-q', '-b', 'main');
  write(root, 'src/payments/webhooks.ts', 'export const a = 1;\n');
  write(root, 'src/search/index.ts', 'export const s = 1;\n');
  write(root, 'README.md', '# Shop\n');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'Initial shop');
  return root;
}

describe('git from Node (real repositories)', () => {
  test('HEAD and branch; a folder that is no repository gives undefined; a repository without commits gives no HEAD', async () => {
    const root = repo();
    const head = await gitHead(root);
    assert.equal(head?.head, git(root, 'rev-parse', 'HEAD').trim());
    assert.equal(head?.branch, 'main');
    git(root, 'checkout', '-q', '--detach');
    assert.equal((await gitHead(root))?.branch, undefined, 'detached');

    const plain = tempDir('ledger-nogit-');
    dirs.push(plain);
    assert.equal(await gitHead(plain), undefined);
    assert.deepEqual(await gitCommits(plain), []);
    assert.deepEqual(await branchFiles(plain), []);

    const empty = tempDir('ledger-emptygit-');
    dirs.push(empty);
    git(empty, 'init', '-q');
    assert.deepEqual(await gitHead(empty), {});
    assert.deepEqual(await gitCommits(empty), []);
  });

  test('commits in a range, with the files each touched, non-ASCII names unquoted; a range that is not two hashes is refused', async () => {
    const root = repo();
    const before = git(root, 'rev-parse', 'HEAD').trim();
    write(root, 'src/payments/wébhooks-重试.ts', 'export const r = 2;\n');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'Retry webhooks — 重试');
    write(root, 'README.md', '# Shop\n\nMore.\n');
    git(root, 'commit', '-q', '-am', 'Docs');
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const commits = await gitCommits(root, { range: `${before}..${head}` });
    assert.deepEqual(commits.map((c) => c.subject), ['Docs', 'Retry webhooks — 重试']);
    assert.deepEqual(commits[1]!.files, ['src/payments/wébhooks-重试.ts']);
    assert.match(commits[0]!.date ?? '', /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(await gitCommits(root, { range: '--output=/tmp/x' }), []);
    assert.deepEqual(await gitCommits(root, { range: 'HEAD~1..HEAD' }), [], 'only hashes read from git itself');
  });

  test('a workspace folder inside a repository sees its own files, relative to itself', async () => {
    const root = repo();
    write(root, 'app/src/a.ts', 'a\n');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'App');
    const app = path.join(root, 'app');
    const commits = await gitCommits(app);
    assert.deepEqual(commits.map((c) => c.subject), ['App'], 'commits touching only other folders are left out');
    assert.deepEqual(commits[0]!.files, ['src/a.ts']);
  });

  test('branch files: committed since main, staged, unstaged and new; deleted ones left out; committedOnly leaves the uncommitted out', async () => {
    const root = repo();
    git(root, 'checkout', '-q', '-b', 'fix/retries');
    write(root, 'src/payments/webhooks.ts', 'export const a = 2;\n');
    git(root, 'commit', '-q', '-am', 'Handle retries');
    git(root, 'rm', '-q', 'src/search/index.ts');
    write(root, 'README.md', '# Shop!\n');
    write(root, 'notes/new.md', 'new\n');
    assert.deepEqual(await branchFiles(root), ['README.md', 'notes/new.md', 'src/payments/webhooks.ts']);
    assert.deepEqual(await branchFiles(root, { committedOnly: true }), ['src/payments/webhooks.ts']);
  });

  test('stale flags: a module memory older than a commit on its paths is flagged, a newer one is not', async () => {
    const root = repo();
    const old = { id: 'm-old', updatedAt: '2000-01-01T00:00:00.000Z' };
    const fresh = { id: 'm-new', updatedAt: '2999-01-01T00:00:00.000Z' };
    const base = { type: 'module_memory' as const, status: 'active' as const, paths: ['src/payments/**'] };
    const flags = await staleFlagsFor(root, [{ ...base, ...old }, { ...base, ...fresh }] as never);
    assert.deepEqual([...flags.keys()], ['m-old']);
    assert.deepEqual(flags.get('m-old')!.commits[0]!.files, ['src/payments/webhooks.ts']);
  });
});

describe('context-ledger explain with git', () => {
  test('flags a module memory whose paths changed in a commit after its update, in the text and the JSON', async () => {
    const root = repo();
    assert.equal(cli(['init'], { cwd: root }).code, 0);
    const added = cli(['add', '--type', 'module_memory', '--scope', 'path', '--path', 'src/payments/**', '--title', 'Payments webhooks — 決済', '--body', 'Idempotent by event id.'], { cwd: root });
    assert.equal(added.code, 0, added.stderr);
    // Committer dates have whole seconds: make sure the commit is later than the update.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    write(root, 'src/payments/webhooks.ts', 'export const a = 3;\n');
    git(root, 'commit', '-q', '-am', 'Make webhooks async');
    const explain = cli(['explain', '--no-log', '--path', 'src/payments/webhooks.ts'], { cwd: root });
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /POSSIBLY STALE Payments webhooks — 決済/);
    assert.match(explain.stdout, /src\/payments\/webhooks\.ts changed in 1 commit since its last update/);
    assert.match(explain.stdout, /"Make webhooks async"/);
    const json = jsonOf<{ items: Array<{ title: string; stale?: { commits: Array<{ subject: string }> } }> }>(
      cli(['build', '--no-log', '--format', 'json', '--path', 'src/payments/webhooks.ts'], { cwd: root }),
    );
    assert.equal(json.items[0]?.stale?.commits[0]?.subject, 'Make webhooks async');

    // Updating the memory clears the flag.
    const id = jsonOf<Array<{ id: string }>>(cli(['list', '--format', 'json'], { cwd: root }))[0]!.id;
    assert.equal(cli(['update', id, '--body', 'Async now; idempotent by event id.'], { cwd: root }).code, 0);
    assert.doesNotMatch(cli(['explain', '--no-log', '--path', 'src/payments/webhooks.ts'], { cwd: root }).stdout, /STALE/);
  });

  test('outside a git repository explain works and flags nothing', () => {
    const root = tempDir('ledger-nogit-cli-');
    dirs.push(root);
    assert.equal(cli(['init'], { cwd: root }).code, 0);
    assert.equal(cli(['add', '--type', 'module_memory', '--scope', 'path', '--path', 'src/**', '--title', 'M', '--body', 'b'], { cwd: root }).code, 0);
    const explain = cli(['explain', '--no-log', '--path', 'src/a.ts'], { cwd: root });
    assert.equal(explain.code, 0, explain.stderr);
    assert.doesNotMatch(explain.stdout, /STALE/);
  });
});
