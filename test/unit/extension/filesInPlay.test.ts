/**
 * What counts as a file in play (the meter, every build): the user's files on any
 * workspace scheme, never the ledger's own files or what the extension writes; and the
 * meter's tooltip says what it measures.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { meterTooltip } from '../../../src/extension/budgetMeter';
import { TrackingFilter } from '../../../src/extension/trackingFilter';

const filter = new TrackingFilter({ exclude: ['dist', '**/*.log'], ownFiles: ['.github/copilot-context.md'] });

test('a file of the workspace is in play whether it is local, remote or virtual', () => {
  for (const scheme of ['file', 'vscode-remote', 'vscode-vfs']) assert.ok(filter.accepts(scheme, 'src/app.ts'), scheme);
  assert.ok(filter.accepts('file', 'docs/überblick/日本語.md'), 'non-ASCII paths');
  for (const scheme of ['untitled', 'output', 'git', 'vscode-userdata']) assert.ok(!filter.accepts(scheme, 'src/app.ts'), scheme);
});

test("the ledger's own files and what the extension writes are never in play", () => {
  for (const own of [
    '.context-ledger/.gitignore',
    '.context-ledger/ledger.db',
    '.context-ledger/artifacts/global/adr-0001.md',
    '.context-ledger/inbox/note.md',
    '.github/copilot-context.md',
    '.github/instructions/context-ledger-global.instructions.md',
    '.github/instructions/context-ledger-src-ts-daeff6.instructions.md',
    '.cursor/rules/context-ledger-global.mdc',
  ]) {
    assert.ok(!filter.accepts('file', own), own);
  }
  // The user's own rule files beside them are theirs.
  assert.ok(filter.accepts('file', '.github/instructions/typescript.instructions.md'));
  assert.ok(filter.accepts('file', '.cursor/rules/style.mdc'));
  assert.ok(filter.accepts('file', 'src/context-ledger-client.ts'));
});

test('excluded, tooling and out-of-folder paths are not in play', () => {
  for (const p of ['dist/app.js', 'logs/run.log', 'node_modules/x/index.js', '.git/HEAD', '../outside.ts', '/etc/passwd', '']) {
    assert.ok(!filter.accepts('file', p), p);
  }
  assert.ok(!filter.accepts('file', undefined));
});

test('the meter tooltip names what it measures: the files in play, or that there are none', () => {
  const base = { used: 3112, budget: 8000, tokenizer: 'o200k_base', layers: {}, items: [], excludedForBudget: 0 };
  const some = meterTooltip({ ...base, paths: ['src/app.ts', 'src/`odd`.ts'] });
  assert.match(some, /the context for the files in play: 3,112 of 8,000 tokens/);
  assert.match(some, /Files in play: `src\/app\.ts`, `src\/odd\.ts`/);
  const none = meterTooltip({ ...base, paths: [] });
  assert.match(none, /No files in play/);
});
