/**
 * The third development set (bench/devset) is data a ranking change is judged on: a task
 * without grades, a grade for a unit that no longer exists, or a grade 1/2 without its reason
 * would silently skew every figure measured on it. Units are made by the realbench harness's
 * own splitter (../shared/realbench), as `bench/devset/run.mjs` makes them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, tempDir } from './helpers';

const DEVSET = path.join(ROOT, 'bench', 'devset', 'repos');
const MAKE_UNITS = path.join(ROOT, '..', 'shared', 'realbench', 'make-units.mjs');

interface Task {
  id: string;
  repo: string;
  commit: string;
  title: string;
  description: string;
  paths: string[];
  now: string;
}
interface Grade {
  task: string;
  unit: string;
  grade: number;
  reason?: string;
}

function jsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

describe('the third development set', { skip: !fs.existsSync(MAKE_UNITS) && 'needs ../shared/realbench beside the project' }, () => {
  const repos = fs.readdirSync(DEVSET).filter((d) => fs.statSync(path.join(DEVSET, d)).isDirectory());

  test('each repository says where its files come from and under which licence', () => {
    assert.ok(repos.length >= 4, repos.join(' '));
    for (const repo of repos) {
      const sources = fs.readFileSync(path.join(DEVSET, repo, 'SOURCES.md'), 'utf8');
      assert.match(sources, /Commit: [0-9a-f]{40}/, `${repo}: full commit`);
      assert.match(sources, /Licen[cs]e: (MIT|Apache-2\.0)/, `${repo}: a permissive licence`);
      assert.ok(fs.existsSync(path.join(DEVSET, repo, 'files')), `${repo}: files/`);
    }
  });

  test('every task is graded against every unit of its repository, once, and every 1 or 2 says why', () => {
    const out = path.join(tempDir('devset-units-'), 'units.jsonl');
    const made = spawnSync(process.execPath, [MAKE_UNITS, '--repos', DEVSET, '--out', out], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const units = jsonl<{ id: string; repo: string }>(out);
    for (const repo of repos) {
      const tasks = jsonl<Task>(path.join(DEVSET, repo, 'tasks.jsonl'));
      const grades = jsonl<Grade>(path.join(DEVSET, repo, 'qrels.jsonl'));
      const unitIds = units.filter((u) => u.repo === repo).map((u) => u.id).sort();
      assert.ok(unitIds.length > 0, `${repo}: units`);
      assert.equal(tasks.length, 5, `${repo}: five tasks`);
      for (const task of tasks) {
        assert.equal(task.repo, repo);
        assert.match(task.commit, /^[0-9a-f]{40}$/, task.id);
        assert.ok(task.title.trim() !== '' && task.description.trim() !== '', task.id);
        assert.ok(task.paths.length >= 1 && task.paths.length <= 3, `${task.id}: 1-3 changed paths`);
        assert.ok(!Number.isNaN(Date.parse(task.now)), `${task.id}: now`);
        const mine = grades.filter((g) => g.task === task.id);
        assert.deepEqual(mine.map((g) => g.unit).sort(), unitIds, `${task.id}: one grade per unit`);
        for (const g of mine) {
          assert.ok([0, 1, 2].includes(g.grade), `${task.id} ${g.unit}: grade ${g.grade}`);
          if (g.grade > 0) assert.ok((g.reason ?? '').trim() !== '', `${task.id} ${g.unit}: a reason for grade ${g.grade}`);
        }
        assert.ok(mine.some((g) => g.grade > 0), `${task.id}: something to find`);
      }
      assert.equal(grades.length, tasks.length * unitIds.length, `${repo}: no grade for another repository's task`);
    }
  });
});
