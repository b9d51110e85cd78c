#!/usr/bin/env node
// Runs the realbench harness (../shared/realbench) on this folder's repositories: a third
// development set, from public repositories neither other set uses, with tasks from their real
// commits and grades written before the product was run on them (see README.md here).
//
// The harness reads tasks.jsonl, units.jsonl and qrels.jsonl beside itself, so this script stages
// a copy: the harness scripts, this folder's repos/ (symlinks kept), the repositories' tasks and
// grades concatenated, and units.jsonl made by the harness's own make-units.mjs. Every other
// argument goes to the harness unchanged (--cli, --budgets, --tasks, --work, --json, --verbose).
//
// Usage (from the project root, after `npm run build`):
//   node bench/devset/run.mjs --cli "node dist/cli.js" [--shared ../shared] [--stage DIR] [harness options]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const PROJECT = path.resolve(HERE, '..', '..');

const args = process.argv.slice(2);
function take(name, dflt) {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
}
const shared = path.resolve(take('--shared', path.join(PROJECT, '..', 'shared')));
const harness = path.join(shared, 'realbench');
const stageArg = take('--stage', undefined);
// A stage of our own making is removed at the end; one the caller named is kept for inspection.
const stage = stageArg === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-devset-')) : path.resolve(stageArg);

for (const f of ['realbench.mjs', 'make-units.mjs']) {
  if (!fs.existsSync(path.join(harness, f))) {
    console.error(`devset: ${path.join(harness, f)} not found; pass --shared <the shared folder> (the one holding realbench/).`);
    process.exit(2);
  }
}

fs.mkdirSync(stage, { recursive: true });
for (const f of ['realbench.mjs', 'make-units.mjs', 'sanity.mjs', 'package.json']) {
  if (fs.existsSync(path.join(harness, f))) fs.copyFileSync(path.join(harness, f), path.join(stage, f));
}
// gpt-tokenizer is also the product's own dependency: the harness finds it in either place.
const modules = [path.join(harness, 'node_modules'), path.join(PROJECT, 'node_modules')].find((d) =>
  fs.existsSync(path.join(d, 'gpt-tokenizer')),
);
if (!modules) {
  console.error('devset: gpt-tokenizer not installed; run `npm ci` in the project first.');
  process.exit(2);
}
fs.rmSync(path.join(stage, 'node_modules'), { recursive: true, force: true });
fs.symlinkSync(modules, path.join(stage, 'node_modules'));

const repos = path.join(stage, 'repos');
fs.rmSync(repos, { recursive: true, force: true });
fs.cpSync(path.join(HERE, 'repos'), repos, { recursive: true, verbatimSymlinks: true });

const names = fs
  .readdirSync(repos, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const concat = (file) =>
  names
    .map((n) => path.join(repos, n, file))
    .filter((p) => fs.existsSync(p))
    .map((p) => fs.readFileSync(p, 'utf8').trim())
    .filter(Boolean)
    .join('\n') + '\n';
fs.writeFileSync(path.join(stage, 'tasks.jsonl'), concat('tasks.jsonl'));
fs.writeFileSync(path.join(stage, 'qrels.jsonl'), concat('qrels.jsonl'));

const node = process.execPath;
const units = spawnSync(node, [path.join(stage, 'make-units.mjs'), '--repos', repos, '--out', path.join(stage, 'units.jsonl')], {
  stdio: 'inherit',
});
if (units.status !== 0) process.exit(units.status ?? 1);

console.error(`devset: ${names.length} repositories staged in ${stage}${stageArg === undefined ? ' (removed at the end; --stage DIR keeps it)' : ''}`);
const run = spawnSync(node, [path.join(stage, 'realbench.mjs'), ...args], { stdio: 'inherit' });
if (stageArg === undefined) fs.rmSync(stage, { recursive: true, force: true });
process.exit(run.status ?? 1);
