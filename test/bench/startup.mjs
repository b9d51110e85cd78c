// `npm run bench`, second part: what the extension costs VS Code at start-up, measured in the
// real thing — code-server (VS Code 1.139 by default; BENCH_VSCODE=min for 1.100) in Chromium,
// with the packaged .vsix, on a workspace whose ledger holds 1,000 artifacts (and their mirror).
// Each figure sits beside a floor measured in the same run:
//  - activation: VS Code's own figure (Developer: Show Running Extensions = code loading +
//    activate call), beside an extension that does nothing, activated by the same event;
//  - extension-host memory: its resident set once the extension has built the context for the
//    status-bar meter, beside the same code-server with only the do-nothing extension;
//  - the MCP server VS Code starts from the extension's definition (current VS Code only): its
//    resident set after a `build_context` call, beside a Node process of the same binary that
//    does nothing; and beside it the workspace's ledger server that keeps the ledger for it (and
//    for every other MCP server and hook on the workspace: src/cli/mcp/remote.ts), so that no
//    one reads the child's figure as memory that vanished.
// Not a test: nothing here fails on a figure.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCorpus } from './corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const flavour = process.env.BENCH_VSCODE ?? 'current';
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 2);
const ARTIFACTS = Number(process.env.BENCH_STARTUP_ARTIFACTS ?? 1000);
// After the meter shows, the extension host settles (timers, the file watchers' first scan) before it is measured.
const SETTLE_MS = Number(process.env.BENCH_STARTUP_SETTLE_MS ?? 8000);

function sh(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

// The real VS Code and the harness the e2e tests drive it with.
sh('bash', ['scripts/setup-e2e.sh'], { E2E_VSCODE: flavour });
sh(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.e2e.json']);
process.env.E2E_VSCODE = flavour;
const require = createRequire(import.meta.url);
const harness = require(path.join(root, 'out', 'test', 'e2e', 'harness.js'));
const { CODE_SERVER_NODE, installVsix, openWorkbench, packageExtension, runCli, runCommand, seedSampleWorkspace, startCodeServer, waitFor, waitForStatusBarText, extensionLogLines, TEST_MODEL_EXTENSION, installUnpackedExtension } = harness;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-startup-'));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// The workspace: the sample project with its ledger, plus ARTIFACTS generated ones, and the mirror a team commits.
const vsix = packageExtension();
const template = seedSampleWorkspace(path.join(work, 'template'));
const corpus = path.join(work, 'corpus.jsonl');
writeCorpus(corpus, ARTIFACTS);
runCli(['import', corpus, '--db', template.db]);
runCli(['sync', '--db', template.db]);
const artifactCount = JSON.parse(runCli(['list', '--db', template.db, '--limit', '100000', '--format', 'json'])).length;

// The floor's extension: activated by the same event, does nothing.
const EMPTY_NAME = 'Bench Do-Nothing Extension';
const empty = path.join(work, 'empty-extension');
fs.mkdirSync(empty);
fs.writeFileSync(path.join(empty, 'package.json'), JSON.stringify({
  name: 'bench-empty', displayName: EMPTY_NAME, publisher: 'bench', version: '0.0.1', engines: { vscode: '^1.100.0' },
  main: './extension.js', activationEvents: ['workspaceContains:.context-ledger/ledger.db'],
}));
fs.writeFileSync(path.join(empty, 'extension.js'), 'exports.activate = () => {};\n');

// One extensions folder per kind of session, installed once: with and without Context Ledger.
const extensionsFloor = path.join(work, 'extensions-floor');
const extensionsLedger = path.join(work, 'extensions-ledger');
installUnpackedExtension(empty, extensionsFloor);
installUnpackedExtension(empty, extensionsLedger);
// The chat's model (a test-only extension, current VS Code only) lets the bench call the MCP server as an agent would.
const withChat = flavour === 'current';
if (withChat) {
  installUnpackedExtension(TEST_MODEL_EXTENSION, extensionsFloor);
  installUnpackedExtension(TEST_MODEL_EXTENSION, extensionsLedger);
}
await installVsix(vsix, extensionsLedger, path.join(work, 'install-user-data'));

/** Every process in the server's process group: pid, command line, resident set (MB), peak resident set (MB). */
function processesOf(group) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command name (which may hold spaces) start at its closing parenthesis.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== group) continue;
      const status = fs.readFileSync(`/proc/${name}/status`, 'utf8');
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      found.push({ pid: Number(name), cmdline, rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function extensionHost(group) {
  const hosts = processesOf(group).filter((p) => /--type=extensionHost/.test(p.cmdline));
  if (hosts.length !== 1) throw new Error(`expected one extension host in the server's process group, found ${hosts.length}`);
  return hosts[0];
}

/** VS Code's activation times (ms) per extension, as Developer: Show Running Extensions shows them. */
async function runningExtensions(page) {
  await runCommand(page, 'Developer: Show Running Extensions');
  const rows = page.locator('.runtime-extensions-editor .monaco-list-row');
  await waitFor(() => rows.allInnerTexts(), (all) => all.some((t) => /\d+ms/.test(t)), 'the running extensions with their activation times');
  // The list renders only the rows in view, and the do-nothing extension comes last: scroll down it.
  const times = new Map();
  for (let step = 0; step < 20 && !times.has(EMPTY_NAME); step++) {
    for (const text of await rows.allInnerTexts()) {
      const ms = /(\d+)ms/.exec(text);
      if (ms) times.set(text.split('\n')[0].trim(), Number(ms[1]));
    }
    await page.locator('.runtime-extensions-editor .monaco-list').first().hover();
    await page.mouse.wheel(0, 300);
    await sleep(200);
  }
  await page.keyboard.press('Escape');
  return times;
}

async function session(kind, index) {
  const dir = path.join(work, `${kind}-${index}`);
  const workspace = path.join(dir, 'workspace');
  fs.cpSync(template.workspace, workspace, { recursive: true });
  const userDataDir = path.join(dir, 'user-data');
  const server = await startCodeServer({
    // BENCH_HEAP_SNAPSHOT / BENCH_CPU_PROFILE=<folder>: the extension writes a heap snapshot of the host 15 s after its
    // first build, or a CPU profile of activate() and the 15 s after it, there (src/extension/devProfile.ts).
    env: kind === 'ledger' ? { CONTEXT_LEDGER_HEAP_SNAPSHOT: process.env.BENCH_HEAP_SNAPSHOT ?? '', CONTEXT_LEDGER_CPU_PROFILE: process.env.BENCH_CPU_PROFILE ?? '' } : {},
    workspace,
    extensionsDir: kind === 'ledger' ? extensionsLedger : extensionsFloor,
    userDataDir,
    logFile: path.join(dir, 'code-server.log'),
  });
  let wb;
  try {
    const opened = Date.now();
    wb = await openWorkbench(server.url, workspace, path.join(dir, 'shots'));
    const figures = { kind };
    if (kind === 'ledger') {
      // The extension's work at start is done when the meter shows the context's size.
      await waitForStatusBarText(wb.page, /\d(\.\d)?k?\/\d+(\.\d)?k/, 120_000);
      figures.meterMs = Date.now() - opened;
    }
    await sleep(SETTLE_MS);
    // The log reaches its file a little after the line is written.
    if (kind === 'ledger') {
      const lines = extensionLogLines(userDataDir);
      figures.ownLog = lines.map((l) => /Activated in ([\d.]+) ms/.exec(l)?.[1]).find(Boolean);
      // activate()'s parts, as it logs them: services and views, the command tables, the features registered after.
      const phases = lines.map((l) => /Activated in [\d.]+ ms \(services and views ([\d.]+), commands ([\d.]+), chat, tools, interop and inspector ([\d.]+)\)/.exec(l)).find(Boolean);
      if (phases) figures.phases = phases.slice(1, 4).map(Number);
      // Where the memory goes, as the extension logs it at its first build.
      const memory = lines.map((l) => /Memory after the first build: resident (\d+) MB, heap (\d+) of (\d+) MB, external (\d+) MB/.exec(l)).find(Boolean);
      if (memory) figures.firstBuild = { rssMb: Number(memory[1]), heapMb: Number(memory[2]), heapTotalMb: Number(memory[3]), externalMb: Number(memory[4]) };
    }
    const host = extensionHost(server.pid);
    figures.hostRssMb = host.rssMb;
    figures.hostPeakMb = host.peakMb;
    const times = await runningExtensions(wb.page);
    figures.emptyMs = times.get(EMPTY_NAME);
    figures.ledgerMs = times.get('Context Ledger');
    if (kind === 'ledger' && withChat) figures.mcp = await mcpServer(wb.page, server.pid, workspace);
    return figures;
  } finally {
    await wb?.close();
    await server.stop();
  }
}

/** The MCP server VS Code runs for the workspace: started as an agent's first call starts it, then measured after a build. */
async function mcpServer(page, group, workspace) {
  const { askChat, clickChatButton, lastChatResponse, openChat, waitForChatConfirmation } = harness;
  await openChat(page);
  const offered = await askChat(page, '@e2eagent list tools', /Tools offered:/);
  const name = /mcp_[\w-]*_build_context/.exec(offered)?.[0];
  if (!name) throw new Error(`the MCP server's build_context is not among the chat's tools: ${offered}`);
  const first = await askChat(page, `@e2eagent call ${name} {"task":"Stop double bookings when the payment webhook is retried","paths":["src/payments/webhooks.ts"]}`, /answered:|confirmation pending/i);
  if (/confirmation pending/i.test(first)) {
    await waitForChatConfirmation(page, /build_context|Context Ledger/);
    await clickChatButton(page, 'Allow');
  }
  await waitFor(async () => (await lastChatResponse(page))?.text ?? '', (text) => /answered:/.test(text), `the answer of ${name}`, 120_000);
  const servers = processesOf(group).filter((p) => /cli\.js mcp/.test(p.cmdline));
  if (servers.length !== 1) throw new Error(`expected one MCP server process, found ${servers.length}`);
  const shared = ledgerServers(workspace);
  if (shared.length > 1) throw new Error(`expected at most one ledger server for the workspace, found ${shared.length}`);
  return { ...servers[0], shared: shared[0] };
}

/** The workspace's ledger server (`cli.js hook --serve`, detached: in a process group of its own), by its folder. */
function ledgerServers(workspace) {
  const real = fs.realpathSync(workspace);
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!/cli\.js\0hook\0--serve/.test(fs.readFileSync(`/proc/${name}/cmdline`, 'utf8')) || fs.realpathSync(`/proc/${name}/cwd`) !== real) continue;
      const status = fs.readFileSync(`/proc/${name}/status`, 'utf8');
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      found.push({ pid: Number(name), rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A Node process (the binary that runs the extension host and the MCP server) that does nothing: the floor of any child process. */
async function idleNode() {
  const child = spawn(CODE_SERVER_NODE, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await sleep(1000);
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  child.kill();
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)[1]) / 1024;
}

const results = [];
for (let i = 0; i < RUNS; i++) {
  for (const kind of ['floor', 'ledger']) {
    const figures = await session(kind, i);
    console.error(`startup ${kind} ${i + 1}/${RUNS}: ${JSON.stringify({ ...figures, mcp: figures.mcp && { rssMb: figures.mcp.rssMb, peakMb: figures.mcp.peakMb, shared: figures.mcp.shared && { rssMb: figures.mcp.shared.rssMb, peakMb: figures.mcp.shared.peakMb } } })}`);
    results.push(figures);
  }
}

const of = (kind, key) => results.filter((r) => r.kind === kind).map(key).filter((v) => typeof v === 'number');
const fmt = (n, unit) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n.toFixed(n < 10 ? 1 : 0)} ${unit}`);
const version = sh(CODE_SERVER_NODE, [harness.CODE_SERVER_ENTRY, '--version']).match(/with Code ([\d.]+)/)?.[1] ?? flavour;
const floorRss = median(of('floor', (r) => r.hostRssMb));
const ledgerRss = median(of('ledger', (r) => r.hostRssMb));
const rows = [
  [`activation of Context Ledger (code loading + activate, as Running Extensions shows it), median of ${RUNS}`, fmt(median(of('ledger', (r) => r.ledgerMs)), 'ms'), '≤ 50 ms'],
  [`floor: activation of an extension that does nothing, same event, same windows`, fmt(median(of('ledger', (r) => r.emptyMs)), 'ms'), ''],
  [`the extension's own log: \`activate()\` itself, median of ${RUNS}`, fmt(median(of('ledger', (r) => Number(r.ownLog))), 'ms'), ''],
  [`\`activate()\`'s parts: services and views / command tables / chat, tools, interop and inspector, median of ${RUNS}`,
    [0, 1, 2].map((i) => fmt(median(of('ledger', (r) => r.phases?.[i])), 'ms')).join(' / '), ''],
  [`the rest: loading the extension's code (the first figure less \`activate()\`, per run), median of ${RUNS}`, fmt(median(of('ledger', (r) => r.ledgerMs - Number(r.ownLog))), 'ms'), ''],
  [`workbench open to the meter showing the context's size, median of ${RUNS}`, fmt(median(of('ledger', (r) => r.meterMs)), 'ms'), ''],
  [`extension host resident memory with Context Ledger (meter shown, +${SETTLE_MS / 1000} s), median of ${RUNS}`, fmt(ledgerRss, 'MB'), ''],
  [`floor: extension host resident memory without it, median of ${RUNS}`, fmt(floorRss, 'MB'), ''],
  [`extension host memory added by Context Ledger`, `+${fmt(ledgerRss - floorRss, 'MB')}`, '≤ +30 MB'],
  [`the extension host at the first build, as the extension logs it: resident / JavaScript heap used (of reserved) / external (sql.js's memory among it), median of ${RUNS}`,
    `${fmt(median(of('ledger', (r) => r.firstBuild?.rssMb)), 'MB')} / ${fmt(median(of('ledger', (r) => r.firstBuild?.heapMb)), 'MB')} (of ${fmt(median(of('ledger', (r) => r.firstBuild?.heapTotalMb)), 'MB')}) / ${fmt(median(of('ledger', (r) => r.firstBuild?.externalMb)), 'MB')}`, ''],
  [`extension host peak resident memory with / without Context Ledger`, `${fmt(median(of('ledger', (r) => r.hostPeakMb)), 'MB')} / ${fmt(median(of('floor', (r) => r.hostPeakMb)), 'MB')}`, ''],
];
if (withChat) {
  rows.push([`MCP server VS Code starts from the extension, resident memory after a \`build_context\`, median of ${RUNS}`, fmt(median(of('ledger', (r) => r.mcp?.rssMb)), 'MB'), '≤ 80 MB']);
  rows.push([`MCP server peak resident memory, median of ${RUNS}`, fmt(median(of('ledger', (r) => r.mcp?.peakMb)), 'MB'), '']);
  rows.push([`floor: a Node process of the same binary that does nothing`, fmt(await idleNode(), 'MB'), '']);
  const shared = of('ledger', (r) => r.mcp?.shared?.rssMb);
  rows.push([
    `the workspace's ledger server that keeps the ledger for the MCP server (and for every other MCP server and hook on the workspace), resident / peak, median of ${RUNS}` +
      (shared.length < RUNS ? ` (found in ${shared.length} of ${RUNS} runs: the others kept the ledger in the MCP server itself)` : ''),
    `${fmt(median(shared), 'MB')} / ${fmt(median(of('ledger', (r) => r.mcp?.shared?.peakMb)), 'MB')}`,
    '',
  ]);
}

console.log(`\nStart-up in VS Code ${version} (code-server, packaged .vsix), workspace ledger of ${artifactCount.toLocaleString('en')} artifacts with its mirror; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log('| Measure | Figure | Target |');
console.log('| --- | --- | --- |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
if (!process.env.BENCH_KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.error(`kept ${work}`);
