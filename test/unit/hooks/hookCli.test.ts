/**
 * `context-ledger hook` and `hooks install` as the real CLI process an agent runs: every way
 * it can go wrong gives the agent nothing to trip on (exit 0, its no-op) and the user a reason
 * in the log.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT, tempDir } from '../helpers';

/** What installed hooks run: the light client, which takes the CLI's own `hook` arguments. */
const HOOK_CLIENT = path.join(ROOT, 'dist', 'hook.cjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The hook's 4 s bound is tested on its own below; elsewhere a loaded machine must not turn a
 * slow answer into no answer. A hook runs as installed hooks run it (the client, dist/hook.cjs)
 * unless a test says otherwise. The hook servers these tests start end 15 s after their last hook.
 */
function run(cwd: string, args: string[], input = '', env: Record<string, string> = {}, script = args[0] === 'hook' && /^[a-z]/.test(args[1] ?? '') ? HOOK_CLIENT : CLI): Run {
  const r = spawnSync(process.execPath, [script, ...args], { cwd, input, encoding: 'utf8', env: { ...process.env, HOME: path.join(cwd, '..', 'home'), XDG_STATE_HOME: '', CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000', CONTEXT_LEDGER_HOOK_SERVER_IDLE_MS: '15000', ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function ok(cwd: string, args: string[]): string {
  const r = run(cwd, args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A workspace with a ledger: a rule for src/payments, a global decision, a pinned rule, and an imported CLAUDE.md. */
function workspace(): string {
  const dir = path.join(tempDir('ledger-hooks-'), 'project');
  fs.mkdirSync(path.join(dir, 'src', 'payments'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'CLAUDE.md'), '# Project\n\nClaude-only rule: answer in English (marker CLAUDE-1).\n');
  ok(dir, ['init']);
  ok(dir, ['import-folder']);
  ok(dir, ['add', '--type', 'convention', '--title', 'Payment calls carry an idempotency key', '--body', 'Marker PAY-RULE-1 — für Zahlungen.', '--scope', 'path', '--path', 'src/payments/**']);
  ok(dir, ['add', '--type', 'decision', '--title', 'Refunds go back to the card within 5 days', '--body', 'Marker REFUND-DECISION-1.']);
  ok(dir, ['add', '--type', 'convention', '--title', 'Money is integer cents', '--body', 'Marker MONEY-PIN-1.', '--pinned']);
  return dir;
}

function context(stdout: string): string {
  if (stdout.trim() === '') return '';
  const output = JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string; permissionDecision?: string } };
  assert.equal(output.hookSpecificOutput.permissionDecision, undefined, 'a hook that only adds context never decides a permission');
  return output.hookSpecificOutput.additionalContext;
}

/** The newest entry of a hook run (the hook server's own lines, when it stops, are not one). */
function lastLog(cwd: string): { outcome: string; detail?: string; event: string } {
  const { entries } = JSON.parse(ok(cwd, ['hook', '--last', '5', '--format', 'json'])) as { entries: Array<{ outcome: string; detail?: string; event: string }> };
  const hooks = entries.filter((e) => e.event !== 'server');
  assert.ok(hooks.length > 0);
  return hooks[hooks.length - 1]!;
}

test('a session: the prompt gets its context, the next prompt only what is new, a write the file’s rule, compaction the rules again; CLAUDE.md never', () => {
  const dir = workspace();
  const base = { session_id: 'sess-ünï', cwd: dir };
  const start = context(run(dir, ['hook', 'session-start', '--agent', 'claude-code'], JSON.stringify({ ...base, source: 'startup' })).stdout);
  assert.match(start, /MONEY-PIN-1/, 'the pinned rule is standing knowledge');
  const prompt = context(run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ ...base, prompt: 'Refund a cancelled booking to the card' })).stdout);
  assert.match(prompt, /REFUND-DECISION-1/);
  assert.doesNotMatch(prompt, /MONEY-PIN-1/, 'given at session start already');
  assert.doesNotMatch(`${start}${prompt}`, /CLAUDE-1/, 'Claude Code loads CLAUDE.md itself');
  const again = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ ...base, prompt: 'Refund a cancelled booking to the card' }));
  assert.equal(again.code, 0);
  assert.equal(again.stdout, '', 'nothing new for the same prompt: no output at all');
  assert.equal(lastLog(dir).outcome, 'nothing');
  const write = context(run(dir, ['hook', 'pre-write', '--agent', 'claude-code'], JSON.stringify({ ...base, tool_name: 'Write', tool_input: { file_path: path.join(dir, 'src/payments/refund.ts'), content: 'x' } })).stdout);
  assert.match(write, /PAY-RULE-1 — für Zahlungen/);
  assert.match(write, /src\/payments\/refund\.ts/);
  assert.doesNotMatch(write, /REFUND-DECISION-1|MONEY-PIN-1/, 'a write hears only of its file');
  const compact = context(run(dir, ['hook', 'post-compact', '--agent', 'claude-code'], JSON.stringify({ ...base, source: 'compact' })).stdout);
  assert.match(compact, /MONEY-PIN-1/, 'the pin again after compaction');
  assert.match(compact, /PAY-RULE-1/, 'the rule of the file in play again');
  assert.doesNotMatch(compact, /REFUND-DECISION-1/, 'a decision is not a rule');
  const other = context(run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: 'another', cwd: dir, prompt: 'Refund a cancelled booking to the card' })).stdout);
  assert.match(other, /REFUND-DECISION-1/, 'another session starts from nothing');
});

test('a write outside the workspace, a hostile session id and a small budget are handled', () => {
  const dir = workspace();
  const outside = run(dir, ['hook', 'pre-write', '--agent', 'claude-code'], JSON.stringify({ session_id: 's', cwd: dir, tool_input: { file_path: '../../etc/passwd' } }));
  assert.equal(outside.code, 0);
  assert.equal(outside.stdout, '');
  assert.match(lastLog(dir).detail ?? '', /outside the workspace/);
  const hostile = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: '../../../escape', cwd: dir, prompt: 'Refund a booking' }));
  assert.equal(hostile.code, 0);
  assert.ok(!fs.existsSync(path.join(dir, '..', '..', 'escape')) && !fs.existsSync(path.join(dir, '..', 'escape.json')));
  assert.equal(fs.readdirSync(path.join(dir, '.context-ledger', 'hooks', 'sessions')).length, 1, 'one hashed session file, inside the ledger folder');
  const small = run(dir, ['hook', 'prompt', '--agent', 'claude-code', '--budget', '40'], JSON.stringify({ session_id: 't', cwd: dir, prompt: 'Refund a booking' }));
  assert.equal(small.code, 0);
  const { entries } = JSON.parse(ok(dir, ['hook', '--last', '5', '--format', 'json'])) as { entries: Array<{ tokens?: number; event: string }> };
  assert.ok((entries.filter((e) => e.event === 'prompt').at(-1)!.tokens ?? 0) <= 40);
  // --now: the time the answer is built for (reproducible benchmarks); a bad one is the agent's no-op, with the reason.
  const then = run(dir, ['hook', 'prompt', '--agent', 'claude-code', '--now', '2020-01-01T00:00:00Z'], JSON.stringify({ session_id: 'u', cwd: dir, prompt: 'Refund a booking' }));
  assert.match(context(then.stdout), /REFUND-DECISION-1/, 'knowledge newer than --now still counts (as new)');
  const bad = run(dir, ['hook', 'prompt', '--agent', 'claude-code', '--now', 'yesterday-ish'], JSON.stringify({ session_id: 'v', cwd: dir, prompt: 'Refund a booking' }));
  assert.deepEqual([bad.code, bad.stdout], [0, '']);
  assert.match(lastLog(dir).detail ?? '', /--now is not a date/);
});

test('bad payloads, no ledger, a corrupt ledger: exit 0, the agent’s no-op or the knowledge rebuilt from the files, and the reason in the log', () => {
  const dir = workspace();
  const bad = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], '{not json');
  assert.deepEqual([bad.code, bad.stdout], [0, '']);
  assert.equal(lastLog(dir).outcome, 'bad-payload');
  const gemini = run(dir, ['hook', 'prompt', '--agent', 'gemini-cli'], '[]');
  assert.equal(gemini.code, 0);
  assert.equal(gemini.stdout.trim(), '{}', 'Gemini CLI reads JSON on stdout: its no-op is {}');

  const empty = path.join(tempDir('ledger-hooks-none-'), 'project');
  fs.mkdirSync(empty);
  const none = run(empty, ['hook', 'session-start', '--agent', 'claude-code'], JSON.stringify({ session_id: 's', cwd: empty }));
  assert.deepEqual([none.code, none.stdout], [0, '']);
  assert.ok(!fs.existsSync(path.join(empty, '.context-ledger')), 'a hook creates no ledger folder where there is none');
  const log = JSON.parse(run(empty, ['hook', '--last', '1', '--format', 'json']).stdout) as { file: string; entries: Array<{ outcome: string }> };
  assert.equal(log.entries[0]!.outcome, 'no-ledger');
  assert.ok(log.file.startsWith(path.join(empty, '..', 'home')), 'logged in the user’s state folder');

  fs.writeFileSync(path.join(dir, '.context-ledger', 'ledger.db'), 'garbage, not SQLite');
  // The database is only the index of the artifact files (issue 42): the damaged one is moved aside, never
  // deleted, and the index rebuilt from the files, so the agent still gets the team's knowledge.
  const corrupt = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: 's', cwd: dir, prompt: 'Refund' }));
  assert.equal(corrupt.code, 0);
  assert.match(corrupt.stdout, /REFUND-DECISION-1/);
  assert.ok(fs.readdirSync(path.join(dir, '.context-ledger')).some((f) => f.startsWith('ledger.db.corrupt-')), 'the damaged file is kept aside');
});

test('a hook that cannot answer in time prints nothing and exits 0 at its bound, even with stdin left open', async () => {
  const dir = workspace();
  const slow = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: 's', cwd: dir, prompt: 'Refund' }), { CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '1' });
  assert.deepEqual([slow.code, slow.stdout], [0, '']);
  assert.equal(lastLog(dir).outcome, 'timeout');
  const started = Date.now();
  const child = spawn(process.execPath, [HOOK_CLIENT, 'hook', 'prompt', '--agent', 'claude-code'], { cwd: dir, env: { ...process.env, CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '500' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.destroy();
  assert.equal(code, 0);
  assert.equal(stdout, '');
  assert.ok(Date.now() - started < 5000, 'ended by its bound, not by the payload it never got');
});

test('after the first hook, the workspace’s hook server answers the next ones, and sees what changed meanwhile: a write, a pull, a knowledge file', async () => {
  const dir = workspace();
  fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Agents\n\n## Refunds\n\nRefunds are logged (marker AGENTS-REFUND-1).\n');
  ok(dir, ['import-folder']);
  let sessions = 0;
  const ask = (prompt: string) => run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: `s-${sessions++}`, cwd: dir, prompt }));
  assert.equal(ask('Refund a cancelled booking').code, 0);
  let served = false;
  for (let i = 0; i < 60 && !served; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.match(context(ask('Refund a cancelled booking').stdout), /REFUND-DECISION-1/);
    const { entries } = JSON.parse(ok(dir, ['hook', '--last', '1', '--format', 'json'])) as { entries: Array<{ server?: boolean }> };
    served = entries[0]?.server === true;
  }
  assert.ok(served, 'a later hook was answered by the hook server');
  ok(dir, ['add', '--type', 'learning', '--title', 'Refund webhooks arrive twice', '--body', 'Marker WEBHOOK-TWICE-1.']);
  assert.match(context(ask('Refund webhooks twice').stdout), /WEBHOOK-TWICE-1/, 'the server reads what another process wrote');

  // A teammate's pull changes an artifact file, and a followed knowledge file: no command in between.
  const artifacts = path.join(dir, '.context-ledger', 'artifacts');
  const decision = (fs.readdirSync(artifacts, { recursive: true }) as string[]).map((f) => path.join(artifacts, f)).find((f) => f.endsWith('.md') && fs.readFileSync(f, 'utf8').includes('REFUND-DECISION-1'));
  assert.ok(decision !== undefined, 'the decision has its artifact file');
  fs.writeFileSync(decision, fs.readFileSync(decision, 'utf8').replace('REFUND-DECISION-1', 'REFUND-DECISION-PULLED'));
  const pulled = context(ask('Refund a cancelled booking').stdout);
  assert.match(pulled, /REFUND-DECISION-PULLED/, 'the server reads in a changed artifact file before it answers');
  assert.doesNotMatch(pulled, /REFUND-DECISION-1\b/);
  fs.appendFileSync(path.join(dir, 'AGENTS.md'), '\n## Refund receipts\n\nRefund receipts are emailed in the customer’s language (marker AGENTS-RECEIPT-2).\n');
  assert.match(context(ask('Refund receipts email language').stdout), /AGENTS-RECEIPT-2/, 'and a changed knowledge file');
  const { entries } = JSON.parse(ok(dir, ['hook', '--last', '1', '--format', 'json'])) as { entries: Array<{ server?: boolean }> };
  assert.equal(entries[0]?.server, true, 'still the same warm server');
});

test('a locked ledger is still read: hooks never wait on a writer', () => {
  const dir = workspace();
  fs.writeFileSync(path.join(dir, '.context-ledger', 'ledger.db.lock'), JSON.stringify({ pid: process.pid, at: new Date().toISOString(), token: 'held' }));
  // Through the CLI's own `hook` command this time: the same answer as the client's.
  const locked = run(dir, ['hook', 'prompt', '--agent', 'claude-code'], JSON.stringify({ session_id: 's', cwd: dir, prompt: 'Refund a cancelled booking' }), {}, CLI);
  assert.equal(locked.code, 0);
  assert.match(context(locked.stdout), /REFUND-DECISION-1/);
});

test('hooks install replaces the settings file whole: its permissions stay, a hard link to it keeps the old text, no temporary file is left', () => {
  const dir = workspace();
  const folder = path.join(dir, '.gemini');
  fs.mkdirSync(folder);
  const file = path.join(folder, 'settings.json');
  fs.writeFileSync(file, '{ "apiKey": "kept-private" }\n', { mode: 0o600 });
  const elsewhere = path.join(workspace(), 'linked.json');
  fs.linkSync(file, elsewhere);
  assert.match(ok(dir, ['hooks', 'install', 'gemini-cli']), /added/);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'a private settings file stays private');
  assert.match(fs.readFileSync(file, 'utf8'), /kept-private[\s\S]*hook prompt --agent gemini-cli/);
  assert.equal(fs.readFileSync(elsewhere, 'utf8'), '{ "apiKey": "kept-private" }\n', 'written by rename, not through the hard link');
  assert.deepEqual(fs.readdirSync(folder), ['settings.json']);
});

test('hooks install writes the person’s own settings, keeps git out of them, is idempotent, refuses a broken file; uninstall leaves the user’s hooks', () => {
  const dir = workspace();
  spawnSync('git', ['init', '-q'], { cwd: dir });
  const first = ok(dir, ['hooks', 'install', 'claude-code']);
  assert.match(first, /added PreToolUse \(Write\|Edit\|MultiEdit\): .*dist\/hook\.cjs hook pre-write --agent claude-code/);
  assert.match(first, /\.git\/info\/exclude/);
  assert.equal(spawnSync('git', ['status', '--porcelain', '--', '.claude'], { cwd: dir, encoding: 'utf8' }).stdout, '', 'git leaves the personal settings out');
  assert.match(ok(dir, ['hooks', 'install', 'claude-code']), /in place already; nothing changed/);

  const shared = ok(dir, ['hooks', 'install', 'claude-code', '--shared']);
  assert.match(shared, /\.claude\/settings\.json:/);
  assert.match(fs.readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8'), /command -v context-ledger >\/dev\/null 2>&1 && context-ledger hook prompt --agent claude-code \|\| true/);

  const file = path.join(dir, '.claude', 'settings.local.json');
  const withMine = JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: Record<string, unknown[]> };
  withMine.hooks.PreToolUse!.unshift({ matcher: 'Bash', hooks: [{ type: 'command', command: './mine.sh' }] });
  fs.writeFileSync(file, JSON.stringify(withMine));
  const removed = ok(dir, ['hooks', 'uninstall', 'claude-code']);
  assert.match(removed, /removed UserPromptSubmit/);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './mine.sh' }] }] } });

  fs.writeFileSync(file, '{ "hooks": ');
  const broken = run(dir, ['hooks', 'install', 'claude-code']);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /settings\.local\.json does not parse .*nothing was changed/);
  assert.equal(fs.readFileSync(file, 'utf8'), '{ "hooks": ');

  // Copilot CLI: a file of the ledger's own among its .github/hooks/*.json, in its flat shape; a hook of the person's in it stays.
  const copilot = ok(dir, ['hooks', 'install', 'copilot-cli']);
  assert.match(copilot, /\.github\/hooks\/context-ledger\.json:\n {2}added sessionStart: .* hook session-start --agent copilot-cli\n {2}added userPromptSubmitted: .*\n {2}added preToolUse: .* hook pre-write --agent copilot-cli/);
  assert.match(copilot, /GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true/);
  const copilotFile = path.join(dir, '.github', 'hooks', 'context-ledger.json');
  const installed = JSON.parse(fs.readFileSync(copilotFile, 'utf8')) as { version: number; hooks: Record<string, Array<{ type: string; bash: string; timeoutSec: number }>> };
  assert.equal(installed.version, 1);
  assert.deepEqual(Object.keys(installed.hooks), ['sessionStart', 'userPromptSubmitted', 'preToolUse']);
  assert.equal(installed.hooks.preToolUse![0]!.timeoutSec, 10);
  assert.match(ok(dir, ['hooks', 'install', 'copilot-cli']), /in place already; nothing changed/);
  installed.hooks.preToolUse!.unshift({ type: 'command', bash: './audit.sh', timeoutSec: 5 });
  fs.writeFileSync(copilotFile, JSON.stringify(installed));
  assert.match(ok(dir, ['hooks', 'uninstall', 'copilot-cli']), /removed preToolUse/);
  assert.deepEqual(JSON.parse(fs.readFileSync(copilotFile, 'utf8')), { version: 1, hooks: { preToolUse: [{ type: 'command', bash: './audit.sh', timeoutSec: 5 }] } });
});
