/**
 * The harness's own proof, and the native baseline the ledger's hooks are measured against: each
 * real agent CLI, run against the scripted model, sends its project instruction file in its first
 * request, performs a scripted write, and reports the result in its next request.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { AgentOptions, AgentRun } from './harness';
import { createWorkspace, requestText, runClaude, runCodex, runGemini, startScriptedModel } from './harness';

const RULE = 'Always name Zürich test fixtures after rivers — 日本語 is fine in comments.';

/** Runs `agent` with `instructionFile` holding RULE and a script of one write and one answer. */
async function writeOnce(agent: (o: AgentOptions) => Promise<AgentRun>, instructionFile: string) {
  const ws = createWorkspace({ files: { [instructionFile]: `# Project rules\n\n${RULE}\n`, 'src/app.ts': 'export {};\n' } });
  const target = path.join(ws.dir, 'src', 'notes.md');
  const model = await startScriptedModel([{ write: { file_path: target, content: 'Notes — ünïcode\n' } }, { text: 'Wrote the notes.' }]);
  try {
    const run = await agent({ workspace: ws, baseUrl: model.url, prompt: 'Write the notes for the app.' });
    assert.equal(run.code, 0, `the agent failed: ${run.stderr}`);
    assert.match(run.stdout, /Wrote the notes\./);
    const main = model.mainRequests();
    assert.equal(main.length, 2, 'two turns of the script, two main-loop requests');
    const [first, second] = main.map(requestText);
    assert.ok(first!.includes(RULE), `the ${instructionFile} rule reaches the model whole, non-ASCII intact`);
    assert.ok(first!.includes('Write the notes for the app.'), 'the prompt is in the first request');
    assert.equal(fs.readFileSync(target, 'utf8'), 'Notes — ünïcode\n', 'the agent performed the scripted write');
    assert.ok(second!.startsWith(first!.slice(0, 200)), 'the next request continues the same conversation');
    assert.ok(second!.length > first!.length, 'the next request carries the tool result');
    return { second: second! };
  } finally {
    await model.close();
    ws.dispose();
  }
}

test('Claude Code sends the project CLAUDE.md in its first request and carries out a scripted Write', async () => {
  const { second } = await writeOnce(runClaude, 'CLAUDE.md');
  assert.match(second, /File created successfully/);
});

test('Codex sends the project AGENTS.md in its first request and runs a scripted shell write', async () => {
  const { second } = await writeOnce(runCodex, 'AGENTS.md');
  assert.match(second, /Process exited with code 0/);
});

test('Gemini CLI sends the project GEMINI.md in its first request and carries out a scripted write_file', async () => {
  const { second } = await writeOnce(runGemini, 'GEMINI.md');
  assert.match(second, /Successfully created and wrote to new file/);
});

test('Claude Code without a CLAUDE.md: nothing of it reaches the model, and its state stays in the isolated HOME', async () => {
  const ws = createWorkspace({ files: { 'README.md': '# App\n' } });
  const model = await startScriptedModel([{ text: 'Nothing to do.' }]);
  try {
    const run = await runClaude({ workspace: ws, baseUrl: model.url, prompt: 'Say hello.' });
    assert.equal(run.code, 0, `claude failed: ${run.stderr}`);
    const [first] = model.mainRequests();
    const text = requestText(first);
    assert.ok(text.includes('Say hello.'));
    assert.ok(!text.includes(RULE));
    assert.ok(!text.includes('project instructions, checked into the codebase'), 'no project instructions were loaded');
    assert.ok(fs.readdirSync(ws.home).some((f) => f.startsWith('.claude')), 'the agent kept its state in the isolated HOME');
  } finally {
    await model.close();
    ws.dispose();
  }
});
