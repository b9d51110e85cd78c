// Stages a runnable copy of the realbench harness (../shared/realbench): its scripts, a
// node_modules link for gpt-tokenizer, and a set of repositories with their tasks, units and
// grades. bench/devset/run.mjs stages this folder's repositories with it; bench/agentbench stages
// either set and imports the harness's scorer from the stage.
//
// The harness reads tasks.jsonl, units.jsonl and qrels.jsonl beside itself, hence the copy.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const PROJECT = path.resolve(HERE, '..', '..');

/** The realbench folder inside `shared`, or an error that says what to pass. */
export function harnessDir(shared) {
  const harness = path.join(shared, 'realbench');
  for (const f of ['realbench.mjs', 'make-units.mjs']) {
    if (!fs.existsSync(path.join(harness, f))) throw new Error(`${path.join(harness, f)} not found; pass --shared <the shared folder> (the one holding realbench/).`);
  }
  return harness;
}

/**
 * Fills `stage` with the harness and a set. With `repos` (a folder of per-repository folders,
 * each with files/, tasks.jsonl and qrels.jsonl, as bench/devset/repos): copies it (symlinks
 * kept), concatenates the tasks and grades, and makes units.jsonl with the harness's own
 * make-units.mjs. Without: realbench's own tasks, units and grades, its repos/ linked.
 * Returns the repository folder names.
 */
export function stageHarness({ shared, stage, repos }) {
  const harness = harnessDir(shared);
  fs.mkdirSync(stage, { recursive: true });
  for (const f of ['realbench.mjs', 'make-units.mjs', 'sanity.mjs', 'package.json']) {
    if (fs.existsSync(path.join(harness, f))) fs.copyFileSync(path.join(harness, f), path.join(stage, f));
  }
  // gpt-tokenizer is also the product's own dependency: the harness finds it in either place.
  const modules = [path.join(harness, 'node_modules'), path.join(PROJECT, 'node_modules')].find((d) => fs.existsSync(path.join(d, 'gpt-tokenizer')));
  if (!modules) throw new Error('gpt-tokenizer not installed; run `npm ci` in the project first.');
  fs.rmSync(path.join(stage, 'node_modules'), { recursive: true, force: true });
  fs.symlinkSync(modules, path.join(stage, 'node_modules'));

  const staged = path.join(stage, 'repos');
  fs.rmSync(staged, { recursive: true, force: true });
  if (!repos) {
    for (const f of ['tasks.jsonl', 'units.jsonl', 'qrels.jsonl']) fs.copyFileSync(path.join(harness, f), path.join(stage, f));
    fs.symlinkSync(path.join(harness, 'repos'), staged);
    return fs.readdirSync(staged).sort();
  }
  fs.cpSync(repos, staged, { recursive: true, verbatimSymlinks: true });
  const names = fs
    .readdirSync(staged, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const concat = (file) =>
    names
      .map((n) => path.join(staged, n, file))
      .filter((p) => fs.existsSync(p))
      .map((p) => fs.readFileSync(p, 'utf8').trim())
      .filter(Boolean)
      .join('\n') + '\n';
  fs.writeFileSync(path.join(stage, 'tasks.jsonl'), concat('tasks.jsonl'));
  fs.writeFileSync(path.join(stage, 'qrels.jsonl'), concat('qrels.jsonl'));
  const units = spawnSync(process.execPath, [path.join(stage, 'make-units.mjs'), '--repos', staged, '--out', path.join(stage, 'units.jsonl')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (units.status !== 0) throw new Error('make-units.mjs failed');
  return names;
}
