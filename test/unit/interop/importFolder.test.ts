import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cli, jsonOf } from '../helpers';
import { REAL, tempDir } from './shared';

interface FormatCounts {
  format: string;
  files: number;
  added: number;
  updated: number;
  unchanged: number;
  tasksAdded: number;
  tasksUnchanged: number;
  skipped: { where: string; reason: string }[];
}
interface Report {
  dryRun: boolean;
  formats: FormatCounts[];
  skipped: { where: string; reason: string }[];
}

/** A writable copy of a real fixture in a temporary folder (never in the project). */
function copyOf(name: string): string {
  const dir = path.join(tempDir('ledger-interop-'), name);
  fs.cpSync(path.join(REAL, name), dir, { recursive: true });
  for (const file of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    fs.chmodSync(path.join(file.parentPath, file.name), file.isDirectory() ? 0o755 : 0o644);
  }
  fs.chmodSync(dir, 0o755);
  return dir;
}

function importJson(cwd: string, ...args: string[]): Report {
  const result = cli(['import-folder', '--db', 'ledger.db', '--format', 'json', ...args], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return jsonOf<Report>(result);
}

function counts(report: Report): Record<string, [number, number, number]> {
  return Object.fromEntries(report.formats.map((f) => [f.format, [f.added, f.updated, f.unchanged]]));
}

function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

const haveFixtures = fs.existsSync(REAL);

describe('import-folder on real fixtures', { skip: !haveFixtures && 'no ../shared/fixtures/real' }, () => {
  it('imports a ctx repo (.context/, Copilot, Cursor, Cline) and re-imports as unchanged', () => {
    const dir = copyOf('ctx-repo');
    const first = importJson(dir);
    assert.deepEqual(counts(first), { ctx: [36, 0, 0], copilot: [7, 0, 0], cursor: [4, 0, 0], cline: [21, 0, 0] });
    const ctx = first.formats.find((f) => f.format === 'ctx')!;
    assert.equal(ctx.files, 7);
    assert.equal(ctx.tasksAdded, 245);
    assert.ok(ctx.skipped.some((s) => s.where.startsWith('.context/DECISIONS.md:')));

    const again = importJson(dir);
    assert.deepEqual(counts(again), { ctx: [0, 0, 36], copilot: [0, 0, 7], cursor: [0, 0, 4], cline: [0, 0, 21] });
    assert.equal(again.formats.find((f) => f.format === 'ctx')!.tasksUnchanged, 245);
  });

  it('imports an ADR folder with supersessions, CLAUDE.md and Copilot instructions; a changed ADR becomes a new version', () => {
    const dir = copyOf('subcog-repo');
    assert.deepEqual(counts(importJson(dir)), { adr: [61, 0, 0], copilot: [6, 0, 0], claude: [5, 0, 0] });
    const superseded = jsonOf<{ id: string }[]>(cli(['list', '--db', 'ledger.db', '--status', 'superseded', '--format', 'json'], { cwd: dir }));
    assert.ok(superseded.length > 0, 'superseded ADRs are imported as superseded');

    const text = cli(['import-folder', '--db', 'ledger.db'], { cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /adr\s+61 files\s+0 added, 0 updated, 61 unchanged/);

    const adr = path.join(dir, 'docs', 'adrs', 'adr_0003.md');
    fs.appendFileSync(adr, '\n\nA note added later.\n');
    assert.deepEqual(counts(importJson(dir, '--from', 'adr')), { adr: [0, 1, 60] });
    const history = jsonOf<{ version: number }[]>(cli(['history', 'adr-0003', '--db', 'ledger.db', '--format', 'json'], { cwd: dir }));
    assert.deepEqual(history.map((v) => v.version), [1, 2]);
  });

  it('takes a folder given directly (docs/adrs --from adr) with workspace-relative sources', () => {
    const dir = copyOf('subcog-repo');
    assert.deepEqual(counts(importJson(dir, 'docs/adrs', '--from', 'adr')), { adr: [61, 0, 0] });
    const list = jsonOf<{ source: string }[]>(cli(['list', '--db', 'ledger.db', '--format', 'json'], { cwd: dir }));
    assert.ok(list.every((a) => a.source.startsWith('import:adr:docs/adrs/')));
  });

  it('--dry-run writes nothing, with or without an existing ledger', () => {
    const dir = copyOf('ctx-repo');
    const dry = importJson(dir, '--dry-run');
    assert.equal(dry.dryRun, true);
    assert.equal(counts(dry).ctx![0], 36);
    assert.equal(fs.existsSync(path.join(dir, 'ledger.db')), false);
    assert.equal(fs.existsSync(path.join(dir, '.context-ledger')), false);

    importJson(dir, '--from', 'cursor');
    const before = sha(path.join(dir, 'ledger.db'));
    const dryAgain = importJson(dir, '--dry-run');
    assert.deepEqual(counts(dryAgain).cursor, [0, 0, 4]);
    assert.deepEqual(counts(dryAgain).ctx, [36, 0, 0]);
    assert.equal(sha(path.join(dir, 'ledger.db')), before);
  });
});

describe('import-folder on odd folders', () => {
  it('says clearly when nothing is recognisable', () => {
    const dir = tempDir('ledger-interop-');
    fs.writeFileSync(path.join(dir, 'README.md'), '# Hello\n');
    fs.mkdirSync(path.join(dir, 'node_modules', 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'pkg', 'AGENTS.md'), '# Rules\n\n- x\n');
    const result = cli(['import-folder', '--db', 'ledger.db'], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Found nothing it can import/);
    assert.equal(result.stderr.includes('at '), false, 'no stack trace');
    assert.equal(fs.existsSync(path.join(dir, 'ledger.db')), false);

    const unknown = cli(['import-folder', '--db', 'ledger.db', '--from', 'word'], { cwd: dir });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown format "word"/);
  });

  it("another project's .context, .cursor/rules or copilot-instructions.md, given itself, imports as from that project's root", () => {
    const base = tempDir('ledger-interop-');
    const other = path.join(base, 'other-project');
    fs.mkdirSync(path.join(other, '.context'), { recursive: true });
    fs.mkdirSync(path.join(other, '.cursor', 'rules'), { recursive: true });
    fs.mkdirSync(path.join(other, '.github'), { recursive: true });
    fs.writeFileSync(path.join(other, '.context', 'LEARNINGS.md'), '# Learnings\n\n## [2026-01-02-120000] Retries need jitter\n\n**Context**: Herds.\n\n**Lesson**: Add jitter.\n\n**Application**: Always.\n');
    fs.writeFileSync(path.join(other, '.cursor', 'rules', 'style.mdc'), '---\ndescription: Style\nalwaysApply: true\n---\n# Style\n\nTabs — 日本語 ok.\n');
    fs.writeFileSync(path.join(other, '.github', 'copilot-instructions.md'), '# Instructions\n\n## Tests\n\nOne behaviour per test.\n');
    const ws = path.join(base, 'ws');
    fs.mkdirSync(ws);

    const given = (format: string, target: string) => {
      const result = cli(['import', '--db', 'ledger.db', '--format', 'json', '--from', format, target], { cwd: ws });
      assert.equal(result.code, 0, `${format} ${target}: ${result.stderr}`);
      return counts(jsonOf<Report>(result))[format];
    };
    assert.deepEqual(given('ctx', path.join(other, '.context')), [1, 0, 0]);
    assert.deepEqual(given('cursor', path.join(other, '.cursor', 'rules')), [1, 0, 0]);
    assert.deepEqual(given('copilot', path.join(other, '.github', 'copilot-instructions.md')), [1, 0, 0]);
    // The same ids as importing the whole project: nothing new, nothing changed.
    const whole = importJson(ws, other);
    assert.deepEqual(counts(whole), { ctx: [0, 0, 1], copilot: [0, 0, 1], cursor: [0, 0, 1] });

    // Without --from, import reads JSONL: given a folder, it says what to run instead.
    const folder = cli(['import', '--db', 'ledger.db', path.join(other, '.context')], { cwd: ws });
    assert.equal(folder.code, 1);
    assert.match(folder.stderr, /is a folder; without --from, import reads one JSONL file\.\n.*import-folder/);

    // A folder that holds none of them still says so.
    const plain = path.join(base, 'plain');
    fs.mkdirSync(plain);
    fs.writeFileSync(path.join(plain, 'notes.md'), '# Notes\n');
    const none = cli(['import', '--db', 'ledger.db', '--from', 'ctx', plain], { cwd: ws });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /Found no ctx files in/);
  });

  it('does not follow links out of the folder, skips binary files, keeps non-ASCII titles', () => {
    const base = tempDir('ledger-interop-');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(outside, 'adr'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nDo not import me.\n');
    fs.writeFileSync(path.join(outside, 'adr', '0009-secret.md'), '# 9. Secret decision\n\n## Status\n\nAccepted\n\n## Decision\n\nNo.\n');
    const dir = path.join(base, 'ws');
    fs.mkdirSync(path.join(dir, '.clinerules'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'docs', 'decisions'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'docs', 'decisions', '0001-café.md'),
      '# 1. Utiliser SQLite — café ☕ 日本語\n\n## Status\n\nAccepted\n\n## Context\n\nÇa marche partout.\n\n## Decision\n\nOn garde sql.js.\n',
    );
    fs.writeFileSync(path.join(dir, '.clinerules', 'règles.md'), '# Écrire en français — ünïcödé\n\nToujours.\n');
    fs.writeFileSync(path.join(dir, '.clinerules', 'logo.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0d, 0x0a]));
    fs.writeFileSync(path.join(dir, '.clinerules', 'huge.md'), `# Huge\n\n${'x'.repeat(10 * 1024 * 1024 + 10)}\n`);
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(dir, '.clinerules', 'secret.md'));
    fs.symlinkSync(path.join(outside, 'adr'), path.join(dir, 'docs', 'adr'));

    const report = importJson(dir);
    const skipped = [...report.skipped, ...report.formats.flatMap((f) => f.skipped)];
    assert.ok(skipped.some((s) => s.where === '.clinerules/secret.md' && /outside/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === 'docs/adr' && /outside/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === '.clinerules/logo.md' && /binary/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === '.clinerules/huge.md' && /over the 10 MB limit/.test(s.reason)), JSON.stringify(skipped));
    assert.equal(counts(report).adr![0], 1);

    const list = jsonOf<{ title: string; body?: string }[]>(cli(['list', '--db', 'ledger.db', '--format', 'json'], { cwd: dir }));
    const titles = list.map((a) => a.title);
    assert.ok(titles.some((t) => t.includes('Utiliser SQLite — café ☕ 日本語')), titles.join(' | '));
    assert.ok(titles.some((t) => t.includes('Écrire en français — ünïcödé')), titles.join(' | '));
    assert.equal(titles.some((t) => /Secret/.test(t)), false);

    const text = cli(['import-folder', '--db', 'ledger.db'], { cwd: dir });
    assert.match(text.stdout, /Skipped:\n(?:.*\n)*\s+\.clinerules\/logo\.md: binary file/);
  });
});
