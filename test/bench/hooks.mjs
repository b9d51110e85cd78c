// Agent hooks (issue #38): the time of one hook process as the agent waits on it, at 10,000
// artifacts in a workspace ledger with its Markdown mirror, run as installed hooks run it
// (dist/hook.cjs, the light client). Cold: the hook opens the ledger itself (the hook server
// off); warm: the workspace's hook server, started by the first hook, answers. Beside them, the
// floors measured here: a Node process that does nothing (what the client cannot go under), the
// CLI doing nothing (`--version`), and the server's own time per answer from its log, to compare
// with the in-process warm build (speed.mjs measures it). Also: a hook right after an artifact
// file changed, which the server first reads in (a teammate's pull).
//
// Called by speed.mjs; alone: `node test/bench/hooks.mjs <a workspace with a ledger>` (e.g. one
// kept by `BENCH_KEEP=1 npm run bench`).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const rssReporter = path.join(here, 'rss.cjs');

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(args, { cwd, input, env = {} }) {
  const started = process.hrtime.bigint();
  // The server it may start ends a minute after the bench's last hook, not twenty.
  const result = spawnSync(process.execPath, ['-r', rssReporter, ...args], { cwd, input, encoding: 'utf8', env: { ...process.env, CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000', CONTEXT_LEDGER_HOOK_SERVER_IDLE_MS: '60000', ...env } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  const cpuMs = Number(/cpu=(\d+)/.exec(result.stderr)?.[1] ?? 0) / 1000;
  const rssMb = Number(/maxrss=(\d+)/.exec(result.stderr)?.[1] ?? 0) / 1024;
  return { ms, cpuMs, rssMb, stdout: result.stdout };
}

function repeat(n, fn) {
  const results = Array.from({ length: n }, fn);
  return { ms: median(results.map((r) => r.ms)), cpuMs: median(results.map((r) => r.cpuMs)), rssMb: Math.max(...results.map((r) => r.rssMb)) };
}

/** The floor of a command on the workspace's ledger (floor.cjs: load sql.js and read the index), measured here when the caller has none. */
function measureFloor(workspace, runs) {
  return repeat(runs, () => timed([path.join(here, 'floor.cjs'), path.join(workspace, '.context-ledger', 'ledger.db')], { cwd: workspace }));
}

/**
 * Measures the hooks in `workspace` (a ledger with its mirror); `report(what, figures, target)`
 * adds a row, `row(cells)` a row of its own. `floor`: speed.mjs's floor of the same run (load
 * sql.js and read the index), which a cold hook, opening the ledger itself, cannot go under:
 * its target is at most twice that, as a cold `build`'s is (issue #42).
 */
export function hookBench({ workspace, artifacts, runs, report, row, fmt, floor }) {
  const cli = path.join(root, 'dist', 'cli.js');
  const client = path.join(root, 'dist', 'hook.cjs');
  if (!fs.existsSync(client)) return;
  const size = `${artifacts.toLocaleString('en')} artifacts`;
  let sessions = 0;
  const hook = (event, payload, env = {}) =>
    timed([client, 'hook', event, '--agent', 'claude-code'], { cwd: workspace, input: JSON.stringify({ session_id: `bench-${process.pid}-${sessions++}`, cwd: workspace, ...payload }), env });
  const EVENTS = [
    ['session-start', { source: 'startup' }, '< 300 ms'],
    ['prompt', { prompt: 'Fix the webhook retry queue timeout: payments webhook handler times out under load' }, '< 300 ms'],
    ['pre-write', { tool_name: 'Write', tool_input: { file_path: path.join(workspace, 'src', 'queue', 'worker.ts'), content: 'x' } }, '< 150 ms'],
    ['post-compact', { source: 'compact' }, '< 300 ms'],
  ];
  const [, promptPayload] = EVENTS[1];
  report('hook floor: a Node process that does nothing', repeat(runs, () => timed(['-e', ''], { cwd: workspace })));
  report('hook floor: the whole CLI doing nothing (`cli.js --version`)', repeat(runs, () => timed([cli, '--version'], { cwd: workspace })));
  const coldFloor = floor ?? measureFloor(workspace, runs);
  if (floor === undefined) report(`floor: load sql.js and read the index of ${size} (a process)`, coldFloor);
  for (const [event, payload] of EVENTS) {
    report(`\`hook ${event}\`, cold (no hook server: opens the ledger itself), ${size}`, repeat(Math.min(runs, 3), () => hook(event, payload, { CONTEXT_LEDGER_HOOK_SERVER: 'off' })), `<= 2x floor (CPU ${fmt(2 * coldFloor.cpuMs)})`);
  }
  // The first hook starts the server and answers itself; wait until the server answers warm.
  const lastEntry = () => JSON.parse(spawnSync(process.execPath, [cli, 'hook', '--last', '1', '--format', 'json'], { cwd: workspace, encoding: 'utf8' }).stdout).entries[0];
  hook('prompt', promptPayload);
  for (let i = 0; i < 60; i++) {
    hook('prompt', promptPayload);
    const entry = lastEntry();
    if (entry?.server === true && entry.outcome === 'added' && entry.ms < 500) break;
  }
  const firstServed = Date.now();
  const warm = new Map();
  for (const [event, payload, target] of EVENTS) {
    warm.set(event, repeat(runs, () => hook(event, payload)));
    report(`\`hook ${event}\`, warm (the workspace's hook server answers), ${size}`, warm.get(event), target);
  }
  // A teammate's pull changed an artifact file: the server reads it in before it answers.
  const artifactsFolder = path.join(workspace, '.context-ledger', 'artifacts');
  const files = fs.readdirSync(artifactsFolder, { recursive: true }).filter((f) => f.endsWith('.md')).sort();
  let pulled = 0;
  report(`\`hook prompt\`, warm, just after an artifact file changed (the server refreshes first), ${size}`,
    repeat(runs, () => {
      fs.appendFileSync(path.join(artifactsFolder, files[pulled++ % files.length]), `\nA line a teammate added (${pulled}).\n`);
      return hook('prompt', promptPayload);
    }), '< 300 ms');
  // The server's own time per answer (its log): the rows above are the hook process's alone.
  const log = JSON.parse(spawnSync(process.execPath, [cli, 'hook', '--last', '500', '--format', 'json'], { cwd: workspace, encoding: 'utf8' }).stdout).entries;
  const served = log.filter((e) => e.server === true && Date.parse(e.at) >= firstServed - 1000);
  for (const [event] of EVENTS) {
    const answers = served.filter((e) => e.event === event && e.refreshMs === undefined);
    if (answers.length === 0) continue;
    const serverCpu = median(answers.map((e) => e.cpuMs ?? 0));
    row([`\`hook ${event}\`: the hook server's time per answer, nothing to read in first, median of ${answers.length}`, fmt(median(answers.map((e) => e.ms))), fmt(serverCpu), '', '']);
    // What a warm hook costs the machine, whatever the queue for a core adds to its wall time.
    row([`\`hook ${event}\`, warm: CPU of the hook process and the server's answer together`, '', fmt(warm.get(event).cpuMs + serverCpu), '', EVENTS.find(([e]) => e === event)[2]]);
  }
  const refreshed = served.filter((e) => e.refreshMs !== undefined);
  if (refreshed.length > 0) row([`the hook server's answers that first read in a changed file: median of ${refreshed.length}, of it reading in ${fmt(median(refreshed.map((e) => e.refreshMs)))}`, fmt(median(refreshed.map((e) => e.ms))), fmt(median(refreshed.map((e) => e.cpuMs ?? 0))), '', '']);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const workspace = path.resolve(process.argv[2] ?? '.');
  const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms < 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`);
  const rows = [];
  hookBench({
    workspace,
    artifacts: Number(process.env.BENCH_ARTIFACTS ?? 10_000),
    runs: Number(process.env.BENCH_RUNS ?? 5),
    report: (what, { ms, cpuMs, rssMb }, target = '') => rows.push([what, fmt(ms), cpuMs ? fmt(cpuMs) : '', rssMb ? `${rssMb.toFixed(0)} MB` : '', target]),
    row: (cells) => rows.push(cells),
    fmt,
  });
  console.log('| Measure | Time | CPU | Peak RSS | Target |\n| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}
