/**
 * Two clones of one repository share a ledger through its Markdown mirror, with a bare
 * repository in a temporary folder as the remote and the real CLI in each clone: nothing is
 * run by hand between `git pull` and `build`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { type ArtifactJson, cli, jsonOf } from '../helpers';
import { tempDir } from './shared';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** git pull that may stop on a conflict (exit 1): the conflict is what the test is about. */
function pull(cwd: string): void {
  try {
    git(cwd, ['pull', '--no-rebase', '-q']);
  } catch (error) {
    assert.match(String((error as { stdout?: string }).stdout) + String((error as { stderr?: string }).stderr), /CONFLICT/);
  }
}

function clone(remote: string, into: string, name: string): { dir: string; run: (args: string[]) => ReturnType<typeof cli> } {
  git(path.dirname(into), ['clone', '-q', remote, into]);
  git(into, ['config', 'user.name', name]);
  git(into, ['config', 'user.email', `${name.toLowerCase()}@example.com`]);
  return { dir: into, run: (args) => cli(args, { cwd: into }) };
}

function commitAll(cwd: string, message: string): void {
  git(cwd, ['add', '-A']);
  git(cwd, ['commit', '-q', '-m', message]);
}

function ok(result: ReturnType<typeof cli>): ReturnType<typeof cli> {
  assert.equal(result.code, 0, result.stderr);
  return result;
}

describe('two clones share the ledger through git', () => {
  it('A adds, edits and supersedes and pushes; B pulls and build shows it; both edit one artifact: nothing lost, the conflict shows', () => {
    const root = tempDir('ledger-git-');
    const remote = path.join(root, 'remote.git');
    git(root, ['init', '-q', '--bare', remote]);
    const a = clone(remote, path.join(root, 'a'), 'Alice');
    ok(a.run(['init']));
    const ignore = fs.readFileSync(path.join(a.dir, '.context-ledger', '.gitignore'), 'utf8');
    assert.match(ignore, /^!artifacts\/\*\*$/m);
    const sqlite = jsonOf<ArtifactJson>(ok(a.run(['add', '--type', 'decision', '--title', 'Use SQLite — 日本', '--body', 'One file.', '--format', 'json'])));
    assert.match(sqlite.id, /^decision-[0-9A-HJKMNP-TV-Z]{26}$/, 'a time-ordered random id');
    const note = jsonOf<ArtifactJson>(ok(a.run(['add', '--type', 'note', '--title', 'Deploy by hand', '--body', 'ssh and pray.', '--format', 'json'])));
    // Only the mirror and the folder's .gitignore are for git: the database, journal, backup, lock and state stay out.
    git(a.dir, ['add', '-A']);
    assert.deepEqual(git(a.dir, ['diff', '--cached', '--name-only']).trim().split('\n').sort(), [
      '.context-ledger/.gitignore',
      '.context-ledger/artifacts/decision/use-sqlite.md',
      '.context-ledger/artifacts/note/deploy-by-hand.md',
    ]);
    commitAll(a.dir, 'knowledge');
    git(a.dir, ['push', '-q', 'origin', 'HEAD']);

    // B clones: the first build makes the ledger from the mirror, with nothing else run.
    const b = clone(remote, path.join(root, 'b'), 'Bob');
    assert.ok(!fs.existsSync(path.join(b.dir, '.context-ledger', 'ledger.db')));
    const first = ok(b.run(['build', '--task-title', 'sqlite file', '--budget', '2000']));
    assert.match(first.stdout, /One file\./);
    assert.match(first.stderr, /building the ledger's index from its artifact files/);
    assert.equal(git(b.dir, ['status', '--porcelain']), '', 'building from the mirror leaves the clone clean');

    // A edits and supersedes, and pushes.
    ok(a.run(['update', sqlite.id, '--body', 'One file, no server.']));
    ok(a.run(['supersede', note.id, '--type', 'note', '--title', 'Deploy with the pipeline', '--body', 'Merge to main deploys.']));
    commitAll(a.dir, 'edits');
    git(a.dir, ['push', '-q']);

    // B pulls, and build sees all of it.
    pull(b.dir);
    const second = ok(b.run(['build', '--task-title', 'deploy sqlite', '--budget', '2000']));
    assert.match(second.stdout, /One file, no server\./);
    assert.match(second.stdout, /Merge to main deploys\./);
    assert.doesNotMatch(second.stdout, /ssh and pray/, 'the superseded note is out');
    const history = jsonOf<ArtifactJson[]>(ok(b.run(['history', sqlite.id, '--format', 'json'])));
    assert.deepEqual(history.map((v) => [v.version, v.body]), [[1, 'One file.'], [2, 'One file, no server.']]);
    assert.equal(history[1]!.author, 'Alice <alice@example.com>', 'a pulled version carries its git author');
    assert.equal(git(b.dir, ['status', '--porcelain']), '', 'a pull followed by build leaves the clone clean');

    // Both edit the same artifact; A pushes first, B commits and pulls: git stops on the mirror file.
    ok(a.run(['update', sqlite.id, '--body', 'Alice: SQLite with WAL.']));
    commitAll(a.dir, 'alice');
    git(a.dir, ['push', '-q']);
    ok(b.run(['update', sqlite.id, '--body', 'Bob: SQLite, one writer.']));
    commitAll(b.dir, 'bob');
    pull(b.dir);
    const marked = b.run(['build', '--task-title', 'sqlite', '--budget', '2000']);
    assert.equal(marked.code, 0, 'a conflict does not stop a build');
    assert.match(marked.stdout, /Bob: SQLite, one writer\./, 'the ledger keeps its own version meanwhile');
    assert.match(marked.stderr, /CONFLICT decision\/use-sqlite\.md: git left conflict markers/);
    const listed = b.run(['resolve', '--format', 'json']);
    assert.deepEqual(jsonOf<{ chainId: string; kind: string }[]>(listed).map((c) => [c.chainId, c.kind]), [[sqlite.id, 'markers']]);

    // B keeps theirs: both sides are versions, the file is clean, and once pushed A has B's resolution too.
    ok(b.run(['resolve', sqlite.id, '--keep', 'mine']));
    const bodies = jsonOf<ArtifactJson[]>(ok(b.run(['history', sqlite.id, '--format', 'json']))).map((v) => v.body);
    assert.ok(bodies.includes('Alice: SQLite with WAL.') && bodies.includes('Bob: SQLite, one writer.'), bodies.join(' | '));
    assert.equal(bodies.at(-1), 'Bob: SQLite, one writer.');
    commitAll(b.dir, 'merge');
    git(b.dir, ['push', '-q']);
    pull(a.dir);
    const onA = ok(a.run(['build', '--task-title', 'sqlite', '--budget', '2000']));
    assert.match(onA.stdout, /Bob: SQLite, one writer\./);
    const aBodies = jsonOf<ArtifactJson[]>(ok(a.run(['history', sqlite.id, '--format', 'json']))).map((v) => v.body);
    assert.ok(aBodies.includes('Alice: SQLite with WAL.'), 'A still has its own version');
    assert.equal(git(a.dir, ['status', '--porcelain']), '');
  });

  it('two clones adding at the same moment make different ids, and both artifacts survive the merge', () => {
    const root = tempDir('ledger-git-');
    const remote = path.join(root, 'remote.git');
    git(root, ['init', '-q', '--bare', remote]);
    const a = clone(remote, path.join(root, 'a'), 'Alice');
    ok(a.run(['init']));
    commitAll(a.dir, 'init');
    git(a.dir, ['push', '-q', 'origin', 'HEAD']);
    const b = clone(remote, path.join(root, 'b'), 'Bob');
    const same = ['add', '--type', 'learning', '--title', 'Same title', '--body', 'x', '--format', 'json'];
    const [fromA, fromB] = [jsonOf<ArtifactJson>(ok(a.run([...same]))), jsonOf<ArtifactJson>(ok(b.run([...same])))];
    assert.notEqual(fromA.id, fromB.id);
    commitAll(a.dir, 'a');
    git(a.dir, ['push', '-q']);
    commitAll(b.dir, 'b');
    // Same title, same file name: git sees one file added twice and stops on it.
    pull(b.dir);
    assert.match(b.run(['list']).stderr, /CONFLICT learning\/same-title\.md/);
    ok(b.run(['resolve', fromB.id, '--keep', 'mine']));
    const ids = jsonOf<ArtifactJson[]>(ok(b.run(['list', '--format', 'json']))).map((v) => v.id).sort();
    assert.deepEqual(ids, [fromA.id, fromB.id].sort(), 'two artifacts, both kept');
    assert.equal(fs.readdirSync(path.join(b.dir, '.context-ledger', 'artifacts', 'learning')).length, 2);
  });
});
