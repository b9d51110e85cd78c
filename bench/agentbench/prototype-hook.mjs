#!/usr/bin/env node
// A stand-in for `context-ledger hook <event>` (issue #38) so the agent-loop benchmark can run
// before the product's hook command exists: a Claude Code command hook that calls today's
// `context-ledger build` and prints its Markdown as `additionalContext`. It is not the product
// and is not shipped; run.mjs uses it only with `--hook prototype` (or when the CLI has no
// `hooks` command).
//
//   UserPromptSubmit  build for the prompt (first line = title, the rest = description)
//   PreToolUse        build for the same task with the file about to be written in play, minus
//                     the items this session already received (by their `### ` heading)
//
// Usage (in .claude/settings.local.json): node prototype-hook.mjs <cli.js> <prompt budget> <write budget>
// Per-session state is kept in .context-ledger/prototype-hook-<session>.json in the workspace.
// Any failure prints nothing and exits 0: a hook must never break the agent.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [cli, promptBudget = '2000', writeBudget = '2000'] = process.argv.slice(2);
// Claude Code hands a hook's additionalContext over 10,000 characters to the model only as a
// 2 KB preview and a file path (measured with 2.1.328 and 2.1.332): stay within it.
const MAX_CHARS = 10_000;

function build(cwd, args, budget) {
  for (let b = Number(budget); b >= 200; b = Math.floor(b * 0.8)) {
    const out = execFileSync(process.execPath, [cli, 'build', '--format', 'json', '--no-log', '--budget', String(b), ...args], {
      cwd,
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    const json = JSON.parse(out);
    if (json.text.length <= MAX_CHARS) return json.text;
  }
  return '';
}

/** Splits Markdown into blocks that start at `### ` headings (the first block is what precedes). */
function blocks(text) {
  const out = [];
  let cur = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('### ') && cur.length) {
      out.push(cur.join('\n'));
      cur = [];
    }
    cur.push(line);
  }
  if (cur.length) out.push(cur.join('\n'));
  return out;
}

function main(payload) {
  const cwd = payload.cwd;
  const event = payload.hook_event_name;
  const state = path.join(cwd, '.context-ledger', `prototype-hook-${String(payload.session_id).replace(/[^\w-]/g, '')}.json`);
  const seen = fs.existsSync(state) ? JSON.parse(fs.readFileSync(state, 'utf8')) : { prompt: '', sent: [] };
  let text = '';
  if (event === 'UserPromptSubmit') {
    seen.prompt = payload.prompt ?? '';
    const [title, ...rest] = seen.prompt.split('\n');
    const args = ['--task-title', title];
    if (rest.join('\n').trim()) args.push('--task-description', rest.join('\n').trim());
    text = build(cwd, args, promptBudget);
  } else if (event === 'PreToolUse') {
    const file = payload.tool_input?.file_path;
    if (!file) return;
    const rel = path.relative(cwd, path.resolve(cwd, file)).split(path.sep).join('/');
    if (rel.startsWith('..')) return;
    const [title, ...rest] = seen.prompt.split('\n');
    const args = ['--task-title', title || rel, '--path', rel];
    if (rest.join('\n').trim()) args.push('--task-description', rest.join('\n').trim());
    const fresh = blocks(build(cwd, args, writeBudget)).filter((b) => b.startsWith('### ') && !seen.sent.includes(b.split('\n')[0]));
    text = fresh.length ? `Project knowledge for ${rel} (Context Ledger):\n\n${fresh.join('\n')}` : '';
  } else return;
  for (const b of blocks(text)) if (b.startsWith('### ')) seen.sent.push(b.split('\n')[0]);
  fs.mkdirSync(path.dirname(state), { recursive: true });
  fs.writeFileSync(state, JSON.stringify(seen));
  if (text.trim()) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }));
}

let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  try {
    main(JSON.parse(input));
  } catch (e) {
    process.stderr.write(`prototype hook: ${e.message}\n`);
  }
  process.exit(0);
});
