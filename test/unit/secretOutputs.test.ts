/**
 * No planted secret leaves the ledger by any way out: build (Markdown and JSON, full
 * and squeezed budgets), explain (text and JSON), rule-file export for Copilot, Cursor
 * and AGENTS.md (bodies, titles, and the path globs that become `applyTo`, headings and file
 * names), every MCP tool's text and structured content, `resources/read` and every prompt, the
 * agent hooks' answers (session start, each prompt, before a write); in
 * bodies, titles, tags and the task title. The JSONL export (the lossless backup) and the
 * Markdown mirror (the ledger itself, shared through git) keep them, on purpose.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cli, tempDir } from './helpers';
import { SECRET_CASES } from './secretCorpus';

/** Each secret, raw and as JSON writes it (the PEM body has newlines). */
function leaks(output: string): string[] {
  return SECRET_CASES.filter((c) => output.includes(c.secret) || output.includes(JSON.stringify(c.secret).slice(1, -1))).map((c) => `${c.kind}: ${c.secret.slice(0, 12)}…`);
}

/** A GitHub token someone pasted into a path glob. */
const GLOB_SECRET = `ghp_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98'}`;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

describe('no secret leaves the ledger by any output', () => {
  const dir = tempDir('ledger-secrets-');
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  const TASK = ['--task-title', `Rotate the deploy credentials ${SECRET_CASES.find((c) => c.text.startsWith('DB_PASS'))!.text}`];
  let client: Client;

  before(async () => {
    // One reviewed, global convention per case (rule files export those): the secret in its
    // body, its title (one line) and, where short enough, a tag (60 characters at most).
    const lines = SECRET_CASES.map((c, i) =>
      JSON.stringify({
        id: `secret-${i}`,
        type: 'convention',
        title: `Deploy credentials ${i}: ${oneLine(c.text)}`.slice(0, 200),
        body: `How we deploy (credentials ${i}).\n\n${c.text}\n\nRotate every quarter.`,
        // A bare password as a tag is no pattern anything could recognise; with its name it is.
        tags: oneLine(c.text).length <= 60 ? ['deploy', oneLine(c.text)] : ['deploy'],
        source: 'human',
      }),
    );
    // A path-scoped rule whose globs hold a secret: the globs become `applyTo`, `globs:`, headings and file names.
    lines.push(
      JSON.stringify({
        id: 'secret-globs',
        type: 'convention',
        scope: 'path',
        paths: [`deploy/${GLOB_SECRET}/**`, 'ops/*.yaml'],
        title: 'Deploy folder conventions',
        body: 'Keep one folder per environment.',
        source: 'human',
      }),
    );
    fs.writeFileSync(path.join(dir, 'corpus.jsonl'), `${lines.join('\n')}\n`);
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    const imported = cli(['import', 'corpus.jsonl'], { cwd: dir });
    assert.equal(imported.code, 0, imported.stderr);
    // The secrets really are in the ledger: what follows tests the ways out, not the import.
    assert.equal(leaks(cli(['export', '--format', 'jsonl'], { cwd: dir }).stdout).length, SECRET_CASES.length);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db], cwd: dir, stderr: 'pipe' });
    client = new Client({ name: 'secret-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const budget of ['200000', '400']) {
    for (const command of ['build', 'explain']) {
      for (const format of [[], ['--format', 'json']]) {
        test(`${command} ${format.join(' ')} at a budget of ${budget}`, () => {
          const result = cli([command, '--budget', budget, ...TASK, '--no-log', ...format], { cwd: dir });
          assert.equal(result.code, 0, result.stderr);
          assert.match(result.stdout + result.stderr, /REDACTED|Deploy credentials/);
          assert.deepEqual(leaks(result.stdout + result.stderr), []);
        });
      }
    }
  }

  for (const target of ['copilot', 'cursor', 'agents']) {
    test(`export --to ${target} writes rule files with every secret masked`, () => {
      const out = path.join(dir, `rules-${target}`);
      const result = cli(['export', '--to', target, '--out', out, '--budget', '100000'], { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      const files = fs.readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(out, f)).isFile());
      assert.ok(files.length > 0);
      const written = files.map((f) => fs.readFileSync(path.join(out, f), 'utf8')).join('\n');
      for (let i = 0; i < SECRET_CASES.length; i++) assert.ok(written.includes(`credentials ${i}`), `artifact ${i} was exported`);
      assert.match(written, /\[REDACTED:/);
      assert.deepEqual(leaks(written), []);
      // The path-scoped rule is exported, its globs masked wherever they are written.
      assert.match(written, /Keep one folder per environment/);
      assert.ok(!written.includes(GLOB_SECRET.slice(0, 12)), 'a glob\'s secret reached a rule file');
      assert.ok(!files.join('\n').toLowerCase().includes(GLOB_SECRET.slice(0, 12).toLowerCase()), `a glob's secret named a file: ${files.join(', ')}`);
    });
  }

  test('the JSONL export is the lossless backup: it keeps secrets, and says so on stderr', () => {
    const result = cli(['export', '--format', 'jsonl'], { cwd: dir });
    assert.equal(result.code, 0);
    assert.equal(leaks(result.stdout).length, SECRET_CASES.length);
    assert.match(result.stderr, /secret/i);
  });

  async function call(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    return JSON.stringify(result.content) + JSON.stringify(result.structuredContent ?? null);
  }

  test('MCP build_context, get_artifact and search_artifacts: text and structured content', async () => {
    const outputs = [
      await call('build_context', { task: TASK[1]!, budget: 100000 }),
      await call('build_context', { task: TASK[1]!, budget: 300 }),
      await call('search_artifacts', { query: 'deploy credentials', limit: 50 }),
    ];
    for (let i = 0; i < SECRET_CASES.length; i++) outputs.push(await call('get_artifact', { id: `secret-${i}` }));
    assert.ok(outputs.join('').includes('[REDACTED:'));
    assert.deepEqual(leaks(outputs.join('\n')), []);
  });

  test('MCP search_artifacts: a secret across the end of a snippet is masked before the cut, not half shown', async () => {
    // The snippet is the first 160 characters here; the token starts at 140, so a snippet
    // cut first would end in "ghp_" and 16 of its characters, which no pattern recognises.
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
    const lead = 'Zebrafinch relay: ';
    const body = `${lead}${'x'.repeat(140 - lead.length - 1)} ${token} is the relay token.`;
    assert.equal(body.indexOf(token), 140);
    assert.equal(cli(['add', '--type', 'note', '--title', 'Zebrafinch relay', '--body', body], { cwd: dir }).code, 0);
    const out = await call('search_artifacts', { query: 'zebrafinch' });
    assert.match(out, /Zebrafinch relay/);
    assert.ok(!out.includes(token.slice(0, 10)), out);
  });

  test('MCP resources/read of every artifact and every prompt', async () => {
    const outputs: string[] = [];
    for (let i = 0; i < SECRET_CASES.length; i++) outputs.push(JSON.stringify(await client.readResource({ uri: `ledger://artifact/secret-${i}` })));
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['context', 'explain', 'remember']);
    outputs.push(JSON.stringify(await client.getPrompt({ name: 'context', arguments: { task: 'deploy credentials' } })));
    outputs.push(JSON.stringify(await client.getPrompt({ name: 'explain', arguments: { task: 'deploy credentials', id: 'secret-3' } })));
    outputs.push(JSON.stringify(await client.getPrompt({ name: 'remember', arguments: { fact: 'Deploys need the credentials.' } })));
    assert.ok(outputs.join('').includes('[REDACTED:'));
    assert.deepEqual(leaks(outputs.join('\n')), []);
  });

  test('the Markdown mirror is the ledger shared through git: it keeps what was stored (see docs/storage.md)', () => {
    const result = cli(['sync'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    const mirror = path.join(dir, '.context-ledger', 'artifacts');
    const files = fs.readdirSync(mirror, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
    const written = files.map((f) => fs.readFileSync(path.join(mirror, f), 'utf8')).join('\n');
    // Masking it would make the next sync read the mask back as an edit: the key lost for good.
    assert.equal(leaks(written).length, SECRET_CASES.length);
  });

  test("the agent hooks' answers: session start, each prompt and before a write", () => {
    const hook = (event: string, payload: object): string => {
      const env = { ...process.env, HOME: path.join(dir, 'hook-home'), XDG_STATE_HOME: '', CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000', CONTEXT_LEDGER_HOOK_SERVER_IDLE_MS: '5000' };
      const r = spawnSync(process.execPath, [CLI, 'hook', event, '--agent', 'claude-code'], { cwd: dir, input: JSON.stringify({ cwd: dir, ...payload }), encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    let delivered = '';
    // A session per prompt, so each answer is the prompt's own context, not what is left of it.
    const prompts = ['Rotate the deploy credentials', ...SECRET_CASES.filter((_, i) => i % 20 === 0).map((c) => `Rotate the deploy credentials: ${c.kind}`)];
    prompts.forEach((prompt, i) => {
      delivered += hook('session-start', { session_id: `secret-${i}`, source: 'startup' });
      delivered += hook('prompt', { session_id: `secret-${i}`, prompt });
    });
    delivered += hook('pre-write', { session_id: 'secret-write', tool_name: 'Write', tool_input: { file_path: path.join(dir, 'deploy', GLOB_SECRET, 'app.yaml') } });
    assert.match(delivered, /Deploy credentials/, 'the hooks delivered the knowledge');
    assert.match(delivered, /REDACTED/);
    assert.deepEqual(leaks(delivered), []);
    assert.ok(!delivered.includes(GLOB_SECRET), 'a secret in path globs stays out of the hook answers');
  });

  test('MCP create_artifact: what an agent writes with a secret is answered masked', async () => {
    const pass = SECRET_CASES.find((c) => c.text.startsWith('SMTP_PASS'))!;
    const out = await call('create_artifact', { type: 'learning', title: `Mail relay ${pass.text}`, body: `The relay needs ${pass.text}.`, tags: [pass.text] });
    assert.ok(!out.includes(pass.secret), out);
  });
});
