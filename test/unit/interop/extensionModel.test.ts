import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { INTEROP_COMMANDS, TRUSTED_ONLY } from '../../../src/extension/interop/ids';
import { RULE_FILE_BUDGET } from '../../../src/core/formats/ruleExport';
import { readConfig } from '../../../src/extension/configModel';
import { renderInstructionsFile } from '../../../src/extension/instructionsFile';
import { dryRunSummary, importedMessage, mergeParsed, nothingNewMessage, plannedLine, totalsLine, totalsOf } from '../../../src/extension/interop/model';
import { applyImport, parseImportSources, previewImport, scanImportSources } from '../../../src/node/folderImport';
import { contributedSettings, memoryStore, ROOT } from '../helpers';
import { tempDir } from './shared';

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported: unknown; restrictedConfigurations?: string[] } };
  contributes: {
    commands: Array<{ command: string; title: string; category: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;

function workspaceWith(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('interop in the editor: manifest and what the commands say', () => {
  test('package.json contributes every interop command; import/export/sync are off in Restricted Mode', () => {
    for (const id of Object.values(INTEROP_COMMANDS)) {
      const command = manifest.contributes.commands.find((c) => c.command === id);
      assert.ok(command, `${id} is contributed`);
      assert.equal(command.category, 'Context Ledger');
    }
    assert.equal(manifest.capabilities?.untrustedWorkspaces?.supported, 'limited');
    assert.ok(manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations?.includes('contextLedger.databasePath'));
    for (const id of TRUSTED_ONLY) {
      const inViews = manifest.contributes.menus['view/title']!.filter((m) => m.command === id);
      assert.ok(inViews.length > 0, `${id} is in the Artifacts view menu`);
      for (const entry of inViews) assert.match(entry.when ?? '', /isWorkspaceTrusted/, `${id} is hidden when untrusted`);
    }
  });

  test('the per-file budget of Export to Agent Rules is a setting with the CLI --budget bounds; bad values fall back or are clamped', () => {
    const setting = contributedSettings<{ type: string; default?: unknown; minimum?: number; maximum?: number }>()['contextLedger.export.ruleFileBudget'];
    assert.ok(setting, 'contributed');
    assert.deepEqual([setting.type, setting.default, setting.minimum, setting.maximum], ['integer', RULE_FILE_BUDGET.default, RULE_FILE_BUDGET.min, RULE_FILE_BUDGET.max]);
    const budget = (value: unknown): number => readConfig((name) => (name === 'export.ruleFileBudget' ? value : undefined)).ruleFileBudget;
    assert.equal(budget(undefined), 4000);
    assert.equal(budget(600), 600);
    assert.equal(budget(12.6), 100, 'below the minimum: the minimum');
    assert.equal(budget(2500.4), 2500);
    assert.equal(budget(5e9), 1_000_000);
    assert.equal(budget('300'), 4000, 'a string (hand-edited settings.json) is not a number');
    assert.equal(budget(Number.NaN), 4000);
  });

  test('a dry run counts what would change without touching the ledger; a folder inside the workspace counts once', async () => {
    const ws = workspaceWith({
      'docs/adr/0001-one.md': '# 1. Use one thing\n\n## Status\n\nAccepted\n\n## Decision\n\nOne — ünïcode.\n',
      'AGENTS.md': '# Agents\n\n## Build\n\nRun `npm test`.\n',
      'docs/adr/0002-bin.md': '\u0000\u0001binary',
      // What auto-inject writes: the ledger's own output is never imported back.
      '.github/instructions/context-ledger.instructions.md': renderInstructionsFile('## Decisions\n\nUse one thing.', { paths: ['src/a.ts'], tokensUsed: 9, budget: 8000 }),
    });
    const scan = scanImportSources(ws, ws);
    assert.deepEqual(
      scan.detected.map((d) => d.format),
      ['adr', 'copilot', 'agents-md'],
    );
    const store = await memoryStore();
    const parsed = parseImportSources(scan);
    const preview = await previewImport(store, parsed);
    assert.equal(store.latestArtifacts().length, 0, 'the dry run left the store empty');
    // The preview says what the import WILL do, names the entries by title and the skipped files with why.
    const summary = dryRunSummary(preview);
    assert.match(summary, /^ADR folder \(2 files\): will add 1 and skip 1 file$/m);
    assert.match(summary, /^ {2}\+ ADR-0001: Use one thing$/m);
    assert.match(summary, /^ {2}× docs\/adr\/0002-bin\.md: binary file/m);
    assert.match(summary, /^AGENTS\.md \(1 file\): will add 1$/m);
    assert.match(summary, /^Copilot instructions \(1 file\): will skip 1 file$/m);
    assert.doesNotMatch(summary, /^\S.*\b(added|updated|imported)\b/m, 'no format line in the past tense before the import');
    assert.equal(plannedLine(totalsOf(preview)), 'it will add 2 and skip 2 files');
    assert.match(parsed.get('copilot')!.result.skipped[0]!.reason, /generated by Context Ledger/);

    // The same ADR folder picked again by dialog: its files are not imported twice.
    const both = mergeParsed(parsed, parseImportSources(scanImportSources(ws, path.join(ws, 'docs', 'adr'), 'adr')));
    const applied = applyImport(store, both);
    assert.equal(totalsLine(totalsOf(applied)), '2 added, 0 updated, 0 unchanged, 3 skipped');
    // The result names only the formats it took something from: not the Copilot file it skipped.
    assert.equal(importedMessage('ws', applied), 'Context Ledger: added 2 in the ledger of ws from ADR folder and AGENTS.md; 3 files skipped.');
    const again = await previewImport(store, parsed);
    assert.equal(totalsLine(totalsOf(again)), '0 added, 0 updated, 2 unchanged, 2 skipped');
    assert.equal(nothingNewMessage(totalsOf(again)), 'Context Ledger: nothing new to import — 2 already in the ledger, unchanged; 2 files skipped.');
  });
});
