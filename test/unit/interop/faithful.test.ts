/**
 * The ledger as a faithful view of the files a team keeps (issue 18), on real files from
 * public repositories (test/unit/fixtures/real, see its SOURCES.md): re-import compares
 * with the source and undoes nothing a person did; each tool's own semantics; the same
 * file reached twice is one artifact.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { TokenCounter } from '../../../src/core/tokens';
import { type ArtifactJson, cli, jsonOf, ROOT } from '../helpers';
import { tempDir } from './shared';

const FIXTURES = path.join(ROOT, 'test', 'unit', 'fixtures', 'real');

interface Change {
  id: string;
  title: string;
  file: string;
  outcome: string;
  reason: string;
}
interface FormatCounts {
  format: string;
  added: number;
  updated: number;
  unchanged: number;
  detached: number;
  removed: number;
  changes: Change[];
  skipped: { where: string; reason: string }[];
}
interface Report {
  formats: FormatCounts[];
}
/** A workspace holding copies of the named fixture folders, merged. */
function workspace(...names: string[]): string {
  const dir = tempDir('ledger-faithful-');
  for (const name of names) fs.cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  fs.mkdirSync(path.join(dir, '.context-ledger'));
  return dir;
}

function run(cwd: string, ...args: string[]): string {
  const result = cli([...args, '--db', '.context-ledger/ledger.db'], { cwd });
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function importJson(cwd: string, ...args: string[]): Report {
  const result = cli(['import-folder', '--db', '.context-ledger/ledger.db', '--format', 'json', ...args], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return jsonOf<Report>(result);
}

function changesOf(report: Report): Change[] {
  return report.formats.flatMap((f) => f.changes ?? []);
}

/** The latest version of every chain, bodies included (the JSONL export). */
/**
 * The ledger's bytes on disk (database and journal), to show a dry run or a status wrote
 * nothing: any other command would first follow the knowledge files that changed.
 */
function ledgerBytes(cwd: string): Buffer[] {
  const db = path.join(cwd, '.context-ledger', 'ledger.db');
  return [db, `${db}.journal`].map((file) => (fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0)));
}

function latest(cwd: string): ArtifactJson[] {
  const result = cli(['export', '--db', '.context-ledger/ledger.db', '--format', 'jsonl', '--latest-only'], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ArtifactJson);
}

/** The latest version of the chain of `id`, as `show` gives it (extra included). */
function artifact(cwd: string, id: string): ArtifactJson {
  const found = latest(cwd).find((a) => a.chainId === id || a.id === id);
  assert.ok(found, `no artifact ${id} in ${latest(cwd).map((a) => a.id).join(', ')}`);
  return jsonOf<ArtifactJson>(cli(['show', found.id, '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd }));
}

function edit(file: string, change: (text: string) => string): void {
  const before = fs.readFileSync(file, 'utf8');
  const after = change(before);
  assert.notEqual(after, before, `the edit of ${file} changed nothing`);
  fs.writeFileSync(file, after);
}

describe('linked sources: re-import compares with the source and undoes nothing', () => {
  it('import, pin/archive/edit, re-import, sync, re-import: loses nothing, undoes nothing; changed sources flow in', () => {
    const dir = workspace('hyades', 'cline');
    const first = importJson(dir);
    assert.ok(first.formats.every((f) => f.updated === 0 && f.unchanged === 0));
    // The sections that hold the end of each rule file (where the upstream change below lands).
    const endOf = (file: string): ArtifactJson | undefined => {
      const last = fs.readFileSync(path.join(dir, file), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line.length > 25).pop()!;
      return latest(dir).find((a) => a.source === `import:cline:${file}` && a.body.includes(last));
    };
    const network = endOf('.clinerules/network.md')!;
    const storage = endOf('.clinerules/storage.md')!;
    assert.ok(network && storage, 'both Cline rules imported');

    // What a person does in the ledger.
    run(dir, 'pin', 'adr-0007');
    run(dir, 'archive', network.chainId);
    run(dir, 'update', storage.chainId, '--body', 'Our own wording of the storage rule.');
    run(dir, 'sync');
    const mirror = path.join(dir, '.context-ledger', 'artifacts');
    const adr8File = fs.readdirSync(mirror, { recursive: true, withFileTypes: true }).find((f) => f.isFile() && fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes('adr-0008'))!;
    edit(path.join(adr8File.parentPath, adr8File.name), (text) => `${text.trimEnd()}\n\nEdited through the mirror.\n`);
    run(dir, 'sync');

    // Re-import with the sources unchanged: nothing changes, nothing is undone.
    for (let round = 0; round < 2; round++) {
      const again = importJson(dir);
      assert.deepEqual(changesOf(again), [], `round ${round}: ${JSON.stringify(changesOf(again))}`);
      assert.ok(again.formats.every((f) => f.added === 0 && f.updated === 0));
      assert.equal(artifact(dir, 'adr-0007').pinned, true);
      assert.equal(artifact(dir, network.chainId).status, 'archived');
      assert.equal(artifact(dir, storage.chainId).body, 'Our own wording of the storage rule.');
      assert.match(artifact(dir, 'adr-0008').body, /Edited through the mirror\./);
      run(dir, 'sync');
    }

    // The sources change: the ADR is deprecated in its metadata table, both rules get a line.
    const decisions = path.join(dir, 'docs', 'architecture', 'decisions');
    edit(path.join(decisions, '007-spec-first-rest-api-v2.md'), (text) => text.replace('| Accepted | 2025-06-11 |', '| Deprecated | 2025-06-11 |'));
    edit(path.join(dir, '.clinerules', 'network.md'), (text) => `${text.trimEnd()}\n\nA line added upstream.\n`);
    edit(path.join(dir, '.clinerules', 'storage.md'), (text) => `${text.trimEnd()}\n\nA line added upstream.\n`);

    // A dry run names every entry it would change, and why; it writes nothing.
    const before = ledgerBytes(dir);
    const dry = jsonOf<Report>(cli(['import-folder', '--db', '.context-ledger/ledger.db', '--format', 'json', '--dry-run'], { cwd: dir }));
    const planned = new Map(changesOf(dry).map((c) => [c.id.replace(/-v\d+(?:-[0-9A-Z]{8})?$/, ''), c]));
    assert.equal(planned.get('adr-0007')?.outcome, 'updated');
    assert.equal(planned.get(network.chainId)?.outcome, 'updated');
    assert.equal(planned.get(storage.chainId)?.outcome, 'detached');
    assert.match(planned.get(storage.chainId)!.reason, /edited in the ledger/);
    assert.equal(planned.size, 3, JSON.stringify([...planned.values()]));
    assert.deepEqual(ledgerBytes(dir), before);
    const text = cli(['import-folder', '--db', '.context-ledger/ledger.db', '--dry-run'], { cwd: dir }).stdout;
    assert.match(text, /would update +adr-0007 /);
    assert.match(text, /would detach /);

    importJson(dir);
    const adr7 = artifact(dir, 'adr-0007');
    assert.equal(adr7.status, 'archived', 'Deprecated in the source: not active');
    assert.equal(adr7.pinned, true, 'the pin is the ledger\'s: kept');
    const net = artifact(dir, network.chainId);
    assert.match(net.body, /A line added upstream/);
    assert.equal(net.status, 'archived', 'the archive is the ledger\'s: kept');
    const kept = artifact(dir, storage.chainId);
    assert.equal(kept.body, 'Our own wording of the storage rule.', 'the person\'s edit is never reverted');
    const shown = run(dir, 'show', kept.id);
    assert.match(shown, /detached: edited in the ledger while \.clinerules\/storage\.md changed/);
    assert.match(artifact(dir, 'adr-0008').body, /Edited through the mirror\./);

    // And again: nothing left to do.
    assert.deepEqual(changesOf(importJson(dir)), []);
    // The deprecated ADR is not in a build any more.
    const build = run(dir, 'build', '--task-title', 'Spec-first REST API v2 and OpenAPI', '--budget', '8000');
    assert.doesNotMatch(build, /ADR-0007/);
  });

  it('archives an entry whose section is gone from its file, and names it', () => {
    const dir = workspace('cline');
    importJson(dir);
    fs.rmSync(path.join(dir, '.clinerules', 'network.md'));
    const report = importJson(dir);
    const removed = changesOf(report).filter((c) => c.outcome === 'removed');
    const fromNetwork = latest(dir).filter((a) => a.source.endsWith('network.md'));
    assert.equal(removed.length, fromNetwork.length, JSON.stringify(changesOf(report)));
    assert.deepEqual(changesOf(report).filter((c) => c.outcome !== 'removed'), []);
    assert.ok(removed.every((c) => c.file === '.clinerules/network.md'));
    assert.ok(fromNetwork.every((a) => a.status === 'archived'));
  });
});

describe('each tool\'s own semantics, on real files', () => {
  it('ADRs: a metadata table gives status and date and is not shown; the number stays in the title', () => {
    const dir = workspace('hyades');
    importJson(dir);
    const adr7 = artifact(dir, 'adr-0007');
    assert.equal(adr7.title, 'ADR-0007: Spec first rest api v2');
    assert.equal(adr7.createdAt.slice(0, 10), '2025-06-11');
    assert.doesNotMatch(adr7.body, /\| Status/);
    assert.equal(artifact(dir, 'adr-0008').adrStatus, 'proposed');
  });

  it('Cline: workflows and hooks are not rules', () => {
    const dir = workspace('cline');
    const report = importJson(dir);
    const sources = latest(dir).map((a) => a.source);
    assert.ok(!sources.some((s) => /workflows|hooks/.test(s)), sources.join('\n'));
    assert.ok(sources.some((s) => s === 'import:cline:.clinerules/network.md'));
    assert.ok(report.formats.some((f) => f.format === 'agents-md'));
  });

  it('CLAUDE.md as a link to AGENTS.md (a symbolic link, or git\'s text form of one) is one artifact', () => {
    for (const form of ['symlink', 'text'] as const) {
      const dir = workspace('langfuse');
      const link = (at: string, target: string): void => {
        if (form === 'symlink') fs.symlinkSync(target, path.join(dir, at));
        else fs.writeFileSync(path.join(dir, at), target);
      };
      link('AGENTS.md', '.agents/AGENTS.md');
      link('CLAUDE.md', 'AGENTS.md');
      link('worker/CLAUDE.md', 'AGENTS.md');
      const report = importJson(dir);
      const all = latest(dir);
      assert.deepEqual(all.filter((a) => a.source.startsWith('import:claude:')).map((a) => a.source), [], form);
      assert.ok(!all.some((a) => a.source === 'import:agents-md:.agents/AGENTS.md'), `${form}: .agents/AGENTS.md is read once, as AGENTS.md`);
      const root = all.filter((a) => a.source === 'import:agents-md:AGENTS.md');
      assert.ok(root.length > 1 && root.every((a) => a.scope === 'global'), form);
      assert.ok(!root.some((a) => /^\.agents\/AGENTS\.md$|^AGENTS\.md$/.test(a.body.trim())), `${form}: the text, not the link`);
      const skipped = report.formats.flatMap((f) => f.skipped);
      assert.ok(skipped.some((s) => s.where === 'worker/CLAUDE.md' && /same file as worker\/AGENTS\.md/.test(s.reason)), JSON.stringify(skipped));
    }
  });

  it('a CLAUDE.md that only imports @AGENTS.md follows the import (no convention titled "Md")', () => {
    const dir = workspace('cline');
    // The one-line form Claude Code documents for sharing AGENTS.md.
    fs.writeFileSync(path.join(dir, 'CLAUDE.md'), '@AGENTS.md\n');
    const report = importJson(dir);
    const all = latest(dir);
    assert.ok(!all.some((a) => a.title === 'Md' || a.source === 'import:claude:CLAUDE.md'), all.map((a) => a.title).join(', '));
    assert.ok(report.formats.flatMap((f) => f.skipped).some((s) => s.where === 'CLAUDE.md' && /only imports AGENTS\.md/.test(s.reason)));
    // Only Claude asked for: the imported text arrives under CLAUDE.md.
    const onlyClaude = workspace('cline');
    fs.writeFileSync(path.join(onlyClaude, 'CLAUDE.md'), '@AGENTS.md\n');
    importJson(onlyClaude, '--from', 'claude');
    const claude = latest(onlyClaude).filter((a) => a.source === 'import:claude:CLAUDE.md');
    assert.ok(claude.length > 1 && claude.some((a) => /Bun/.test(a.body)), claude.map((a) => a.title).join(', '));
  });

  it('an AGENTS.md with two # headings is split by its real structure', () => {
    const dir = workspace('langfuse');
    importJson(dir);
    const web = latest(dir).filter((a) => a.source === 'import:agents-md:web/AGENTS.md');
    assert.ok(web.length > 5, web.map((a) => a.title).join(' | '));
    // Each `##` section of the first part is its own artifact; none swallows the others.
    assert.ok(web.every((a) => !/^#{1,2} /m.test(a.body)), web.map((a) => `${a.title}: ${a.body.length}`).join('\n'));
    assert.ok(web.some((a) => a.title === 'Agent Guidelines for `web`: Web Conventions'));
    assert.ok(web.some((a) => a.title === 'This is NOT the Next.js you know'));
    assert.ok(web.every((a) => a.scope === 'path' && a.paths[0] === 'web/**'));
  });

  it('Copilot applyTo "**" (documented as all files) is always-on, as Cursor alwaysApply: pinned; a narrower applyTo is not', () => {
    const dir = workspace('hatchet');
    const narrower = path.join(dir, '.github', 'instructions', 'go.instructions.md');
    fs.writeFileSync(narrower, '---\napplyTo: "**/*.go"\n---\n\n# Go\n\nWrap errors with context.\n');
    importJson(dir, '--from', 'copilot');
    const all = latest(dir);
    const everyFile = all.find((a) => a.source === 'import:copilot:.github/instructions/comments.instructions.md');
    assert.ok(everyFile, all.map((a) => a.source).join('\n'));
    assert.equal(everyFile.pinned, true, 'applyTo "**" is loaded for every file');
    assert.equal(everyFile.scope, 'global');
    const go = all.find((a) => a.source === 'import:copilot:.github/instructions/go.instructions.md')!;
    assert.equal(go.pinned, false);
    assert.deepEqual(go.paths, ['**/*.go']);
  });

  it('Cursor: nested .cursor/rules/*.md are read for their folder; a description-only rule is agent-requested, not always-on', () => {
    const dir = workspace('hatchet');
    const nested = path.join(dir, 'frontend', '.cursor', 'rules');
    fs.mkdirSync(nested, { recursive: true });
    const rule = fs.readFileSync(path.join(dir, '.cursor', 'rules', 'taskfile.mdc'), 'utf8').replace('alwaysApply: true', 'alwaysApply: false');
    fs.writeFileSync(path.join(nested, 'taskfile.md'), rule);
    importJson(dir);
    const all = latest(dir);
    const root = all.find((a) => a.source === 'import:cursor:.cursor/rules/taskfile.mdc')!;
    assert.equal(root.pinned, true, 'alwaysApply: true at the root is always-on');
    const inner = all.find((a) => a.source === 'import:cursor:frontend/.cursor/rules/taskfile.md');
    assert.ok(inner, all.map((a) => a.source).join('\n'));
    assert.equal(inner.pinned, false);
    assert.deepEqual(inner.paths, ['frontend/**']);
    assert.ok(inner.tags.includes('agent-requested'));
  });
});

describe('smaller CLI truths', () => {
  it('--db .context-ledger/ledger.db works in a new folder; import --from agents is agents-md; show of an old version names the newer', () => {
    const dir = workspace('cline');
    fs.rmSync(path.join(dir, '.context-ledger'), { recursive: true });
    const result = cli(['import', '--from', 'agents', 'AGENTS.md', '--db', '.context-ledger/ledger.db'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    const first = latest(dir)[0]!;
    run(dir, 'update', first.id, '--body', 'Newer text.');
    assert.match(run(dir, 'show', first.id), new RegExp(`newer: +version 2 is the latest \\(context-ledger show ${first.chainId}-v2-[0-9A-Z]{8}\\)`));
  });
});

describe('which tells the truth, once per file (revaer: every Copilot applyTo is a YAML list)', () => {
  interface Which {
    rules: { path: string; fires: boolean; why: string }[];
    problems: { where: string; field: string; problem: string }[];
    otherProblems: number;
  }
  it('a YAML-list applyTo is linted and, consistently, never fires; other files\' problems are counted, not repeated', () => {
    const dir = workspace('revaer');
    fs.mkdirSync(path.join(dir, 'crates', 'revaer-data', 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'crates', 'revaer-data', 'src', 'lib.rs'), '');
    importJson(dir);
    const report = jsonOf<Which>(cli(['which', 'crates/revaer-data/src/lib.rs', '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd: dir }));
    const data = report.rules.find((r) => r.path === '.github/instructions/revaer-data.instructions.md')!;
    assert.equal(data.fires, false, 'VS Code reads applyTo as a string only: a list attaches nothing');
    assert.ok(report.problems.some((p) => p.where === data.path && /YAML list/.test(p.problem)));
    // One verdict per rule file.
    assert.equal(new Set(report.rules.map((r) => r.path)).size, report.rules.length);
    // The ledger's own path-scoped artifacts (imported from those files) whose globs match nothing here are not this file's problems.
    assert.ok(!report.problems.some((p) => p.where.startsWith('ledger:')), JSON.stringify(report.problems));
    assert.ok(report.otherProblems > 0);
    const text = run(dir, 'which', 'crates/revaer-data/src/lib.rs');
    assert.doesNotMatch(text, /fires +\.github\/instructions\/revaer-data/);
    assert.equal(text.match(/revaer-data\.instructions\.md {2}\(/g)?.length, 1, text);
    assert.match(text, /which --lint/);
    const lint = jsonOf<{ problems: Which['problems'] }>(cli(['which', '--lint', '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd: dir }));
    assert.equal(lint.problems.length, report.problems.length + report.otherProblems);
    assert.ok(lint.problems.some((p) => p.where.startsWith('ledger:')));
  });
});

describe('an ADR named as "ADR 74", "ADR-74" or "ADR-014" is ADR-0074 / ADR-0014 (revaer ADRs)', () => {
  it('show, list --text and build resolve the reference', () => {
    const dir = workspace('revaer');
    importJson(dir);
    for (const ref of ['ADR 74', 'ADR-74', 'adr-074', 'ADR-0074']) assert.match(run(dir, 'show', ref), /^ADR-0074: Temporary vendoring of yewdux/, ref);
    assert.match(run(dir, 'list', '--text', 'ADR 14'), /adr-0014 /);
    // The words revaer's own ADR-0073 uses for it ("superseded by ADR 074") name it in a task.
    const build = jsonOf<{ items: { id: string; reason?: string; why?: string }[] }>(
      cli(['build', '--db', '.context-ledger/ledger.db', '--task-title', 'Drop the vendored fork again (see ADR 74)', '--budget', '3000', '--format', 'json'], { cwd: dir }),
    );
    const named = build.items.find((i) => i.id === 'adr-0074');
    assert.ok(named, JSON.stringify(build.items.map((i) => i.id)));
    assert.match(JSON.stringify(named), /named in the task/);
  });
});

describe('export tells the truth (hyades ADRs, eliza Cursor rules, cline rules, langfuse AGENTS.md)', () => {
  interface ExportReport {
    files: { path: string; tokens: number; included: number; split: number }[];
    leftOut: { id: string; title: string; reason: string }[];
  }
  it('drops nothing for size, writes nothing twice, leaves out what is not active or always-on, keeps ADR numbers and heading levels', async () => {
    const dir = workspace('hyades', 'eliza', 'langfuse', 'cline');
    // The team keeps the same Cline rule for Copilot too (a copy, as teams do).
    fs.mkdirSync(path.join(dir, '.github'));
    fs.copyFileSync(path.join(dir, '.clinerules', 'network.md'), path.join(dir, '.github', 'copilot-instructions.md'));
    // Upstream deprecates ADR 7 in its metadata table.
    edit(path.join(dir, 'docs/architecture/decisions/007-spec-first-rest-api-v2.md'), (text) => text.replace('| Accepted | 2025-06-11 |', '| Deprecated | 2025-06-11 |'));
    importJson(dir);
    const budget = 1500;
    const out = path.join(dir, 'out');
    const report = jsonOf<ExportReport>(cli(['export', '--to', 'agents', '--out', out, '--budget', String(budget), '--format', 'json', '--db', '.context-ledger/ledger.db'], { cwd: dir }));
    const counter = await TokenCounter.load('o200k_base');
    const texts = report.files.map((f) => fs.readFileSync(path.join(out, f.path), 'utf8'));
    texts.forEach((text, i) => assert.ok(counter.count(text) <= budget, `${report.files[i]!.path}: ${counter.count(text)} tokens`));
    const all = texts.join('\n');
    assert.ok(report.files.length > 1 && report.files[0]!.path === 'AGENTS.md');
    // The agent can open every file AGENTS.md names.
    for (const f of report.files.slice(1)) assert.match(texts[0]!, new RegExp(`\`${f.path.replace('.', '\\.')}\``));

    // Not active, not always-on: left out.
    assert.doesNotMatch(all, /ADR-0007|Spec first rest api v2/i, 'Deprecated in its source');
    assert.doesNotMatch(all, /ElizaOS Memory System/, 'description-only Cursor rule: agent-requested');
    assert.ok(report.leftOut.some((l) => l.id.includes('elizaos-core-memory') && /agent-requested/.test(l.reason)), JSON.stringify(report.leftOut));
    // The same rule kept for two tools: written once.
    const networkLine = fs.readFileSync(path.join(dir, '.clinerules', 'network.md'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.length > 40 && !l.startsWith('#') && !l.startsWith('`'))[0]!;
    assert.equal(all.split(networkLine).length - 1, 1, networkLine);
    assert.ok(report.leftOut.some((l) => /says what .* says/.test(l.reason)));

    // Nothing else left out: every active artifact's text is there, a long one in parts.
    const leftOut = new Set(report.leftOut.map((l) => l.id));
    for (const a of latest(dir).filter((x) => x.status === 'active' && !leftOut.has(x.id))) {
      const line = a.body.split('\n').map((l) => l.trim()).find((l) => l.length > 30 && !/^[#|`>-]/.test(l));
      if (line) assert.ok(all.replace(/\s+/g, ' ').includes(line.replace(/\s+/g, ' ')), `${a.id}: ${line}`);
    }
    assert.ok(report.files.some((f) => f.split > 0), 'eliza\'s cursor_rules.mdc is longer than a file: split');
    assert.match(all, /\(part 1 of \d+\)/);
    // ADR number in the title; the record's own headings stay below it.
    assert.match(all, /## ADR-0008: [^\n]+\n(?:[^#\n][^\n]*\n|\n)*### Context\n/);
  });
});

describe('import-folder --status: drift between the knowledge files and the ledger', () => {
  interface Status {
    inStep: number;
    drift: { file: string; state: string; changes: Change[] }[];
    detached: { id: string; file: string; reason: string }[];
  }
  const status = (dir: string): Status =>
    jsonOf<Status>(cli(['import-folder', '--status', '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd: dir }));

  it('names new, changed and removed files and detached entries, and writes nothing (cline, hyades)', () => {
    const dir = workspace('cline', 'hyades');
    const fresh = status(dir);
    assert.ok(fresh.drift.length >= 5 && fresh.drift.every((d) => d.state === 'new'), JSON.stringify(fresh.drift.map((d) => [d.file, d.state])));
    assert.ok(!fs.existsSync(path.join(dir, '.context-ledger', 'ledger.db')), 'nothing written');
    importJson(dir);
    const clean = status(dir);
    assert.deepEqual([clean.drift, clean.detached], [[], []]);
    assert.ok(clean.inStep >= 5);
    assert.match(cli(['import-folder', '--status', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout, /in step with the ledger/);

    // The section that holds the end of storage.md, where the upstream line lands.
    const last = fs.readFileSync(path.join(dir, '.clinerules', 'storage.md'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.length > 25).pop()!;
    const storage = latest(dir).find((a) => a.source === 'import:cline:.clinerules/storage.md' && a.body.includes(last))!;
    run(dir, 'update', storage.chainId, '--body', 'Our own wording.');
    edit(path.join(dir, '.clinerules', 'storage.md'), (text) => `${text.trimEnd()}\n\nA line added upstream.\n`);
    fs.rmSync(path.join(dir, '.clinerules', 'network.md'));
    const decisions = path.join(dir, 'docs', 'architecture', 'decisions');
    fs.copyFileSync(path.join(decisions, '008-sbom-push-with-gitlab-token.md'), path.join(decisions, '009-sbom-push-again.md'));
    const before = ledgerBytes(dir);
    const drift = status(dir);
    const state = Object.fromEntries(drift.drift.map((d) => [d.file, d.state]));
    assert.deepEqual(state, {
      '.clinerules/network.md': 'removed',
      '.clinerules/storage.md': 'changed',
      'docs/architecture/decisions/009-sbom-push-again.md': 'new',
    });
    assert.deepEqual(ledgerBytes(dir), before, 'status writes nothing');
    const text = cli(['import-folder', '--status', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout;
    assert.match(text, /removed +\.clinerules\/network\.md +\(\d+ to archive\)/);
    assert.match(text, /changed +\.clinerules\/storage\.md +\(.*1 to detach/);

    importJson(dir);
    const after = status(dir);
    assert.deepEqual(after.drift, []);
    assert.deepEqual(after.detached.map((d) => [d.id.replace(/-v\d+(?:-[0-9A-Z]{8})?$/, ''), d.file]), [[storage.chainId, '.clinerules/storage.md']]);
  });
});

describe('import-folder and unrelated links', () => {
  it('links out of the folder are one summary line, not a list, every run (cline)', () => {
    const dir = workspace('cline');
    const outside = tempDir('ledger-outside-');
    for (let i = 0; i < 30; i++) fs.symlinkSync(outside, path.join(dir, `vendor-link-${i}`));
    for (let round = 0; round < 2; round++) {
      const text = cli(['import-folder', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout;
      assert.doesNotMatch(text, /vendor-link-\d+/, text);
      assert.equal(text.match(/symbolic link/g)?.length, 1, text);
    }
  });
});
