#!/usr/bin/env node
// Runs the realbench harness (../shared/realbench) on this folder's repositories: a third
// development set, from public repositories neither other set uses, with tasks from their real
// commits and grades written before the product was run on them (see README.md here).
//
// The harness reads tasks.jsonl, units.jsonl and qrels.jsonl beside itself, so this script stages
// a copy (stage.mjs): the harness scripts, this folder's repos/ (symlinks kept), the repositories'
// tasks and grades concatenated, and units.jsonl made by the harness's own make-units.mjs. Every
// other argument goes to the harness unchanged (--cli, --budgets, --tasks, --work, --json, --verbose).
//
// Usage (from the project root, after `npm run build`):
//   node bench/devset/run.mjs --cli "node dist/cli.js" [--shared ../shared] [--stage DIR] [harness options]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stageHarness } from './stage.mjs';

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
const stageArg = take('--stage', undefined);
// A stage of our own making is removed at the end; one the caller named is kept for inspection.
const stage = stageArg === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-devset-')) : path.resolve(stageArg);

let names;
try {
  names = stageHarness({ shared, stage, repos: path.join(HERE, 'repos') });
} catch (e) {
  console.error(`devset: ${e.message}`);
  process.exit(2);
}

console.error(`devset: ${names.length} repositories staged in ${stage}${stageArg === undefined ? ' (removed at the end; --stage DIR keeps it)' : ''}`);
const run = spawnSync(process.execPath, [path.join(stage, 'realbench.mjs'), ...args], { stdio: 'inherit' });
if (stageArg === undefined) fs.rmSync(stage, { recursive: true, force: true });
process.exit(run.status ?? 1);
