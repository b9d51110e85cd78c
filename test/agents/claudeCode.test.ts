/**
 * The harness's own proof, and the native baseline the ledger's hooks are measured against: the
 * real Claude Code, run against the scripted model, sends the project's CLAUDE.md in its first
 * request, performs a scripted Write, and reports the result in its next request.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { createWorkspace, requestText, runClaude, startScriptedModel } from './harness';

const RULE = 'Always name Zürich test fixtures after rivers — 日本語 is fine in comments.';

test('Claude Code sends the project CLAUDE.md in its first request and carries out a scripted Write', async () => {
  const ws = createWorkspace({ files: { 'CLAUDE.md': `# Project rules\n\n${RULE}\n`, 'src/app.ts': 'export {};\n' } });
  const target = path.join(ws.dir, 'src', 'notes.md');
  const model = await startScriptedModel([{ write: { file_path: target, content: 'Notes — ünïcode\n' } }, { text: 'Wrote the notes.' }]);
  try {
    const run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Write the notes for the app.' });
    assert.equal(run.code, 0, `claude failed: ${run.stderr}`);
    assert.equal(run.stdout.trim(), 'Wrote the notes.');
    const [first, second, ...rest] = model.mainRequests();
    assert.equal(rest.length, 0, 'two turns of the script, two main-loop requests');
    assert.ok(first && second);
    const firstText = requestText(first);
    assert.ok(firstText.includes(RULE), 'the CLAUDE.md rule reaches the model whole, non-ASCII intact');
    assert.ok(firstText.includes('Write the notes for the app.'), 'the prompt is in the first request');
    assert.equal(fs.readFileSync(target, 'utf8'), 'Notes — ünïcode\n', 'the agent performed the scripted write');
    assert.match(requestText(second), /File created successfully/, 'the next request carries the tool result');
  } finally {
    await model.close();
    ws.dispose();
  }
});

test('without a CLAUDE.md nothing of it reaches the model, and the user HOME is left alone', async () => {
  const ws = createWorkspace({ files: { 'README.md': '# App\n' } });
  const model = await startScriptedModel([{ text: 'Nothing to do.' }]);
  try {
    const run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Say hello.' });
    assert.equal(run.code, 0, `claude failed: ${run.stderr}`);
    const [first] = model.mainRequests();
    assert.ok(first);
    const text = requestText(first);
    assert.ok(!text.includes(RULE));
    assert.ok(!text.includes('project instructions, checked into the codebase'), 'no project instructions were loaded');
    assert.ok(fs.existsSync(path.join(ws.home, '.claude')) || fs.existsSync(path.join(ws.home, '.claude.json')), 'the agent kept its state in the isolated HOME');
  } finally {
    await model.close();
    ws.dispose();
  }
});
