import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { IMPORT_FORMATS } from '../../../src/core/formats/common';
import { TokenCounter } from '../../../src/core/tokens';
import { OutputFolder } from '../../../src/node/outputFolder';
import { renderInstructionsFile } from '../../../src/extension/instructionsFile';
import { cli, jsonOf } from '../helpers';
import { REAL, tempDir } from './shared';

interface Row {
  id: string;
  chainId: string;
  version: number;
  type: string;
  title: string;
  body: string;
  status: string;
  scope: string;
  paths: string[];
  tags: string[];
  pinned: boolean;
  supersedes: string | null;
  extra?: Record<string, unknown>;
}

function write(root: string, relative: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), content);
}

/** Latest version of every chain, every field (from the JSONL export). */
function rowsOf(args: string[], cwd: string): Row[] {
  const result = cli(['export', '--latest-only', ...args], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Row);
}

/** A workspace with its ledger at .context-ledger/ledger.db (commands run inside it, no --db). */
function workspace(): { dir: string; run: (args: string[]) => ReturnType<typeof cli>; list: () => Row[] } {
  const dir = tempDir();
  const run = (args: string[]) => cli(args, { cwd: dir });
  assert.equal(run(['init']).code, 0);
  return { dir, run, list: () => rowsOf([], dir) };
}

const ADR_1 = `---
status: accepted
date: 2025-03-01
tags: [storage]
---
# 1. Use SQLite for the ledger — ünïcode

## Context

We need one file.

## Decision

SQLite through sql.js. 日本語 too 🚀.
`;
const ADR_2 = `# 2. Move to Postgres

## Status

Accepted. Supersedes ADR-1

## Decision

Postgres for the team server.
`;

function comparable(rows: Row[]): unknown[] {
  return rows
    .map((r) => ({ chainId: r.chainId, type: r.type, title: r.title, body: r.body, status: r.status, scope: r.scope, paths: r.paths, tags: r.tags, pinned: r.pinned, supersedes: r.supersedes }))
    .sort((a, b) => (a.chainId < b.chainId ? -1 : 1));
}

describe('import --from, export --to, sync, which (CLI on real folders and databases)', () => {
  it('import --from reads one format from a folder or a single file; unknown formats are refused; --help names every format', () => {
    const ws = workspace();
    write(ws.dir, 'docs/adr/0001-use-sqlite.md', ADR_1);
    write(ws.dir, 'docs/adr/0002-move-to-postgres.md', ADR_2);
    write(ws.dir, 'notes/0003-loose-adr.md', '# 3. Loose ADR\n\n## Decision\n\nIt stands alone.\n');
    const folder = ws.run(['import', '--from', 'adr', 'docs/adr', '--format', 'json']);
    assert.equal(folder.code, 0, folder.stderr);
    const rows = ws.list();
    assert.equal(rows.length, 2);
    const sqlite = rows.find((r) => r.title.includes('SQLite'))!;
    assert.match(sqlite.title, /ünïcode/);
    assert.equal(sqlite.status, 'superseded');
    assert.equal(ws.run(['import', '--from', 'adr', 'notes/0003-loose-adr.md']).code, 0);
    assert.equal(ws.list().length, 3);
    // Idempotent: nothing changes the second time.
    const again = jsonOf<{ formats: { added: number; unchanged: number }[] }>(ws.run(['import', '--from', 'adr', 'docs/adr', '--format', 'json']));
    assert.deepEqual([again.formats[0]!.added, again.formats[0]!.unchanged], [0, 2]);

    const bad = ws.run(['import', '--from', 'word', 'docs/adr']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Unknown format "word"/);
    assert.match(ws.run(['import', '--from', 'ctx', 'nowhere']).stderr, /Not found/);
    const help = ws.run(['import', '--help']).stdout;
    for (const format of IMPORT_FORMATS) assert.ok(help.includes(format), format);
  });

  it('round trip: import -> mirror (sync) -> a fresh ledger from the mirror gives the same artifacts', () => {
    const ws = workspace();
    write(ws.dir, 'docs/adr/0001-use-sqlite.md', ADR_1);
    write(ws.dir, 'docs/adr/0002-move-to-postgres.md', ADR_2);
    write(ws.dir, '.github/instructions/api.instructions.md', '---\napplyTo: "src/api/**"\n---\n# API\n\nValidate every input with zod.\n');
    assert.equal(ws.run(['import-folder']).code, 0);
    // A fresh clone: the workspace's files (the artifact files, the knowledge files they link) and no database.
    const second = tempDir();
    fs.cpSync(ws.dir, second, { recursive: true });
    for (const local of fs.readdirSync(path.join(second, '.context-ledger'))) if (local.startsWith('ledger.db')) fs.rmSync(path.join(second, '.context-ledger', local));
    const result = cli(['sync'], { cwd: second });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const fromMirror = rowsOf([], second);
    assert.deepEqual(comparable(fromMirror), comparable(ws.list()));
    // Rule files exported from it are marked generated and never imported back as knowledge.
    assert.equal(ws.run(['export', '--to', 'copilot']).code, 0);
    const reimport = jsonOf<{ formats: { format: string; added: number; skipped: { reason: string }[] }[] }>(ws.run(['import', '--from', 'copilot', '.github', '--format', 'json']));
    assert.equal(reimport.formats[0]!.added, 0);
    assert.ok(reimport.formats[0]!.skipped.some((s) => /generated by Context Ledger/.test(s.reason)));
  });

  it('export --to writes generated, budgeted rule files under its folder and never clobbers a hand-written one', async () => {
    const ws = workspace();
    // Eight different long rules (the same text twice would be written once).
    const long = (i: number): string => Array.from({ length: 60 }, (_, k) => `Retry class ${i}.${k} backs off exponentially with jitter; never retry a 4xx.`).join(' ');
    for (let i = 0; i < 8; i++) {
      assert.equal(ws.run(['add', '--type', 'convention', '--scope', 'path', '--path', 'src/api/**', '--title', `API rule ${i} — ü`, '--body', long(i)]).code, 0);
    }
    assert.equal(ws.run(['add', '--type', 'decision', '--title', 'Use SQLite 日本', '--body', 'One file.']).code, 0);
    const counter = await TokenCounter.load('o200k_base');
    for (const target of ['copilot', 'cursor', 'agents']) {
      const out = path.join(ws.dir, 'out', target);
      const result = ws.run(['export', '--to', target, '--out', out, '--budget', '1500', '--format', 'json']);
      assert.equal(result.code, 0, result.stderr);
      const report = jsonOf<{ files: { path: string; tokens: number; dropped: number }[] }>(result);
      assert.ok(report.files.length >= 1);
      for (const file of report.files) {
        const text = fs.readFileSync(path.join(out, file.path), 'utf8');
        assert.match(text, /Generated by Context Ledger/);
        assert.ok(counter.count(text) <= 1500, `${file.path}: ${counter.count(text)} tokens`);
      }
      // The long path rules do not fit one 1500-token file: more files, nothing dropped.
      assert.ok(report.files.length > 1, JSON.stringify(report.files));
      const written = report.files.map((f) => fs.readFileSync(path.join(out, f.path), 'utf8')).join('\n');
      for (let i = 0; i < 8; i++) assert.match(written, new RegExp(`API rule ${i} — ü`), `${target}: rule ${i}`);
    }
    assert.match(fs.readFileSync(path.join(ws.dir, 'out/copilot/.github/instructions/context-ledger-global.instructions.md'), 'utf8'), /applyTo: "\*\*"/);
    assert.match(fs.readFileSync(path.join(ws.dir, 'out/cursor/.cursor/rules/context-ledger-global.mdc'), 'utf8'), /alwaysApply: true/);

    // A hand-written AGENTS.md is left exactly as it was; the command says so and fails.
    write(ws.dir, 'AGENTS.md', '# Our own rules\n');
    const refused = ws.run(['export', '--to', 'agents']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused to overwrite AGENTS\.md/);
    assert.equal(fs.readFileSync(path.join(ws.dir, 'AGENTS.md'), 'utf8'), '# Our own rules\n');

    // A file of an earlier export that is no longer produced is removed; the user's own files stay.
    assert.equal(ws.run(['export', '--to', 'copilot']).code, 0);
    write(ws.dir, '.github/instructions/mine.instructions.md', '---\napplyTo: "**"\n---\nMine.\n');
    const before = fs.readdirSync(path.join(ws.dir, '.github/instructions')).sort();
    assert.ok(before.some((f) => f.startsWith('context-ledger-src-api')));
    for (const row of ws.list().filter((r) => r.scope === 'path')) ws.run(['archive', row.id]);
    assert.equal(ws.run(['export', '--to', 'copilot']).code, 0);
    assert.deepEqual(fs.readdirSync(path.join(ws.dir, '.github/instructions')).sort(), ['context-ledger-global.instructions.md', 'mine.instructions.md']);

    // Agent-written knowledge no person approved stays out of the rule files agents obey.
    write(ws.dir, 'agent.jsonl', `${JSON.stringify({ id: 'u1', type: 'decision', title: 'Agent idea: drop tests', body: 'b', review: 'unreviewed' })}\n`);
    assert.equal(ws.run(['import', 'agent.jsonl']).code, 0);
    const withAgent = ws.run(['export', '--to', 'cursor', '--out', path.join(ws.dir, 'out', 'c2')]);
    assert.match(withAgent.stdout, /1 unreviewed artifact left out/);
    assert.doesNotMatch(fs.readFileSync(path.join(ws.dir, 'out/c2/.cursor/rules/context-ledger-global.mdc'), 'utf8'), /Agent idea/);
    // A budget no file could fit in is a clear error, and nothing is written.
    assert.match(ws.run(['export', '--to', 'cursor', '--out', path.join(ws.dir, 'out', 'c3'), '--budget', '50']).stderr, /--budget must be between 100/);
    assert.ok(!fs.existsSync(path.join(ws.dir, 'out', 'c3', '.cursor')));
  });

  it('export --to refuses a folder that leads outside through a link, and OutputFolder refuses escaping paths', () => {
    const ws = workspace();
    ws.run(['add', '--type', 'decision', '--title', 'T', '--body', 'b']);
    const outside = tempDir('ledger-outside-');
    const out = path.join(ws.dir, 'out');
    fs.mkdirSync(out);
    fs.symlinkSync(outside, path.join(out, '.github'));
    const result = ws.run(['export', '--to', 'copilot', '--out', out]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /link to outside/);
    assert.deepEqual(fs.readdirSync(outside), []);

    const folder = new OutputFolder(path.join(ws.dir, 'safe'));
    for (const bad of ['../x.md', '/etc/passwd', 'a/../../x.md', 'C:\\x.md', '']) assert.throws(() => folder.write(bad, 'x'), /outside|Refused/, bad);
    folder.write('a/b/ü 日本.md', 'ok');
    assert.equal(fs.readFileSync(path.join(ws.dir, 'safe', 'a', 'b', 'ü 日本.md'), 'utf8'), 'ok');
  });

  it('sync: new file -> artifact, edited file -> new version, deleted file -> archived, ledger change -> file; nothing lost on conflicts', () => {
    const ws = workspace();
    const A = path.join(ws.dir, '.context-ledger', 'artifacts');
    ws.run(['add', '--type', 'decision', '--title', 'Use SQLite 日本', '--body', 'Because one file.', '--id', 'd1']);
    ws.run(['add', '--type', 'convention', '--title', 'Tabs — never', '--body', 'Two spaces.', '--id', 'c1']);
    ws.run(['add', '--type', 'note', '--title', 'Delete me', '--body', 'x', '--id', 'n1']);
    const first = ws.run(['sync', '--format', 'json']);
    assert.equal(first.code, 0, first.stderr);
    const files = fs.readdirSync(A, { recursive: true }).map(String).filter((f) => f.endsWith('.md')).sort();
    assert.deepEqual(files, ['convention/tabs-never.md', 'decision/use-sqlite.md', 'note/delete-me.md']);

    // Empty second sync: nothing to do.
    const idle = jsonOf<{ written: string[]; added: string[] }>(ws.run(['sync', '--format', 'json']));
    assert.deepEqual([idle.written, idle.added], [[], []]);

    fs.writeFileSync(path.join(A, 'decision/use-sqlite.md'), fs.readFileSync(path.join(A, 'decision/use-sqlite.md'), 'utf8').replace('Because one file.', 'Because one file, no server.'));
    fs.rmSync(path.join(A, 'note/delete-me.md'));
    write(A, 'learning/new.md', '---\ntype: learning\ntitle: "Émoji 🚀 keep"\ntags: [a, b]\n---\n\nLearned it.\n');
    const second = jsonOf<{ added: string[]; updated: string[]; archived: string[] }>(ws.run(['sync', '--format', 'json']));
    assert.equal(second.added.length, 1);
    assert.deepEqual(second.archived, ['n1']);
    const rows = ws.list();
    const d1 = rows.find((r) => r.chainId === 'd1')!;
    assert.deepEqual([d1.version, d1.body], [2, 'Because one file, no server.']);
    assert.equal(rows.find((r) => r.chainId === 'n1')!.status, 'archived');
    const learned = rows.find((r) => r.type === 'learning')!;
    assert.deepEqual([learned.title, learned.tags], ['Émoji 🚀 keep', ['a', 'b']]);
    // The new file now carries its id, so the next sync matches it.
    assert.match(fs.readFileSync(path.join(A, 'learning/new.md'), 'utf8'), new RegExp(`id: "${learned.id}"`));
    assert.ok(!fs.existsSync(path.join(A, 'note/delete-me.md')), 'an archived chain whose file was deleted stays deleted');

    // Changed in the ledger only: the file follows.
    ws.run(['update', 'c1', '--body', 'Two spaces, always.']);
    ws.run(['sync']);
    assert.match(fs.readFileSync(path.join(A, 'convention/tabs-never.md'), 'utf8'), /Two spaces, always\./);

    // Every CLI write updates the mirror at once, so both sides change only through git: a file with conflict markers
    // is reported and not imported (the ledger keeps its version) until a person picks a side.
    ws.run(['update', 'd1', '--body', 'Ledger side.']);
    const mine = fs.readFileSync(path.join(A, 'decision/use-sqlite.md'), 'utf8');
    const marked = mine.replace(/\n\nLedger side\.\n$/, '\n\n<<<<<<< HEAD\nLedger side.\n=======\nFile side.\n>>>>>>> theirs\n');
    assert.notEqual(marked, mine);
    fs.writeFileSync(path.join(A, 'decision/use-sqlite.md'), marked);
    const conflict = ws.run(['sync', '--format', 'json']);
    assert.equal(conflict.code, 1);
    const report = jsonOf<{ conflicts: { path: string; note: string }[] }>(conflict);
    assert.deepEqual(report.conflicts.map((c) => c.path), ['decision/use-sqlite.md']);
    assert.match(report.conflicts[0]!.note, /conflict markers/);
    assert.equal(fs.readFileSync(path.join(A, 'decision/use-sqlite.md'), 'utf8'), marked, 'the marked file is left alone');
    assert.equal(ws.list().find((r) => r.chainId === 'd1')!.body, 'Ledger side.');
    assert.match(ws.run(['build', '--task-title', 'sqlite']).stderr, /CONFLICT decision\/use-sqlite\.md/, 'every command says so');
    assert.match(ws.run(['resolve']).stdout, /d1 {2}git conflict markers/);
    const resolved = ws.run(['resolve', 'd1', '--keep', 'theirs']);
    assert.equal(resolved.code, 0, resolved.stderr);
    const versions = jsonOf<Row[]>(ws.run(['history', 'd1', '--format', 'json']));
    assert.deepEqual(versions.slice(-2).map((v) => v.body), ['Ledger side.', 'File side.'], 'both sides are versions, theirs on top');
    assert.doesNotMatch(fs.readFileSync(path.join(A, 'decision/use-sqlite.md'), 'utf8'), /<<<<<<<|Ledger side/);
    assert.equal(ws.run(['sync']).code, 0, 'resolved: the next sync is clean');
    assert.equal(ws.run(['resolve']).stdout.trim(), 'No conflicts.');

    // Deleted in the file, then changed in the ledger: the command sees the deletion first (archived) and tells the
    // writer, whose edit was made without knowing; made again, it writes the file again.
    fs.rmSync(path.join(A, 'convention/tabs-never.md'));
    const told = ws.run(['update', 'c1', '--body', 'Three spaces?']);
    assert.equal(told.code, 1);
    assert.match(told.stderr, /from the artifact files: 0 added, 0 updated, 1 archived/);
    assert.match(told.stderr, /tabs-never\.md was changed or deleted on disk/);
    assert.ok(!fs.existsSync(path.join(A, 'convention/tabs-never.md')), 'nothing written over the deletion');
    const edited = ws.run(['update', 'c1', '--body', 'Three spaces?']);
    assert.equal(edited.code, 0, edited.stderr);
    assert.match(fs.readFileSync(path.join(A, 'convention/tabs-never.md'), 'utf8'), /Three spaces\?[^]*|status: "archived"/);
    assert.equal(ws.list().find((r) => r.chainId === 'c1')!.status, 'archived');

    // Deleted for good in the ledger: its unchanged file goes too.
    ws.run(['delete', 'c1']);
    assert.equal(ws.run(['sync']).code, 0);
    assert.ok(!fs.existsSync(path.join(A, 'convention/tabs-never.md')));
  });

  it('sync leaves a malformed, binary or duplicate file alone and says so; a moved file keeps its chain', () => {
    const ws = workspace();
    const A = path.join(ws.dir, '.context-ledger', 'artifacts');
    ws.run(['add', '--type', 'decision', '--title', 'Keep', '--body', 'safe', '--id', 'k1']);
    ws.run(['sync']);
    const original = fs.readFileSync(path.join(A, 'decision/keep.md'), 'utf8');
    fs.writeFileSync(path.join(A, 'decision/keep.md'), '---\ntitle: [broken\n---\nx\n');
    write(A, 'note/binary.md', '\u0000\u0001binary');
    const result = ws.run(['sync', '--format', 'json']);
    assert.equal(result.code, 1);
    const report = jsonOf<{ problems: { path: string; message: string }[]; archived: string[]; written: string[] }>(result);
    assert.deepEqual(report.problems.map((p) => p.path).sort(), ['decision/keep.md', 'note/binary.md']);
    assert.deepEqual([report.archived, report.written], [[], []]);
    assert.equal(fs.readFileSync(path.join(A, 'decision/keep.md'), 'utf8'), '---\ntitle: [broken\n---\nx\n', 'the broken file is not overwritten');
    assert.equal(ws.list().find((r) => r.chainId === 'k1')!.status, 'active');

    fs.writeFileSync(path.join(A, 'decision/keep.md'), original);
    fs.rmSync(path.join(A, 'note/binary.md'));
    fs.renameSync(path.join(A, 'decision/keep.md'), path.join(A, 'decision/renamed.md'));
    fs.copyFileSync(path.join(A, 'decision/renamed.md'), path.join(A, 'decision/copy.md'));
    const moved = jsonOf<{ archived: string[]; added: string[]; problems: { path: string }[] }>(ws.run(['sync', '--format', 'json']));
    assert.deepEqual([moved.archived, moved.added], [[], []]);
    assert.deepEqual(moved.problems.map((p) => p.path), ['decision/renamed.md']);
    assert.equal(ws.list().length, 1);
  });

  it('which: artifacts and rule files that apply to a path, and glob mistakes', () => {
    const ws = workspace();
    write(ws.dir, 'src/api/users.ts', 'x');
    write(ws.dir, 'web/app.tsx', 'x');
    write(ws.dir, '.github/copilot-instructions.md', '# Global\n\nBe brief.\n');
    write(ws.dir, '.github/instructions/api.instructions.md', '---\napplyTo: "src/api/**, test/**"\n---\nValidate.\n');
    write(ws.dir, '.github/instructions/list.instructions.md', '---\napplyTo:\n  - "web/**"\n---\nReact.\n');
    write(ws.dir, '.cursor/rules/ts.mdc', '---\ndescription: TypeScript style\nglobs: src/**/*.ts\nalwaysApply: false\n---\nStrict.\n');
    write(ws.dir, '.cursor/rules/docs.mdc', '---\ndescription: Docs style\nglobs: docs/**/*.md\n---\nShort.\n');
    write(ws.dir, '.cursor/rules/always.mdc', '---\ndescription: House style\nglobs: []\nalwaysApply: true\n---\nBe kind.\n');
    write(ws.dir, '.claude/rules/api.md', '---\npaths: ["src/api/**"]\n---\nClaude API rule.\n');
    write(ws.dir, 'CLAUDE.md', '# Claude\n\nHi.\n');
    write(ws.dir, 'src/AGENTS.md', '# Src agents\n\nHi.\n');
    ws.run(['add', '--type', 'module_memory', '--scope', 'path', '--path', 'src/api/**', '--title', 'Users API — ü', '--body', 'b', '--id', 'm1']);
    ws.run(['add', '--type', 'module_memory', '--scope', 'path', '--path', 'nothing/here/**', '--title', 'Gone', '--body', 'b', '--id', 'm2']);
    ws.run(['add', '--type', 'decision', '--title', 'Global', '--body', 'b', '--pinned']);
    const result = ws.run(['which', 'src/api/users.ts', '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const report = jsonOf<{ artifacts: { path: { id: string }[]; global: number; pinned: number }; rules: { path: string; fires: boolean }[]; problems: { where: string; problem: string }[] }>(result);
    assert.deepEqual(report.artifacts.path.map((a) => a.id), ['m1']);
    assert.deepEqual([report.artifacts.global, report.artifacts.pinned], [1, 1]);
    const fired = Object.fromEntries(report.rules.map((r) => [r.path, r.fires]));
    assert.deepEqual(fired, {
      '.claude/rules/api.md': true,
      '.cursor/rules/always.mdc': true,
      '.cursor/rules/docs.mdc': false,
      '.cursor/rules/ts.mdc': true,
      '.github/copilot-instructions.md': true,
      '.github/instructions/api.instructions.md': true,
      '.github/instructions/list.instructions.md': false,
      'CLAUDE.md': true,
      'src/AGENTS.md': true,
    });
    const problems = report.problems.map((p) => `${p.where}: ${p.problem}`).join('\n');
    assert.match(problems, /api\.instructions\.md: .*space after a comma/);
    assert.match(problems, /list\.instructions\.md: is a YAML list/);
    assert.match(problems, /docs\.mdc: "docs\/\*\*\/\*\.md" matches no file/);
    assert.doesNotMatch(problems, /ts\.mdc|always\.mdc/, 'a right glob string and an empty list are fine');
    // A ledger artifact for other paths is not this file's business: counted, listed by --lint.
    assert.doesNotMatch(problems, /ledger:m2/);
    const lint = jsonOf<{ problems: { where: string; problem: string }[] }>(ws.run(['which', '--lint', '--format', 'json']));
    assert.ok(lint.problems.some((p) => p.where === 'ledger:m2' && /matches no file/.test(p.problem)), JSON.stringify(lint));
    // Copilot reads applyTo only as a string: a YAML list never attaches the file, whatever the path.
    const text = ws.run(['which', 'web/app.tsx']);
    assert.match(text.stdout, /silent +\.github\/instructions\/list\.instructions\.md/);
    const outside = ws.run(['which', '../elsewhere.ts']);
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /outside the workspace/);
  });

  it('which: the files Context Ledger wrote (an export, the auto-injected instructions file) are said to be generated; a hand-written one is not', () => {
    const ws = workspace();
    write(ws.dir, 'src/api/users.ts', 'x');
    write(ws.dir, '.github/instructions/api.instructions.md', '---\napplyTo: "src/**"\n---\nHand-written: generated code lives in gen/.\n');
    ws.run(['add', '--type', 'decision', '--title', 'Use zod', '--body', 'Validate every input with zod.']);
    assert.equal(ws.run(['export', '--to', 'copilot']).code, 0);
    // The extension's auto-inject file, as it writes it (its marker says "generated", lower case).
    write(ws.dir, '.github/instructions/context-ledger.instructions.md', renderInstructionsFile('## Decisions\n\nUse zod.', { paths: ['src/api/users.ts'], tokensUsed: 9, budget: 8000 }));
    const result = ws.run(['which', 'src/api/users.ts', '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const rules = jsonOf<{ rules: { path: string; fires: boolean; why: string }[] }>(result).rules;
    const generated = Object.fromEntries(rules.map((r) => [r.path, r.why.endsWith(' (generated by Context Ledger)')]));
    assert.deepEqual(generated, {
      '.github/instructions/api.instructions.md': false,
      '.github/instructions/context-ledger-global.instructions.md': true,
      '.github/instructions/context-ledger.instructions.md': true,
    });
  });

  it('works on the real fixtures: import ctx and ADRs, export them to each agent format, mirror and sync back', () => {
    const ws = workspace();
    for (const name of ['ctx-repo', 'subcog-repo']) fs.cpSync(path.join(REAL, name), path.join(ws.dir, name), { recursive: true });
    for (const file of fs.readdirSync(ws.dir, { recursive: true, withFileTypes: true })) {
      fs.chmodSync(path.join(file.parentPath, file.name), file.isDirectory() ? 0o755 : 0o644);
    }
    assert.equal(ws.run(['import', '--from', 'ctx', 'ctx-repo/.context']).code, 0);
    assert.equal(ws.run(['import', '--from', 'adr', 'subcog-repo/docs/adrs']).code, 0);
    const count = ws.list().length;
    assert.ok(count > 60, String(count));
    for (const target of ['copilot', 'cursor', 'agents']) assert.equal(ws.run(['export', '--to', target, '--out', path.join(ws.dir, 'out')]).code, 0, target);
    assert.equal(ws.run(['sync']).code, 0);
    assert.equal(ws.run(['sync', '--format', 'json']).code, 0);
    const fresh = tempDir();
    fs.cpSync(path.join(ws.dir, '.context-ledger', 'artifacts'), path.join(fresh, '.context-ledger', 'artifacts'), { recursive: true });
    const back = cli(['sync'], { cwd: fresh });
    assert.equal(back.code, 0, back.stdout);
    assert.equal(jsonOf<Row[]>(cli(['list', '--format', 'json'], { cwd: fresh })).length, count);
    assert.equal(ws.run(['which', 'subcog-repo/src/main.rs']).code, 0);
  });
});
