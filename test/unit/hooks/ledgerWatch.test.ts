/**
 * The hook server's watch (src/node/hooks/ledgerWatch.ts) on real folders: it must say
 * "changed" for every change a ledger session follows — else a hook would answer from a stale
 * index — and stay quiet for the hooks' own writes, else every hook would pay a full refresh.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { watchLedger } from '../../../src/node/hooks/ledgerWatch';
import { tempDir } from '../helpers';

const settle = (ms = 300): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function seesChange(watch: { changed: boolean }, what: string): Promise<void> {
  for (let i = 0; i < 50 && !watch.changed; i++) await settle(100);
  assert.ok(watch.changed, what);
}

function workspace(): { dir: string; ledger: string } {
  const dir = tempDir('ledger-watch-');
  const ledger = path.join(dir, '.context-ledger');
  fs.mkdirSync(path.join(ledger, 'artifacts', 'decision'), { recursive: true });
  fs.mkdirSync(path.join(ledger, 'hooks', 'sessions'), { recursive: true });
  fs.mkdirSync(path.join(dir, '.cursor', 'rules'), { recursive: true });
  fs.writeFileSync(path.join(ledger, 'ledger.db'), 'db');
  fs.writeFileSync(path.join(ledger, 'artifacts', 'decision', 'refunds-ünï.md'), '# Refunds\n');
  fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Agents\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# Readme\n');
  fs.writeFileSync(path.join(dir, '.cursor', 'rules', 'payments.mdc'), 'rule\n');
  return { dir, ledger };
}

test('the watch sees the ledger’s files and the knowledge files change, and not the hooks’ own writes', async (t) => {
  const { dir, ledger } = workspace();
  let calls = 0;
  const watch = watchLedger(dir, ledger, ['AGENTS.md', '.cursor/rules/payments.mdc'], () => calls++);
  t.after(() => watch.close());
  assert.ok(watch.changed, 'nothing is known before the first refresh');
  watch.markClean();
  await settle();
  assert.equal(watch.changed, false);

  fs.appendFileSync(path.join(ledger, 'hooks', 'log.jsonl'), '{}\n');
  fs.writeFileSync(path.join(ledger, 'hooks', 'sessions', 'claude-code-1.json'), '{}');
  fs.appendFileSync(path.join(dir, 'README.md'), 'an edit the agent made\n');
  await settle();
  assert.equal(watch.changed, false, 'the hook log, the session files and a file the ledger does not follow are no change');
  assert.equal(calls, 0);

  const cases: Array<[string, () => void]> = [
    ['a teammate’s pull changed an artifact file', () => fs.appendFileSync(path.join(ledger, 'artifacts', 'decision', 'refunds-ünï.md'), 'more\n')],
    ['another process wrote the database', () => fs.writeFileSync(path.join(ledger, 'ledger.db'), 'db2')],
    ['a followed knowledge file changed', () => fs.appendFileSync(path.join(dir, 'AGENTS.md'), 'a new rule\n')],
    ['a rule file appeared beside a followed one', () => fs.writeFileSync(path.join(dir, '.cursor', 'rules', 'new.mdc'), 'rule\n')],
    ['an artifact file was deleted', () => fs.rmSync(path.join(ledger, 'artifacts', 'decision', 'refunds-ünï.md'))],
  ];
  for (const [what, change] of cases) {
    watch.markClean();
    change();
    await seesChange(watch, what);
  }
  assert.ok(calls > 0, 'each change is announced (the server reads it in before the next hook)');
});

test('a folder that appears under the artifacts is watched after the next refresh; the knowledge files can change', async (t) => {
  const { dir, ledger } = workspace();
  const watch = watchLedger(dir, ledger, ['AGENTS.md']);
  t.after(() => watch.close());
  watch.markClean();
  fs.mkdirSync(path.join(ledger, 'artifacts', 'learning'));
  await seesChange(watch, 'a new folder under the artifacts');
  watch.rewatch();
  watch.markClean();
  fs.writeFileSync(path.join(ledger, 'artifacts', 'learning', 'retry.md'), '# Retry\n');
  await seesChange(watch, 'a file in the new folder');

  watch.rewatch(['.cursor/rules/payments.mdc']);
  watch.markClean();
  fs.appendFileSync(path.join(dir, '.cursor', 'rules', 'payments.mdc'), 'more\n');
  await seesChange(watch, 'a file followed since the rewatch');
});

test('a ledger folder that cannot be watched makes every look a change', (t) => {
  const dir = tempDir('ledger-watch-none-');
  const watch = watchLedger(dir, path.join(dir, '.context-ledger'), []);
  t.after(() => watch.close());
  watch.markClean();
  assert.ok(watch.changed, 'no watch: the session’s own check decides every time');
});

test('the watch names the files that changed, and names none after a folder came (the next refresh lists them all)', async (t) => {
  const { dir, ledger } = workspace();
  const watch = watchLedger(dir, ledger, []);
  t.after(() => watch.close());
  assert.equal(watch.changedFiles, undefined, 'nothing named before the first refresh: it lists every file');
  watch.markClean();
  await settle();
  const file = path.join(ledger, 'artifacts', 'decision', 'refunds-ünï.md');
  fs.appendFileSync(file, 'more\n');
  await seesChange(watch, 'an artifact file changed');
  const named: ReadonlySet<string> | undefined = (watch as { changedFiles: ReadonlySet<string> | undefined }).changedFiles;
  assert.ok(named?.has(file), 'the changed file is named');

  watch.markClean();
  fs.mkdirSync(path.join(ledger, 'artifacts', 'learning'));
  await seesChange(watch, 'a new folder');
  watch.rewatch();
  assert.equal(watch.changedFiles, undefined, 'a folder came: files written in it before its watch are named by no event');
});
