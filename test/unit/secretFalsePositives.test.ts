/**
 * The redactor on real knowledge files: every AGENTS.md, CLAUDE.md, Cursor and Copilot rule
 * file and ADR of the benchmark repositories (../shared/realbench/repos and bench/devset/repos,
 * 388 files from 14 public projects). None holds a real secret, so every masked span is a false
 * positive that would cut a rule an agent needs (trigger.dev's `accessToken: publicAccessToken`
 * once lost its value; cline's `https://x-access-token:...@github.com` its host). The allowed
 * list below is empty; a span added to it must say why it is right to mask.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { redactSecrets } from '../../src/core/assemble';
import { ROOT } from './helpers';

/**
 * `../shared` beside the clone (as CI has it); a helper's worktree one level deeper
 * (`<work>/wt/<name>`) finds the same folder two levels up.
 */
const REALBENCH = [path.join(ROOT, '..', 'shared', 'realbench', 'repos'), path.join(ROOT, '..', '..', 'shared', 'realbench', 'repos')].find((dir) => fs.existsSync(dir));
const DEVSET = path.join(ROOT, 'bench', 'devset', 'repos');

/** Masked spans that are right to mask although the file is public: `<file>: <line as masked>` → why. */
const JUSTIFIED: Record<string, string> = {};

function knowledgeFiles(root: string): string[] {
  const out: string[] = [];
  for (const repo of fs.readdirSync(root)) {
    const files = path.join(root, repo, 'files');
    if (!fs.existsSync(files)) continue;
    for (const name of fs.readdirSync(files, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(files, name);
      if (fs.statSync(file).isFile()) out.push(file);
    }
  }
  return out.sort();
}

describe('no false positives on the real knowledge files', () => {
  test('the benchmark repositories are there (CI has ../shared beside the clone)', () => {
    assert.ok(REALBENCH, `no realbench repositories at ${path.join(ROOT, '..', 'shared', 'realbench', 'repos')}`);
  });

  for (const [name, root] of [
    ['realbench', REALBENCH],
    ['devset', DEVSET],
  ] as const) {
    test(`${name}: no span masked that is not a secret`, { skip: !root && 'see the test above' }, () => {
      const files = knowledgeFiles(root!);
      assert.ok(files.length > 100, `${files.length} files`);
      const masked: string[] = [];
      for (const file of files) {
        const { text, count } = redactSecrets(fs.readFileSync(file, 'utf8'));
        if (count === 0) continue;
        const relative = path.relative(root!, file);
        for (const line of text.split('\n').filter((l) => l.includes('[REDACTED:'))) {
          const key = `${relative}: ${line.trim()}`;
          if (!JUSTIFIED[key]) masked.push(key);
        }
      }
      assert.deepEqual(masked, []);
    });
  }

  test('the rules #40 found masked keep their text: trigger.dev accessToken, a placeholder token URL', () => {
    const trigger = fs.readFileSync(path.join(DEVSET, 'triggerdotdev-trigger.dev', 'files', '.cursor', 'rules', 'writing-tasks.mdc'), 'utf8');
    assert.match(trigger, /accessToken: publicAccessToken/);
    assert.equal(redactSecrets(trigger).text, trigger);
    const url = 'git remote set-url origin https://x-access-token:...@github.com/cline/cline.git';
    assert.equal(redactSecrets(url).text, url);
  });
});
