// `npm run bench`: speed and memory of the CLI on an empty and a 10,000-artifact ledger.
// Figures go in the README with the machine they came from. Not a test: nothing here fails.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vocabulary, words, writeCorpus } from './corpus.mjs';
import { hookBench } from './hooks.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const rssReporter = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rss.cjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-bench-'));
const ARTIFACTS = Number(process.env.BENCH_ARTIFACTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// `BENCH_ONLY=session` runs only the ledger session's figures (issue 42) and what they need.
const ONLY = process.env.BENCH_ONLY;
const wants = (section) => ONLY === undefined || ONLY.split(',').includes(section);

function corpus() {
  const file = path.join(work, 'corpus.jsonl');
  return { file, textBytes: writeCorpus(file, ARTIFACTS) };
}

const floorScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor.cjs');

function run(args, { cwd = work, script = cli, env = {} } = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['-r', rssReporter, script, ...args], { cwd, encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, ...env } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  const rss = Number(/maxrss=(\d+)/.exec(result.stderr)?.[1] ?? 0);
  const cpuMs = Number(/cpu=(\d+)/.exec(result.stderr)?.[1] ?? 0) / 1000;
  return { ms, cpuMs, rssMb: rss / 1024, stdout: result.stdout };
}

const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 20);

/**
 * Builds in this process, against src/core + src/node bundled here with esbuild (no CLI
 * process, no printing): cold = read the file, open, first build; warm = repeat builds;
 * floor = read every artifact row the assembler needs.
 */
/** The artifact-file parser (src/core/formats/mirror.ts) bundled for floor.cjs: the parse a pull's files cost at least. */
async function bundleMirrorParser() {
  const esbuild = await import('esbuild');
  const outfile = path.join(work, 'bench-mirror.cjs');
  await esbuild.build({ entryPoints: [path.join(root, 'src/core/formats/mirror.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'warning' });
  return outfile;
}

async function inProcessBuild(db, task) {
  const esbuild = await import('esbuild');
  const entry = [
    `export { LedgerStore } from ${JSON.stringify(path.join(root, 'src/core/store'))};`,
    `export { loadSqlJs } from ${JSON.stringify(path.join(root, 'src/node/ledgerFile'))};`,
    `export { assembleContext } from ${JSON.stringify(path.join(root, 'src/core/assemble'))};`,
  ].join('\n');
  const outfile = path.join(work, 'bench-core.cjs');
  await esbuild.build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'warning', external: ['vscode'],
  });
  fs.copyFileSync(path.join(root, 'dist', 'sql-wasm.wasm'), path.join(work, 'sql-wasm.wasm'));
  const { LedgerStore, loadSqlJs, assembleContext } = createRequire(import.meta.url)(outfile);
  const request = { budget: 8000, now: new Date('2026-06-01T00:00:00Z'), task, paths: task.paths, log: false };

  let started = performance.now();
  let cpu = process.cpuUsage();
  const store = LedgerStore.open(await loadSqlJs(), fs.readFileSync(db));
  const first = await assembleContext(store, request);
  const coldMs = performance.now() - started;
  const coldCpuMs = cpuMsSince(cpu);

  const warm = [];
  const warmCpu = [];
  let last;
  for (let i = 0; i < WARM_RUNS; i++) {
    started = performance.now();
    cpu = process.cpuUsage();
    last = await assembleContext(store, request);
    warm.push(performance.now() - started);
    warmCpu.push(cpuMsSince(cpu));
  }
  if (last.text !== first.text) throw new Error('warm build differs from the first build');

  const floor = [];
  const floorCpu = [];
  let rowCount = 0;
  for (let i = 0; i < WARM_RUNS; i++) {
    started = performance.now();
    cpu = process.cpuUsage();
    rowCount = store.listArtifacts().length;
    floor.push(performance.now() - started);
    floorCpu.push(cpuMsSince(cpu));
  }
  console.error(`  in process: ${rowCount} artifacts, ${first.items.length} items, ${first.tokensUsed} tokens`);
  store.close();
  return { coldMs, coldCpuMs, warmMs: median(warm), warmCpuMs: median(warmCpu), floorMs: median(floor), floorCpuMs: median(floorCpu) };
}

/**
 * Live sources: a generated 2,000-file workspace (TS modules importing each other, docs,
 * deployment files, a git history), all sources on; cold = first collect + build, warm =
 * repeat (file caches and compressions warm). Then compression ratio and time per level
 * on this repository's own README and assembler source.
 */
async function liveSourcesBench(db, task) {
  const esbuild = await import('esbuild');
  const entry = [
    `export { LedgerStore } from ${JSON.stringify(path.join(root, 'src/core/store'))};`,
    `export { loadSqlJs } from ${JSON.stringify(path.join(root, 'src/node/ledgerFile'))};`,
    `export { assembleContext } from ${JSON.stringify(path.join(root, 'src/core/assemble'))};`,
    `export { collectLiveSources } from ${JSON.stringify(path.join(root, 'src/node/sources'))};`,
    `export { compress, taskTerms, kindOfPath } from ${JSON.stringify(path.join(root, 'src/core/compress'))};`,
    `export { TokenCounter } from ${JSON.stringify(path.join(root, 'src/core/tokens'))};`,
  ].join('\n');
  const outfile = path.join(work, 'bench-sources.cjs');
  await esbuild.build({ stdin: { contents: entry, resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'warning', external: ['vscode'] });
  fs.copyFileSync(path.join(root, 'dist', 'sql-wasm.wasm'), path.join(work, 'sql-wasm.wasm'));
  const { LedgerStore, loadSqlJs, assembleContext, collectLiveSources, compress, taskTerms, kindOfPath, TokenCounter } = createRequire(import.meta.url)(outfile);

  const ws = path.join(work, 'workspace');
  const FILES = 2000;
  for (let i = 0; i < FILES; i++) {
    const dir = vocabulary[i % 40];
    let rel;
    let text;
    if (i % 20 === 0) {
      rel = i === 0 ? 'README.md' : `docs/${dir}/${i}.md`;
      text = `# ${words(4)}\n\n${words(80)}.\n\n## ${words(3)}\n\n${words(120)}.\n`;
    } else if (i % 100 === 1) {
      rel = `deploy/k8s/${dir}-${i}.yaml`;
      text = `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: ${dir}\n          env:\n            - name: DB_PASSWORD\n              value: not-a-real-${i}\n`;
    } else {
      rel = `src/${dir}/${dir}${i}.ts`;
      const imp = `./${dir}${Math.max(2, i - 40)}`;
      text = `import { f${i - 40} } from '${imp}';\n\n/** ${words(12)} */\nexport function f${i}(input: string): string {\n  // ${words(8)}\n  return f${i - 40}(input) + ${JSON.stringify(words(6))};\n}\n\nexport class C${i} {\n  run(): void {\n    f${i}('${words(3)}');\n  }\n}\n`;
    }
    fs.mkdirSync(path.join(ws, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  const git = (...args) => spawnSync('git', args, { cwd: ws, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'workspace');
  git('checkout', '-q', '-b', 'work');
  fs.appendFileSync(path.join(ws, 'src/queue/queue481.ts'), '// touched\n');
  git('commit', '-q', '-am', 'Touch the queue worker');

  const store = LedgerStore.open(await loadSqlJs(), fs.readFileSync(db));
  const paths = ['src/queue/queue481.ts', 'src/queue/queue441.ts'];
  const once = async () => {
    const candidates = collectLiveSources({ root: ws, kinds: ['code', 'docs', 'git', 'deployment'], task, paths });
    return assembleContext(store, { budget: 8000, now: new Date('2026-06-01T00:00:00Z'), task, paths, log: false, sources: { candidates } });
  };
  let started = performance.now();
  let cpu = process.cpuUsage();
  const first = await once();
  const coldMs = performance.now() - started;
  const coldCpuMs = cpuMsSince(cpu);
  const warm = [];
  const warmCpu = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    started = performance.now();
    cpu = process.cpuUsage();
    await once();
    warm.push(performance.now() - started);
    warmCpu.push(cpuMsSince(cpu));
  }
  console.error(`  live sources: ${first.live.items.length} live items of ${first.live.items.length + first.live.excluded.length} candidates, ${first.tokensUsed} tokens`);
  store.close();

  const counter = await TokenCounter.load('o200k_base');
  const query = taskTerms(`${task.title} ${task.description}`);
  const levels = [];
  for (const rel of ['README.md', 'src/core/assemble/assemble.ts']) {
    const text = fs.readFileSync(path.join(root, rel), 'utf8');
    for (const level of ['light', 'medium', 'heavy']) {
      const t0 = performance.now();
      const result = compress({ text, kind: kindOfPath(rel), path: rel, query }, level, counter);
      levels.push([rel, level, result.ratio, result.tokensBefore, performance.now() - t0]);
    }
  }
  return { coldMs, coldCpuMs, warmMs: median(warm), warmCpuMs: median(warmCpu), levels };
}

/** CPU time of this process (all threads; not the git it runs) since `start`. */
/**
 * The MCP server as an agent's client sees it: the official SDK client over stdio against
 * `context-ledger mcp` on the 10,000-artifact ledger. Warm = after a first call of each tool.
 * Pings are sent while a build runs, to show the protocol is not blocked behind the work.
 */
async function mcpBench(db) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--db', db], cwd: work, stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const buildArgs = { task: 'Fix the webhook retry queue timeout: the payments webhook handler times out under load; add a retry queue with a lock.', paths: ['src/queue/worker.ts'], budget: 8000 };
  const searchArgs = { query: 'webhook retry queue lock' };
  // The server's CPU time (all its threads: protocol and ledger worker), from Linux's per-thread schedstat, in ms.
  const serverCpuMs = () => {
    const tasks = `/proc/${transport.pid}/task`;
    if (!transport.pid || !fs.existsSync(tasks)) return undefined;
    let ns = 0;
    for (const t of fs.readdirSync(tasks)) {
      try {
        ns += Number(fs.readFileSync(`${tasks}/${t}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    return ns / 1e6;
  };
  const buildCpu = [];
  const timed = async (fn, cpu) => {
    const cpuBefore = serverCpuMs();
    const started = performance.now();
    const result = await fn();
    if (result?.isError) throw new Error(`MCP tool failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    const wall = performance.now() - started;
    const cpuAfter = serverCpuMs();
    if (cpu && cpuBefore !== undefined && cpuAfter !== undefined) cpu.push(cpuAfter - cpuBefore);
    return wall;
  };
  const stats = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: sorted[Math.floor(sorted.length / 2)], p90: sorted[Math.floor(sorted.length * 0.9)], max: sorted[sorted.length - 1], n: sorted.length };
  };
  try {
    await timed(() => client.callTool({ name: 'build_context', arguments: buildArgs }));
    await timed(() => client.callTool({ name: 'search_artifacts', arguments: searchArgs }));
    const builds = [];
    const searches = [];
    const pings = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      builds.push(await timed(() => client.callTool({ name: 'build_context', arguments: { ...buildArgs, task: `${buildArgs.task} (${i})` } }), buildCpu));
      searches.push(await timed(() => client.callTool({ name: 'search_artifacts', arguments: searchArgs })));
    }
    for (let i = 0; i < 5; i++) {
      const build = client.callTool({ name: 'build_context', arguments: { ...buildArgs, task: `${buildArgs.task} during pings (${i})` } });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const started = performance.now();
      await client.ping();
      pings.push(performance.now() - started);
      await build;
    }
    return { build: stats(builds), buildCpu: buildCpu.length > 0 ? stats(buildCpu) : undefined, search: stats(searches), pings: stats(pings) };
  } finally {
    await client.close();
  }
}

function cpuMsSince(start) {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function repeat(n, fn) {
  const results = Array.from({ length: n }, fn);
  return { ms: median(results.map((r) => r.ms)), cpuMs: median(results.map((r) => r.cpuMs)), rssMb: Math.max(...results.map((r) => r.rssMb)) };
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms < 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`);
const rows = [];
// CPU time (user + system) of the CLI process next to wall time: on a machine shared with
// other jobs, wall time measures the queue for a core as much as the work.
const report = (what, { ms, cpuMs, rssMb }, target = '') => {
  rows.push([what, fmt(ms), cpuMs ? fmt(cpuMs) : '', rssMb ? `${rssMb.toFixed(0)} MB` : '', target]);
  console.error(`  ${what}: ${fmt(ms)}${cpuMs ? ` (CPU ${fmt(cpuMs)})` : ''}`);
};

console.error(`Benchmark in ${work} (${ARTIFACTS} artifacts, median of ${RUNS} runs)`);
const empty = path.join(work, 'empty.db');
run(['init', '--db', empty]);
if (wants('cli')) report('`list`, cold start, empty ledger', repeat(RUNS, () => run(['list', '--db', empty])));

const { file, textBytes } = corpus();
const big = path.join(work, 'big.db');
report(`\`import\` of ${ARTIFACTS.toLocaleString('en')} artifacts (${(textBytes / 1048576).toFixed(1)} MB of text)`, run(['import', '--db', big, file]), '< 10 s');
let n = 0;
if (wants('cli')) {
  report(`\`list\`, cold start, ${ARTIFACTS.toLocaleString('en')} artifacts`, repeat(RUNS, () => run(['list', '--db', big, '--limit', '20'])));
  report(`one \`add\` on ${ARTIFACTS.toLocaleString('en')} artifacts (open, write, persist)`,
    repeat(RUNS, () => run(['add', '--db', big, '--type', 'note', '--title', `bench add ${n++}`, '--body', 'one more'])), '< 300 ms');
}
// The same in a workspace ledger, where the artifact files are the ledger (one file per artifact)
// and the database their index: the command stats the files for a teammate's changes first,
// writes the one file the add changed, then saves the index.
const shared = path.join(work, 'shared');
fs.mkdirSync(path.join(shared, '.context-ledger'), { recursive: true });
fs.copyFileSync(big, path.join(shared, '.context-ledger', 'ledger.db'));
report(`\`sync\`: the artifact files of ${ARTIFACTS.toLocaleString('en')} artifacts written from a database that had none`, run(['sync'], { cwd: shared }));
report(`one \`add\` on ${ARTIFACTS.toLocaleString('en')} artifacts with their artifact files`,
  repeat(RUNS, () => run(['add', '--type', 'note', '--title', `bench mirrored add ${n++}`, '--body', 'one more'], { cwd: shared })), '< 300 ms');

// Issue 42: each figure of the ledger session beside its floor, measured here: a process that
// loads sql.js and reads the index (floor.cjs), and the same plus parsing the files a pull changed.
// A CLI command also loads the CLI bundle: \`--version\` measures that alone. Targets compare CPU
// time: on a machine shared with other jobs, wall time measures the queue for a core as much as the work.
report('CLI floor: a CLI process that does nothing (`--version`)', repeat(RUNS, () => run(['--version'])));
const sharedDb = path.join(shared, '.context-ledger', 'ledger.db');
const artifactFiles = path.join(shared, '.context-ledger', 'artifacts');
const floor = repeat(RUNS, () => run([sharedDb], { script: floorScript }));
report(`floor: load sql.js and read the index of ${ARTIFACTS.toLocaleString('en')} artifacts (a process)`, floor);
const mirrorParser = await bundleMirrorParser();
report('floor + parse 100 artifact files', repeat(RUNS, () => run([sharedDb, '--parse', artifactFiles, '100'], { script: floorScript, env: { BENCH_MIRROR_PARSER: mirrorParser } })));
report(`one \`add\` in a workspace of ${ARTIFACTS.toLocaleString('en')} artifacts, nothing changed since the last command`,
  repeat(RUNS, () => run(['add', '--type', 'note', '--title', `bench session add ${n++}`, '--body', 'one more'], { cwd: shared })), `<= floor (CPU ${fmt(floor.cpuMs)})`);
// What an \`add\` leaves to the next command: the index takes the new artifact file (read, parsed, index saved).
report(`the first command (\`list\`) after an \`add\` in a workspace of ${ARTIFACTS.toLocaleString('en')} artifacts`,
  repeat(RUNS, () => {
    run(['add', '--type', 'note', '--title', `bench add then list ${n++}`, '--body', 'one more'], { cwd: shared });
    return run(['list', '--limit', '20'], { cwd: shared });
  }), '<= floor + parse 1 file');
report(`\`list\` in a workspace of ${ARTIFACTS.toLocaleString('en')} artifacts, nothing changed`,
  repeat(RUNS, () => run(['list', '--limit', '20'], { cwd: shared })), `<= floor (CPU ${fmt(floor.cpuMs)})`);
// A pull that changed 100 artifact files: their text (and so size and hash) changes on disk, as git leaves it.
let pulls = 0;
// And what the pull leaves to the command after that one (the index it saved, and what it recorded beside it).
const second = [];
report('the first command (`list`) after a pull that changed 100 artifact files',
  repeat(RUNS, () => {
    const files = fs.readdirSync(artifactFiles, { recursive: true }).filter((f) => f.endsWith('.md')).sort().slice(pulls * 100, pulls * 100 + 100);
    pulls++;
    for (const f of files) fs.appendFileSync(path.join(artifactFiles, f), `\nA line a teammate added (${pulls}).\n`);
    const first = run(['list', '--limit', '20'], { cwd: shared });
    second.push(run(['list', '--limit', '20'], { cwd: shared }));
    return first;
  }), '<= floor + parse 100 files');
report('the second command (`list`) after that pull', { ms: median(second.map((r) => r.ms)), cpuMs: median(second.map((r) => r.cpuMs)), rssMb: Math.max(...second.map((r) => r.rssMb)) }, `<= floor (CPU ${fmt(floor.cpuMs)})`);

const hasBuild = spawnSync(process.execPath, [cli, 'build', '--help'], { encoding: 'utf8' }).status === 0;
if (hasBuild) {
  const task = ['--task-title', 'Fix the webhook retry queue timeout', '--task-description', 'Payments webhook handler times out under load; add a retry queue with a lock.', '--path', 'src/queue/worker.ts'];
  report(`\`build\` (8,000 tokens), cold, in a workspace of ${ARTIFACTS.toLocaleString('en')} artifacts (session: follows the files, logs the build)`,
    repeat(RUNS, () => run(['build', '--budget', '8000', '--format', 'json', ...task], { cwd: shared })), `<= 2x floor (CPU ${fmt(2 * floor.cpuMs)})`);
  // What the build's save wrote: a line appended to the index's delta, or (past its limit) the whole database.
  const sizeOf = (file) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const deltaBefore = sizeOf(`${sharedDb}.delta`);
  const dbBefore = fs.statSync(sharedDb).mtimeMs;
  run(['build', '--budget', '8000', '--format', 'json', ...task], { cwd: shared });
  const whole = fs.statSync(sharedDb).mtimeMs !== dbBefore;
  const saved = whole ? `the whole database, ${(sizeOf(sharedDb) / 1048576).toFixed(1)} MB` : `${((sizeOf(`${sharedDb}.delta`) - deltaBefore) / 1024).toFixed(0)} kB appended to the index's delta (the database: ${(sizeOf(sharedDb) / 1048576).toFixed(1)} MB)`;
  rows.push([`what a logged \`build\` saves: ${saved}`, '', '', '', '']);
  console.error(`  what a logged build saves: ${saved}`);
}
if (hasBuild && wants('cli')) {
  const task = ['--task-title', 'Fix the webhook retry queue timeout', '--task-description', 'Payments webhook handler times out under load; add a retry queue with a lock.', '--path', 'src/queue/worker.ts'];
  report(`\`build\` (8,000 tokens), cold: open + build, ${ARTIFACTS.toLocaleString('en')} artifacts`,
    repeat(RUNS, () => run(['build', '--db', big, '--budget', '8000', '--format', 'json', ...task])), '< 1 s');
  const figures = await inProcessBuild(big, {
    title: 'Fix the webhook retry queue timeout',
    description: 'Payments webhook handler times out under load; add a retry queue with a lock.',
    paths: ['src/queue/worker.ts'],
  });
  rows.push(['in process: open + first build (load sql.js + tokenizer, index, counts)', fmt(figures.coldMs), fmt(figures.coldCpuMs), '', '< 1 s']);
  rows.push(['in process: read all artifact rows (the floor), median', fmt(figures.floorMs), fmt(figures.floorCpuMs), '', '']);
  rows.push([`in process: \`build\`, warm (repeat build), median of ${WARM_RUNS}`, fmt(figures.warmMs), fmt(figures.warmCpuMs), '', `< 50 ms and < 5x floor (${(figures.warmMs / figures.floorMs).toFixed(1)}x)`]);
  const live = await liveSourcesBench(big, {
    title: 'Fix the webhook retry queue timeout',
    description: 'Payments webhook handler times out under load; add a retry queue with a lock.',
  });
  rows.push(['in process: collect all live sources (2,000-file workspace, git) + build, cold', fmt(live.coldMs), fmt(live.coldCpuMs), '', '']);
  rows.push([`in process: collect all live sources + build, warm, median of ${WARM_RUNS}`, fmt(live.warmMs), fmt(live.warmCpuMs), '', '< 300 ms']);
  const mcp = await mcpBench(big);
  rows.push([`MCP \`build_context\` (8,000 tokens), warm, p50 of ${WARM_RUNS} (p90 ${fmt(mcp.build.p90)})`, fmt(mcp.build.p50), '', '', '< 100 ms']);
  if (mcp.buildCpu) {
    // The server's own CPU per call (both threads), beside the in-process warm build above: what the protocol, the worker and fitting the whole result add.
    rows.push([`MCP \`build_context\` (8,000 tokens), warm, server CPU p50 of ${mcp.buildCpu.n} (p90 ${fmt(mcp.buildCpu.p90)}; in process ${fmt(figures.warmCpuMs)})`, '', fmt(mcp.buildCpu.p50), '', '≤ 50 ms p50, ≤ 120 ms p90']);
  }
  rows.push([`MCP \`search_artifacts\`, warm, p50 of ${WARM_RUNS} (p90 ${fmt(mcp.search.p90)})`, fmt(mcp.search.p50), '', '', '< 50 ms']);
  rows.push([`MCP \`ping\` answered while a \`build_context\` runs, p50 of ${mcp.pings.n} (max ${fmt(mcp.pings.max)})`, fmt(mcp.pings.p50), '', '', '< 50 ms']);
  for (const [rel, level, ratio, before, ms] of live.levels) {
    rows.push([`compression \`${level}\` of ${rel} (${before} tokens): ${Math.round(ratio * 100)}% of the tokens left`, fmt(ms), '', '', '']);
  }
}

// Agent hooks (issue #38): test/bench/hooks.mjs.
if (wants('hooks')) hookBench({ workspace: shared, artifacts: ARTIFACTS, runs: RUNS, report, row: (cells) => rows.push(cells), fmt, floor });

// Imports of the formats teams keep (issue #6): a 1,000-entry ctx DECISIONS.md and a 500-file ADR folder.
if (wants('cli')) {
  const decisions = path.join(work, 'ctx', '.context');
  fs.mkdirSync(decisions, { recursive: true });
  fs.writeFileSync(path.join(decisions, 'DECISIONS.md'), ['# Decisions', '', ...Array.from({ length: 1000 }, (_, i) => {
    const stamp = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    return `## [${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}-${stamp.slice(9, 15)}] ${words(6)}\n\n**Status**: Accepted\n\n**Context**: ${words(60)}.\n\n**Decision**: ${words(40)}.\n\n**Consequence**: ${words(30)}.\n\n---\n`;
  })].join('\n'));
  const importedAll = (result, n) => {
    const added = JSON.parse(result.stdout).formats.reduce((sum, f) => sum + f.added, 0);
    if (added !== n) throw new Error(`imported ${added} artifacts, expected ${n}`);
    return result;
  };
  report('`import --from ctx` of a 1,000-entry DECISIONS.md (new ledger)', importedAll(run(['import', '--db', path.join(work, 'ctx.db'), '--from', 'ctx', decisions, '--format', 'json']), 1000));
  const adrs = path.join(work, 'adr', 'docs', 'adr');
  fs.mkdirSync(adrs, { recursive: true });
  for (let i = 1; i <= 500; i++) {
    const title = words(5);
    fs.writeFileSync(path.join(adrs, `${String(i).padStart(4, '0')}-${title.replace(/ /g, '-')}.md`),
      `---\nstatus: accepted\ndate: 2025-01-${String((i % 28) + 1).padStart(2, '0')}\ntags: [${vocabulary[i % vocabulary.length]}]\n---\n# ${i}. ${title}\n\n## Context\n\n${words(80)}.\n\n## Decision\n\n${words(50)}.\n\n## Consequences\n\n${words(40)}.\n`);
  }
  report('`import --from adr` of a 500-file ADR folder (new ledger)', importedAll(run(['import', '--db', path.join(work, 'adr.db'), '--from', 'adr', adrs, '--format', 'json']), 500));
}

const dbBytes = fs.statSync(big).size;
rows.push([`database file / text size`, `${(dbBytes / 1048576).toFixed(1)} MB / ${(textBytes / 1048576).toFixed(1)} MB = ${(dbBytes / textBytes).toFixed(2)}x`, '', '', '< 2x']);

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`Machine: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB RAM, Node ${process.version}, ${os.platform()} ${os.release()}, load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log('| Measure | Time | CPU | Peak RSS | Target |');
console.log('| --- | --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
if (!process.env.BENCH_KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.error(`kept ${work}`);
