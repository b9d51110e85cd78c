#!/usr/bin/env node
// The agent-loop benchmark of issue #38: does the ledger, in the real Claude Code's loop, put more
// of what a task needs in front of the model than Claude Code's own loading of the same files?
//
// For each task of a realbench-style set (../shared/realbench, bench/devset): a workspace with the
// repository's knowledge files (symlinks kept, a git repository of one commit), and two runs of the
// real Claude Code (test/agents harness) against a scripted model:
//   native  Claude Code's own loading only;
//   ledger  the same, with the ledger's hooks installed (`context-ledger hooks install claude-code`,
//           or bench/agentbench/prototype-hook.mjs calling today's `build` until that exists).
// The prompt is the task's title and description. The model answers the first request with a
// Write of the task's first changed path (so a before-write hook fires) and then ends. The text of
// the LAST request the model received (system + messages) is scored against the task's graded
// units with realbench's own scorer (imported from a staged copy, see bench/devset/stage.mjs).
//
// Usage (from the project root):
//   npm run build && node bench/agentbench/run.mjs [--sets realbench,devset] [--tasks id,id]
//        [--hook auto|product|prototype] [--fresh] [--event-budgets session-start=N,prompt=N,pre-write=N]
//        [--hook-timeout-ms N] [--prompt-budget N] [--write-budget N] (the last two: prototype only)
//        [--now task|<ISO time>] [--shared DIR] [--work DIR] [--json FILE] [--verbose]
// Deterministic for a given product build and Claude Code version: the scripted model is, and the
// product's hooks build as at a fixed time (`hook --now`), so recency does not drift with the day the
// bench runs. `--now task` (the default) is each task's own date, the end of the day of its commit
// (as the task's author saw the repository); tasks without a date use DEFAULT_NOW. Knowledge the run
// itself writes (the import) is newer than that and counts as new (an age under 0 counts as 0).
// The prototype hook builds at the current time.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { stageHarness } from '../devset/stage.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const PROJECT = path.resolve(HERE, '..', '..');
const CLI = path.join(PROJECT, 'dist', 'cli.js');
const PROTOTYPE_HOOK = path.join(HERE, 'prototype-hook.mjs');
const TARGET_GAIN = 0.15;
const TARGET_ADDED = 8000;
/** The fixed time of a task without a date of its own. */
const DEFAULT_NOW = '2026-11-01T00:00:00.000Z';

function parseArgs(argv) {
  const o = { sets: ['realbench', 'devset'], hook: 'auto', promptBudget: 2000, writeBudget: 2000, hookTimeoutMs: 30_000, now: 'task', work: path.join(os.tmpdir(), 'agentbench-work'), verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--sets') o.sets = next().split(',');
    else if (a === '--tasks') o.tasks = next().split(',');
    else if (a === '--hook') o.hook = next();
    else if (a === '--prompt-budget') o.promptBudget = Number(next());
    else if (a === '--write-budget') o.writeBudget = Number(next());
    else if (a === '--hook-timeout-ms') o.hookTimeoutMs = Number(next());
    else if (a === '--now') o.now = next();
    else if (a === '--shared') o.shared = path.resolve(next());
    else if (a === '--work') o.work = path.resolve(next());
    else if (a === '--json') o.json = path.resolve(next());
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--fresh') o.fresh = true;
    else if (a === '--event-budgets') o.eventBudgets = Object.fromEntries(next().split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
    else if (a === '-h' || a === '--help') {
      const header = fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(1);
      console.log(header.slice(0, header.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  for (const s of o.sets) if (!['realbench', 'devset'].includes(s)) throw new Error(`--sets takes realbench and/or devset (got ${s})`);
  if (o.now !== 'task' && Number.isNaN(Date.parse(o.now))) throw new Error(`--now takes task or an ISO time (got ${o.now})`);
  if (!['auto', 'product', 'prototype'].includes(o.hook)) throw new Error('--hook must be auto, product or prototype');
  return o;
}

/** The shared folder (holding realbench/): ../shared beside the project, else beside its parent folder. */
function findShared() {
  for (let dir = path.dirname(PROJECT); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'shared', 'realbench', 'realbench.mjs'))) return path.join(dir, 'shared');
    if (path.dirname(dir) === dir) throw new Error('cannot find shared/realbench above the project; pass --shared <folder>');
  }
}

function cli(args, cwd) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
}

/** Whether the built CLI has `hooks install` (the hooks branch of #38). */
function productHasHooks() {
  const r = cli(['hooks', 'install', '--help'], PROJECT);
  return r.status === 0 && /claude/i.test(r.stdout + r.stderr);
}

/**
 * Puts the ledger in the agent's loop in `dir`. The ledger is first made from the repository's files
 * with `import-folder .`, the documented first step (with `--fresh`, the product's first hook has
 * to build it on its own, as on a fresh clone).
 */
/** The time a task's hooks build for (see --now). */
function nowOf(task, opts) {
  if (opts.now !== 'task') return new Date(Date.parse(opts.now)).toISOString();
  return /^\d{4}-\d{2}-\d{2}$/.test(task.date ?? '') ? `${task.date}T23:59:59.000Z` : DEFAULT_NOW;
}

function installLedger(dir, hook, opts, now) {
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  if (hook === 'prototype' || !opts.fresh) {
    fs.mkdirSync(path.dirname(db), { recursive: true });
    const r = cli(['import-folder', '.', '--db', db], dir);
    if (r.status !== 0) throw new Error(`import-folder failed: ${r.stderr}`);
  }
  if (hook === 'product') {
    const r = cli(['hooks', 'install', 'claude-code'], dir);
    if (r.status !== 0) throw new Error(`hooks install claude-code failed: ${r.stderr || r.stdout}`);
    tuneHooks(path.join(dir, '.claude', 'settings.local.json'), opts, now);
    return;
  }
  const command = `node ${PROTOTYPE_HOOK} ${CLI} ${opts.promptBudget} ${opts.writeBudget}`;
  const settings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }], PreToolUse: [{ matcher: 'Write|Edit|MultiEdit', hooks: [{ type: 'command', command }] }] } };
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.claude', 'settings.local.json'), JSON.stringify(settings, null, 2));
}

/**
 * Adjusts the installed hook commands: each gets `--now <the task's time>`; `--event-budgets
 * session-start=1500,prompt=2000` gives each named one `--budget N` (0 takes it out), so per-event
 * budgets can be measured without a rebuild;
 * and Claude Code's own timeout for each hook (10 s as installed) is raised to the bench's hook
 * bound, so that load on a shared machine cannot cut an answer off (hook times are reported).
 */
function tuneHooks(file, opts, now) {
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  const budgets = opts.eventBudgets ?? {};
  const seconds = Math.ceil(opts.hookTimeoutMs / 1000) + 5;
  for (const [name, groups] of Object.entries(settings.hooks ?? {})) {
    settings.hooks[name] = groups
      .map((g) => ({
        ...g,
        hooks: g.hooks.flatMap((hk) => {
          const event = / hook ([a-z-]+) /.exec(hk.command)?.[1];
          if (event === undefined) return [hk];
          if (budgets[event] === 0) return [];
          const command = `${hk.command}${budgets[event] === undefined ? '' : ` --budget ${budgets[event]}`} --now ${now}`;
          return [{ ...hk, command, timeout: Math.max(hk.timeout ?? 0, seconds) }];
        }),
      }))
      .filter((g) => g.hooks.length > 0);
  }
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

/** The ledger's artifacts in `dir` (for realbench's preview credit), or none when it has no ledger. */
function exportedArtifacts(dir, out) {
  const r = cli(['export', '--format', 'jsonl', '--out', out], dir);
  if (r.status !== 0 || !fs.existsSync(out)) return [];
  const latest = new Map();
  for (const line of fs.readFileSync(out, 'utf8').split('\n')) if (line.trim()) {
    const a = JSON.parse(line);
    latest.set(a.chainId ?? a.id, a); // oldest first: the last is the newest
  }
  return [...latest.values()];
}

/**
 * The links a repository's SOURCES.md names ("`web/CLAUDE.md` (symlink to `AGENTS.md`)") that a copy
 * of the set holds as plain files with the target's name as their text (the shared realbench copy
 * does, for langfuse): made links again, as they are in the repository, so the agent reads them as
 * it would there.
 */
function restoreLinks(repoDir, dir) {
  const sources = path.join(repoDir, 'SOURCES.md');
  if (!fs.existsSync(sources)) return 0;
  let restored = 0;
  for (const m of fs.readFileSync(sources, 'utf8').matchAll(/`([^`\s]+)` \(symlink to `([^`\s]+)`\)/g)) {
    const [, rel, target] = m;
    const full = path.join(dir, rel);
    const st = fs.lstatSync(full, { throwIfNoEntry: false });
    if (!st?.isFile() || fs.readFileSync(full, 'utf8').trim() !== target) continue;
    fs.rmSync(full);
    fs.symlinkSync(target, full);
    restored += 1;
  }
  return restored;
}

/** What each of the product's hooks did in this workspace (its hook log): event, outcome, tokens, ms. */
function hookLog(dir, home) {
  const r = spawnSync(process.execPath, [CLI, 'hook', '--last', '50', '--format', 'json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: home } });
  if (r.status !== 0) return [];
  try {
    return JSON.parse(r.stdout).entries.map((e) => ({ event: e.event, outcome: e.outcome, tokens: e.tokens ?? 0, chars: e.chars ?? 0, ms: e.ms, ...(e.detail ? { detail: e.detail } : {}) }));
  } catch {
    return [];
  }
}

async function runOnce({ h, rb, task, filesRoot, mode, hook, opts, workDir }) {
  const ws = h.createWorkspace({ copyFrom: filesRoot });
  restoreLinks(path.dirname(filesRoot), ws.dir);
  h.commitAll(ws);
  const [first, ...others] = task.paths;
  // The other changed paths exist as empty files, as in realbench; the first is the one the model
  // writes (a new file: Claude Code's Write of an existing file needs a Read first).
  for (const p of others) {
    const full = path.join(ws.dir, p);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (!fs.existsSync(full)) fs.writeFileSync(full, '');
  }
  const target = path.join(ws.dir, first);
  if (fs.existsSync(target)) fs.rmSync(target);
  let model;
  try {
    if (mode === 'ledger') installLedger(ws.dir, hook, opts, nowOf(task, opts));
    model = await h.startScriptedModel([{ write: { file_path: target, content: 'placeholder\n' } }, { text: 'Done.' }]);
    const prompt = `${task.title}\n\n${task.description}`;
    // The product's hook gives up after 4 s by default (CONTEXT_LEDGER_HOOK_TIMEOUT_MS): on a machine
    // shared by many processes that is a matter of load, not of the ledger, so the bench allows more
    // and reports each hook's time from the hook log instead.
    const env = { CONTEXT_LEDGER_HOOK_TIMEOUT_MS: String(opts.hookTimeoutMs) };
    const run = await h.runClaude({ workspace: ws, baseUrl: model.url, prompt, timeoutMs: 240_000, env });
    const requests = model.mainRequests();
    const last = requests[requests.length - 1];
    const text = h.requestText(last);
    const failures = [];
    if (run.code !== 0) failures.push(`exit ${run.code}${run.timedOut ? ' (timed out)' : ''}: ${run.stderr.trim().slice(0, 300)}`);
    if (requests.length !== 2) failures.push(`${requests.length} model requests, expected 2`);
    if (!fs.existsSync(target)) failures.push(`${first} was not written`);
    fs.mkdirSync(workDir, { recursive: true });
    fs.writeFileSync(path.join(workDir, `${mode}-last-request.txt`), text);
    const artifacts = mode === 'ledger' ? exportedArtifacts(ws.dir, path.join(workDir, 'artifacts.jsonl')) : [];
    const hooks = mode === 'ledger' && hook === 'product' ? hookLog(ws.dir, ws.home) : [];
    return { text, tokens: rb.countTokens(text), ms: run.ms, failures, artifacts, hooks };
  } finally {
    await model?.close();
    ws.dispose();
  }
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '  -  ');
const signed = (x) => (x >= 0 ? '+' : '') + f3(x);

async function runSet(name, { h, opts, shared, hook, stageRoot }) {
  const stage = path.join(stageRoot, name);
  stageHarness({ shared, stage, repos: name === 'devset' ? path.join(PROJECT, 'bench', 'devset', 'repos') : undefined });
  const rb = await import(path.join(stage, 'realbench.mjs'));
  const { repos, tasks, qrels, byRepo, unitsById } = rb.loadBench({ repos: path.join(stage, 'repos'), tasks: opts.tasks });
  const rows = [];
  for (const task of tasks) {
    const filesRoot = path.join(repos, task.repo, 'files');
    const graded = qrels.filter((q) => q.task === task.id && q.grade > 0).map((q) => ({ unit: `${task.repo}::${q.unit}`, grade: q.grade }));
    const keyed = new Map([...unitsById].filter(([k]) => k.startsWith(task.repo + '::')));
    const strip = [task.title, task.description];
    const workDir = path.join(opts.work, name, task.id);
    const row = { set: name, task: task.id, repo: task.repo, graded: graded.length };
    for (const mode of ['native', 'ledger']) {
      let r;
      try {
        r = await runOnce({ h, rb, task, filesRoot, mode, hook, opts, workDir });
      } catch (e) {
        r = { text: '', tokens: 0, ms: 0, failures: [e.message], artifacts: [], hooks: [] };
      }
      const mapped = rb.mapArtifacts(r.artifacts, byRepo.get(task.repo));
      const artifactUnits = new Map([...mapped].map(([id, us]) => [id, us.map((u) => `${task.repo}::${u}`)]));
      const s = rb.scoreContext({ text: r.text, graded, unitsById: keyed, artifactUnits, strip });
      row[mode] = { score: s.score, tokens: r.tokens, ms: r.ms, failures: r.failures, credits: s.credits, ...(mode === 'ledger' ? { hooks: r.hooks } : {}) };
    }
    row.added = row.ledger.tokens - row.native.tokens;
    row.failed = row.native.failures.length > 0 || row.ledger.failures.length > 0;
    rows.push(row);
    if (opts.verbose || row.failed) {
      console.log(
        `${name.padEnd(9)} ${task.id.padEnd(10)} native ${f3(row.native.score)} (${row.native.tokens} tok, ${row.native.ms} ms)  ledger ${f3(row.ledger.score)} (+${row.added} tok, ${row.ledger.ms} ms)  diff ${signed(row.ledger.score - row.native.score)}` +
          (row.ledger.hooks.length ? `  hooks ${row.ledger.hooks.map((e) => `${e.event}:${e.outcome === 'added' ? e.tokens : e.outcome}/${e.ms}ms`).join(' ')}` : '') +
          (row.failed ? `  FAILED: ${[...row.native.failures, ...row.ledger.failures].join('; ')}` : ''),
      );
    }
  }
  return rows;
}

function report(name, rows) {
  const ok = rows.filter((r) => !r.failed);
  const n = mean(ok.map((r) => r.native.score));
  const l = mean(ok.map((r) => r.ledger.score));
  const maxAdded = Math.max(0, ...ok.map((r) => r.added));
  const failed = rows.filter((r) => r.failed).length;
  console.log(`\n${name}: ${rows.length} tasks`);
  console.log(`  ${''.padEnd(34)} native  ledger  ledger-native  max added tokens`);
  const line = (label, rs) =>
    `  ${label.padEnd(34)} ${f3(mean(rs.map((r) => r.native.score)))}   ${f3(mean(rs.map((r) => r.ledger.score)))}   ${signed(mean(rs.map((r) => r.ledger.score - r.native.score))).padStart(6)}         ${Math.max(0, ...rs.map((r) => r.added))}`;
  console.log(line('all (failed runs left out)', ok));
  for (const repo of [...new Set(ok.map((r) => r.repo))]) console.log(line(`  ${repo}`, ok.filter((r) => r.repo === repo)));
  const events = [...new Set(ok.flatMap((r) => r.ledger.hooks.map((e) => e.event)))];
  for (const ev of events) {
    const es = ok.flatMap((r) => r.ledger.hooks.filter((e) => e.event === ev));
    const outcomes = {};
    for (const e of es) outcomes[e.outcome] = (outcomes[e.outcome] ?? 0) + 1;
    const added = es.filter((e) => e.outcome === 'added');
    const ms = es.map((e) => e.ms).sort((a, b) => a - b);
    console.log(`  hook ${ev}: ${Object.entries(outcomes).map(([k, v]) => `${k} ${v}`).join(', ')}; tokens added mean ${Math.round(mean(added.map((e) => e.tokens)) || 0)}, max ${Math.max(0, ...added.map((e) => e.tokens))} (${Math.max(0, ...added.map((e) => e.chars ?? 0))} characters; Claude Code takes 10,000); time median ${ms[Math.floor(ms.length / 2)] ?? 0} ms, max ${ms[ms.length - 1] ?? 0} ms`);
  }
  const verdict = (good) => (good ? 'met' : 'NOT met');
  console.log(`  targets: difference ${signed(l - n)} >= +${TARGET_GAIN} ${verdict(l - n >= TARGET_GAIN)}; max added ${maxAdded} <= ${TARGET_ADDED} ${verdict(maxAdded <= TARGET_ADDED)}; failed runs ${failed} ${verdict(failed === 0)}`);
  return { set: name, tasks: rows.length, native: n, ledger: l, difference: l - n, maxAdded, failed };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const shared = opts.shared ?? findShared();
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js not found: run `npm run build` first');
  // The harness is TypeScript (test/agents/harness); compile it and install the agent, both cached.
  for (const [cmd, args] of [
    ['bash', [path.join(PROJECT, 'scripts', 'setup-agents.sh')]],
    [process.execPath, [path.join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(PROJECT, 'tsconfig.agents.json')]],
  ]) {
    const r = spawnSync(cmd, args, { cwd: PROJECT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${path.basename(args[0])} failed:\n${r.stdout}${r.stderr}`);
  }
  const h = createRequire(import.meta.url)(path.join(PROJECT, 'out', 'test', 'agents', 'harness', 'index.js'));
  const hook = opts.hook === 'auto' ? (productHasHooks() ? 'product' : 'prototype') : opts.hook;
  if (hook === 'product' && !productHasHooks()) throw new Error('--hook product: this build has no `hooks install claude-code`');
  const commit = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: PROJECT, encoding: 'utf8' }).stdout.trim();
  const budgets = opts.eventBudgets ? `, event budgets ${Object.entries(opts.eventBudgets).map(([k, v]) => `${k}=${v}`).join(' ')}` : ', default event budgets';
  console.log(
    `agentbench: Claude Code ${h.CLAUDE_CODE_VERSION}, product ${commit}, ledger via ${hook === 'product' ? `\`hooks install claude-code\`${budgets}, hooks as at ${opts.now === 'task' ? `each task's date (${DEFAULT_NOW} without one)` : opts.now}` : `the prototype hook (prompt budget ${opts.promptBudget}, write budget ${opts.writeBudget})`}`,
  );
  fs.rmSync(opts.work, { recursive: true, force: true });
  const stageRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'agentbench-stage-'));
  const rows = [];
  const summaries = [];
  try {
    for (const set of opts.sets) {
      const setRows = await runSet(set, { h, opts, shared, hook, stageRoot });
      rows.push(...setRows);
      summaries.push(report(set, setRows));
    }
  } finally {
    fs.rmSync(stageRoot, { recursive: true, force: true });
  }
  if (opts.json) {
    fs.writeFileSync(opts.json, JSON.stringify({ generated: new Date().toISOString(), commit, claudeCode: h.CLAUDE_CODE_VERSION, hook, now: opts.now, eventBudgets: opts.eventBudgets, promptBudget: opts.promptBudget, writeBudget: opts.writeBudget, summaries, rows }, null, 1));
  }
  console.log(`\nLast requests per task and run: ${opts.work}`);
  if (rows.some((r) => r.failed)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`agentbench: ${e.stack || e.message}`);
  process.exit(2);
});
