import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readWorkspaceSetting } from '../../../src/node/workspaceSettings';
import { tempDir } from '../helpers';

test('a workspace setting from .vscode/settings.json: comments and trailing commas as VS Code allows; missing, malformed, huge or non-object files read as unset', () => {
  const root = tempDir('ledger-settings-');
  try {
    const file = path.join(root, '.vscode', 'settings.json');
    assert.equal(readWorkspaceSetting(root, 'contextLedger.agent.unreviewed'), undefined, 'no file');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '\uFEFF{\n  /* team policy */\n  "contextLedger.agent.unreviewed": "hold", // reviewed only\n  "editor.tabSize": 2,\n}\n');
    assert.equal(readWorkspaceSetting(root, 'contextLedger.agent.unreviewed'), 'hold');
    assert.equal(readWorkspaceSetting(root, 'toString'), undefined, 'inherited names are not settings');
    for (const bad of ['{ "contextLedger.agent.unreviewed": "hold"', '["hold"]', 'null', '', '\u0000\u0001']) {
      fs.writeFileSync(file, bad);
      assert.equal(readWorkspaceSetting(root, 'contextLedger.agent.unreviewed'), undefined, JSON.stringify(bad));
    }
    fs.writeFileSync(file, `{"contextLedger.agent.unreviewed": "hold", "x": "${'y'.repeat(1_100_000)}"}`);
    assert.equal(readWorkspaceSetting(root, 'contextLedger.agent.unreviewed'), undefined, 'over 1 MB is not read');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
