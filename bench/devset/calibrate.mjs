#!/usr/bin/env node
// How often is a candidate of a given score what the task needed? Reads the workspaces a
// realbench-harness run left (`--work`), asks the product to explain each task's build at a
// budget where every candidate is in, maps each artifact to the graded units it holds (the
// harness's own mapping), and reports, for standing rules (conventions) and records apart, the
// share of candidates holding a unit graded 1 or 2 per score bin, against the packer's curve.
// For rules it fits the logistic 1 / (1 + e^(-slope (score - midpoint))) by maximum likelihood,
// over all the sets given and with each repository left out in turn (docs/benchmarks.md), and the
// same for the rules a tool loads for every file (`alwaysOnWorth` in src/core/assemble/options.ts:
// the packer's floor for them where records compete). Leave-one-repository-out: each repository's
// rules are scored by the curve fitted on the other repositories' rules, so the figure on it says
// how the fit does on a repository it did not see.
//
// Usage (after `npm run build`, from the project root):
//   node bench/devset/run.mjs --cli "node dist/cli.js" --stage /tmp/dev --work /tmp/dev-work
//   node ../shared/realbench/realbench.mjs --cli "node dist/cli.js" --work /tmp/rb-work
//   node bench/devset/calibrate.mjs --cli dist/cli.js --set /tmp/dev:/tmp/dev-work --set ../shared/realbench:/tmp/rb-work
// A harness folder must find gpt-tokenizer (its own `npm install`, or a stage as stage.mjs makes).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const sets = [];
let cli = 'dist/cli.js';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cli') cli = path.resolve(args[++i]);
  else if (args[i] === '--set') sets.push(args[++i].split(':').map((p) => path.resolve(p)));
  else {
    console.error(`calibrate: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (sets.length === 0) {
  console.error('calibrate: give at least one --set <harness folder>:<its --work folder>');
  process.exit(2);
}

const rows = [];
for (const [harness, work] of sets) {
  const rb = await import(path.join(harness, 'realbench.mjs'));
  const { tasks, qrels, byRepo } = rb.loadBench({ repos: path.join(harness, 'repos') });
  for (const t of tasks) {
    const dir = path.join(work, t.id, 'repo');
    if (!fs.existsSync(dir)) continue;
    const latest = new Map();
    for (const a of rb.loadJsonl(path.join(work, t.id, 'artifacts.jsonl'))) latest.set(a.chainId ?? a.id, a);
    const holds = rb.mapArtifacts([...latest.values()], byRepo.get(t.repo)).contains;
    const grade = new Map(qrels.filter((q) => q.task === t.id).map((q) => [q.unit, q.grade]));
    const explain = ['explain', '--db', '.context-ledger/ledger.db', '--task-title', t.title, '--task-description', t.description, '--budget', '1000000', '--now', t.now, '--no-log', '--format', 'json'];
    for (const p of t.paths) explain.push('--path', p);
    const result = JSON.parse(execFileSync(process.execPath, [cli, ...explain], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 }));
    for (const item of result.items) {
      const held = holds.get(item.id) ?? [];
      rows.push({
        repo: t.repo,
        type: item.type,
        score: item.score,
        inScope: item.components.path > 0,
        alwaysOn: /loaded by its tool for every file/.test(item.reason),
        needed: held.some((u) => (grade.get(u) ?? 0) > 0),
      });
    }
  }
}

const logistic = (slope, midpoint) => (s) => 1 / (1 + Math.exp(-slope * (s - midpoint)));
const STEEP = logistic(8, 1);
const BINS = [-Infinity, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2, Infinity];
function table(name, data) {
  console.log(`${name}: ${data.length} candidates, ${data.filter((r) => r.needed).length} holding a needed unit`);
  for (let i = 0; i + 1 < BINS.length; i++) {
    const bin = data.filter((r) => r.score >= BINS[i] && r.score < BINS[i + 1]);
    if (bin.length === 0) continue;
    const needed = bin.filter((r) => r.needed).length / bin.length;
    const steep = bin.reduce((s, r) => s + STEEP(r.score), 0) / bin.length;
    console.log(`  score ${String(BINS[i]).padStart(9)} .. ${String(BINS[i + 1]).padEnd(9)} n ${String(bin.length).padStart(4)}  needed ${needed.toFixed(2)}  steep curve ${steep.toFixed(3)}`);
  }
}
function logLikelihood(data, f) {
  return data.reduce((sum, r) => {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, f(r.score)));
    return sum + Math.log(r.needed ? p : 1 - p);
  }, 0);
}
function fit(data) {
  let best = { ll: -Infinity, slope: 0, midpoint: 0 };
  for (let slope = 0.25; slope <= 12; slope += 0.25) {
    for (let midpoint = -0.5; midpoint <= 3; midpoint += 0.025) {
      const ll = logLikelihood(data, logistic(slope, midpoint));
      if (ll > best.ll) best = { ll, slope, midpoint };
    }
  }
  return best;
}

table('records', rows.filter((r) => r.type !== 'convention'));
function fitted(name, data) {
  table(name, data);
  const all = fit(data);
  console.log(`${name}, fitted: slope ${all.slope}, midpoint ${all.midpoint.toFixed(3)} (log-likelihood ${all.ll.toFixed(1)}; the steep curve ${logLikelihood(data, STEEP).toFixed(1)})`);
  let heldOut = 0;
  let heldOutSteep = 0;
  for (const repo of [...new Set(data.map((r) => r.repo))]) {
    const f = fit(data.filter((r) => r.repo !== repo));
    const out = data.filter((r) => r.repo === repo);
    const ll = logLikelihood(out, logistic(f.slope, f.midpoint));
    heldOut += ll;
    heldOutSteep += logLikelihood(out, STEEP);
    console.log(`  without ${repo.padEnd(30)} slope ${f.slope}, midpoint ${f.midpoint.toFixed(3)}; on it: log-likelihood ${ll.toFixed(1)}, steep curve ${logLikelihood(out, STEEP).toFixed(1)}`);
  }
  console.log(`  left-out folds together: log-likelihood ${heldOut.toFixed(1)}, steep curve ${heldOutSteep.toFixed(1)}`);
}
fitted('standing rules in scope', rows.filter((r) => r.type === 'convention' && r.inScope));
fitted('rules loaded for every file', rows.filter((r) => r.type === 'convention' && r.alwaysOn));
