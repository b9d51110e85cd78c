/**
 * What a clean clone gets: CI and every new contributor start from `git clone`, so a link
 * committed by accident (a worktree's shortcut to another checkout's tool cache, say) breaks
 * them while every existing checkout stays green. The fixtures do commit links on purpose
 * (agent tools' CLAUDE.md -> AGENTS.md), and those must stay inside the repository.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers';

function git(...args: string[]): string {
  const run = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, `git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

test('every committed link is relative and points inside the repository', () => {
  const links = git('ls-files', '-s')
    .split('\n')
    .filter((line) => line.startsWith('120000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
  const bad: string[] = [];
  for (const link of links) {
    const target = git('cat-file', 'blob', `HEAD:${link}`).trim();
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(link), target));
    if (path.posix.isAbsolute(target) || resolved === '..' || resolved.startsWith('../')) {
      bad.push(`${link} -> ${target}`);
    }
  }
  assert.deepEqual(bad, [], 'links a clean clone cannot follow (git rm --cached them)');
});

test('the tool caches the test scripts fill are never committed, as folders or as links', () => {
  const tracked = git('ls-files', '--', '.agents-test', '.conformance-test', '.vscode-test', 'node_modules');
  assert.equal(tracked, '');
});
