/**
 * Cline's `.cline/rules/` folder, read as Cline reads it (docs/formats.md): "Workspace rules go
 * in .clinerules/ or .cline/rules/ at your project root" (docs.cline.bot). The real CLI on real
 * temporary folders: import with and without `paths:`, both folders side by side, re-import
 * and drift after an edit, `which`, and hostile input (links out, `../` globs, empty and
 * non-ASCII files).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { agentFilesView } from '../../../src/core/inspector/agentFiles';
import { TokenCounter } from '../../../src/core/tokens';
import { type ArtifactJson, cli, jsonOf } from '../helpers';
import { tempDir } from './shared';

interface Change {
  id: string;
  title: string;
  file: string;
  outcome: string;
}
interface Report {
  formats: { format: string; added: string[]; updated: string[]; unchanged: string[]; removed: string[]; changes: Change[]; skipped: { where: string; reason: string }[] }[];
  skipped: { where: string; reason: string }[];
}
interface Status {
  inStep: number;
  drift: { file: string; state: string }[];
}
interface Which {
  rules: { path: string; kind: string; fires: boolean; why: string }[];
  problems: { where: string; field: string; problem: string }[];
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

function workspace(files: Record<string, string>): string {
  const dir = tempDir('ledger-cline-rules-');
  write(dir, files);
  fs.mkdirSync(path.join(dir, '.context-ledger'), { recursive: true });
  return dir;
}

function importJson(cwd: string, ...args: string[]): Report {
  const result = cli(['import-folder', '--db', '.context-ledger/ledger.db', '--format', 'json', ...args], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return jsonOf<Report>(result);
}

function latest(cwd: string): ArtifactJson[] {
  const result = cli(['export', '--db', '.context-ledger/ledger.db', '--format', 'jsonl', '--latest-only'], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ArtifactJson);
}

function fromFile(cwd: string, file: string): ArtifactJson[] {
  return latest(cwd).filter((a) => a.source === `import:cline:${file}` && a.status === 'active');
}

/** `which <file> --format json`, run by the real CLI in the workspace. */
function which(cwd: string, file: string): Which {
  const result = cli(['which', file, '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return jsonOf<Which>(result);
}

/** Each rule file's verdict, `[fires, why]`, by its path with `prefix` taken off. */
function verdictsOf(report: Which, prefix = ''): Record<string, [boolean, string]> {
  return Object.fromEntries(report.rules.map((r) => [r.path.slice(prefix.length), [r.fires, r.why]]));
}

function skippedOf(report: Report): { where: string; reason: string }[] {
  return [...report.skipped, ...report.formats.flatMap((f) => f.skipped)];
}

const STYLE = '# House style\n\nWrite small functions and name them for what they return.\n';
const API = '---\npaths:\n  - "src/api/**"\n---\n\n# API rules\n\nEvery handler validates its input with the shared schema.\n';

describe('Cline .cline/rules/ (real CLI, real folders)', () => {
  it('imports each rule file directly in .cline/rules/, path-scoped by paths:, and nothing Cline does not read as a rule', () => {
    const dir = workspace({
      'src/api/users.ts': 'export {};\n',
      '.cline/rules/style.md': STYLE,
      '.cline/rules/api.md': API,
      '.cline/rules/notes.markdown': '# Notes\n\nLog with the request id.\n',
      '.cline/rules/plain.txt': 'Never commit secrets.\n',
      // Cline's loader reads no subfolder of .cline/rules, and its workflows live elsewhere.
      '.cline/rules/drafts/old.md': '# Old\n\nDRAFT-TEXT\n',
      '.cline/workflows/release.md': '# Release\n\nWORKFLOW-TEXT\n',
      '.cline/rules/off.md': '---\npaths: []\n---\n\n# Off\n\nOFF-TEXT\n',
      'packages/web/.cline/rules/ui.md': '---\npaths: ["src/**"]\n---\n\n# UI\n\nComponents are functions.\n',
    });
    const report = importJson(dir);
    const cline = report.formats.find((f) => f.format === 'cline');
    assert.ok(cline, JSON.stringify(report.formats.map((f) => f.format)));

    const [style] = fromFile(dir, '.cline/rules/style.md');
    assert.ok(style, 'a rule without paths is imported');
    assert.equal(style.scope, 'global', 'Cline loads a rule without paths for every request');
    assert.match(style.body, /small functions/);
    assert.equal(style.id.replace(/-v\d+.*$/, ''), 'cline-rules-style');

    const [api] = fromFile(dir, '.cline/rules/api.md');
    assert.ok(api, 'a rule with paths is imported');
    assert.deepEqual([api.scope, api.paths], ['path', ['src/api/**']]);
    assert.doesNotMatch(api.body, /paths:/, 'front matter is not part of the rule');

    assert.equal(fromFile(dir, '.cline/rules/notes.markdown').length, 1, '.markdown, as Cline reads it');
    assert.equal(fromFile(dir, '.cline/rules/plain.txt').length, 1, '.txt, as Cline reads it');
    const [ui] = fromFile(dir, 'packages/web/.cline/rules/ui.md');
    assert.deepEqual([ui?.scope, ui?.paths], ['path', ['packages/web/src/**']], 'a nested .cline/rules applies to its folder');

    const bodies = latest(dir).map((a) => a.body).join('\n');
    assert.doesNotMatch(bodies, /DRAFT-TEXT|WORKFLOW-TEXT|OFF-TEXT/);
    assert.ok(
      skippedOf(report).some((s) => s.where === '.cline/rules/off.md' && /paths: \[\].*never loads/.test(s.reason)),
      `paths: [] is Cline's way to turn a rule off: ${JSON.stringify(skippedOf(report))}`,
    );
  });

  it('both .clinerules/ and .cline/rules/: both imported, each keeps its own id; adding the new folder leaves the old artifacts alone', () => {
    const dir = workspace({ '.clinerules/style.md': '# Style\n\nOLD-FOLDER rule.\n', '.clinerules/off.md': '---\npaths: []\n---\nOFF-OLD\n' });
    importJson(dir);
    const before = fromFile(dir, '.clinerules/style.md');
    assert.equal(before.length, 1);
    assert.ok(!latest(dir).some((a) => /OFF-OLD/.test(a.body)), 'paths: [] is off in .clinerules/ too');

    write(dir, { '.cline/rules/style.md': '# Style\n\nNEW-FOLDER rule.\n' });
    const report = importJson(dir);
    const changes = report.formats.flatMap((f) => f.changes);
    assert.deepEqual(
      changes.filter((c) => c.outcome !== 'unchanged').map((c) => [c.outcome, c.file]),
      [['added', '.cline/rules/style.md']],
    );
    const [old] = fromFile(dir, '.clinerules/style.md');
    const [added] = fromFile(dir, '.cline/rules/style.md');
    assert.equal(old!.id, before[0]!.id, 'the .clinerules artifact keeps its id and version');
    assert.match(old!.body, /OLD-FOLDER/);
    assert.match(added!.body, /NEW-FOLDER/);
    assert.notEqual(added!.chainId, old!.chainId);
  });

  it('an edit of a .cline/rules/ file shows as drift and re-import updates it; a deleted one is archived', () => {
    const dir = workspace({ '.cline/rules/style.md': STYLE, '.cline/rules/api.md': API });
    importJson(dir);
    const status = (): Status => jsonOf<Status>(cli(['import-folder', '--status', '--db', '.context-ledger/ledger.db', '--format', 'json'], { cwd: dir }));
    assert.deepEqual(status().drift, []);

    write(dir, { '.cline/rules/style.md': STYLE.replace('small functions', 'short functions, déjà relus,') });
    fs.rmSync(path.join(dir, '.cline/rules/api.md'));
    assert.deepEqual(
      Object.fromEntries(status().drift.map((d) => [d.file, d.state])),
      { '.cline/rules/api.md': 'removed', '.cline/rules/style.md': 'changed' },
    );
    const report = importJson(dir);
    const outcomes = Object.fromEntries(report.formats.flatMap((f) => f.changes).map((c) => [c.file, c.outcome]));
    assert.deepEqual(outcomes, { '.cline/rules/style.md': 'updated', '.cline/rules/api.md': 'removed' });
    const [style] = fromFile(dir, '.cline/rules/style.md');
    assert.match(style!.body, /short functions, déjà relus/);
    assert.equal(style!.version, 2);
    assert.deepEqual(fromFile(dir, '.cline/rules/api.md'), []);
    assert.deepEqual(status().drift, []);
  });

  it('hostile: links out are not followed, ../ globs are flagged, empty files skipped, non-ASCII names get ids of their own', () => {
    const outside = tempDir('ledger-cline-outside-');
    write(outside, { 'secret.md': '# Secret\n\nOUTSIDE-FILE\n', 'rules/leak.md': '# Leak\n\nOUTSIDE-FOLDER\n' });
    const dir = workspace({
      'src/app.ts': 'export {};\n',
      '.cline/rules/empty.md': '',
      '.cline/rules/blank.md': '---\npaths: ["src/**"]\n---\n\n   \n',
      '.cline/rules/escape.md': '---\npaths: ["../**"]\n---\n\nReaches out.\n',
      '.cline/rules/..md': 'Dots in the name stay a name.\n',
      '.cline/rules/règles.md': '# Règles\n\nÉcrire en français.\n',
      '.cline/rules/规则.md': '# 规则\n\n使用中文注释。\n',
      '.cline/rules/правила.md': '# Правила\n\nПишите тесты.\n',
    });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(dir, '.cline/rules/secret.md'));
    fs.symlinkSync(path.join(outside, 'rules'), path.join(dir, '.cline/rules/linked'));
    // The whole folder a link out: a clone that points .cline/rules at someone's home.
    fs.mkdirSync(path.join(dir, 'pkg/.cline'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'rules'), path.join(dir, 'pkg/.cline/rules'));

    const report = importJson(dir);
    const all = latest(dir);
    assert.ok(!all.some((a) => /OUTSIDE-FILE|OUTSIDE-FOLDER/.test(a.body)), 'nothing read through a link out');
    const skipped = skippedOf(report);
    assert.ok(skipped.some((s) => s.where === '.cline/rules/secret.md' && /outside/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === 'pkg/.cline/rules' && /outside/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === '.cline/rules/empty.md' && /no content/.test(s.reason)), JSON.stringify(skipped));
    assert.ok(skipped.some((s) => s.where === '.cline/rules/blank.md' && /no content/.test(s.reason)), JSON.stringify(skipped));
    assert.equal(fromFile(dir, '.cline/rules/..md').length, 1);

    const ids = ['règles', '规则', 'правила'].map((name) => {
      const found = fromFile(dir, `.cline/rules/${name}.md`);
      assert.equal(found.length, 1, name);
      return found[0]!.chainId;
    });
    assert.equal(new Set(ids).size, 3, ids.join(', '));
    assert.equal(ids[0], 'cline-rules-regles');
    // Stable ids: a second run changes nothing.
    const again = importJson(dir);
    assert.deepEqual(again.formats.flatMap((f) => f.changes).filter((c) => c.outcome !== 'unchanged'), []);

    const app = which(dir, 'src/app.ts');
    assert.ok(app.problems.some((p) => p.where === '.cline/rules/escape.md' && /outside the workspace/.test(p.problem)), JSON.stringify(app.problems));
  });

  it('which: one verdict per .cline/rules/ file, as Cline would load it for the file', () => {
    const dir = workspace({
      'src/api/users.ts': 'export {};\n',
      'web/app.tsx': 'export {};\n',
      '.cline/rules/style.md': STYLE,
      '.cline/rules/api.md': API,
      '.cline/rules/web.md': '---\npaths: ["web/**"]\n---\nReact rules.\n',
      '.cline/rules/off.md': '---\npaths: []\n---\nOff.\n',
      '.cline/rules/drafts/old.md': 'Not a rule Cline reads.\n',
      '.clinerules/legacy.md': 'The older folder.\n',
    });
    const report = which(dir, 'src/api/users.ts');
    assert.deepEqual(verdictsOf(report), {
      '.cline/rules/api.md': [true, 'paths src/api/**'],
      '.cline/rules/off.md': [false, 'paths: [] — Cline never loads it'],
      '.cline/rules/style.md': [true, 'Cline rules apply everywhere'],
      '.cline/rules/web.md': [false, 'paths do not match'],
      '.clinerules/legacy.md': [true, 'Cline rules apply everywhere'],
    });
    assert.ok(report.rules.every((r) => r.kind === 'cline'));
    const text = cli(['which', 'web/app.tsx', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout;
    assert.match(text, /fires +\.cline\/rules\/web\.md +\(paths web\/\*\*\)/);
  });

  it('the inspector counts a .cline/rules/ file an agent loads, and not one turned off with paths: []', () => {
    const view = agentFilesView({
      files: [
        { path: '.cline/rules/style.md', content: STYLE },
        { path: '.cline/rules/api.md', content: API },
        { path: '.cline/rules/off.md', content: '---\npaths: []\n---\nOff.\n' },
        { path: '.cline/rules/drafts/old.md', content: 'Not read.\n' },
      ],
      activePaths: ['src/api/users.ts'],
      ledgerTokens: 0,
      included: [],
      count: (text) => text.length,
    });
    const rows = Object.fromEntries(view.files.map((f) => [f.path, f.applies]));
    assert.deepEqual(rows, { '.cline/rules/api.md': true, '.cline/rules/off.md': false, '.cline/rules/style.md': true });
  });
});

/**
 * Front matter Cline reads otherwise than its author likely meant (docs/formats.md, Cline's
 * rule-conditionals.ts and rule-helpers.ts at 21cb8d2): a `paths` that is not a list of
 * non-empty globs is ignored, `globs` is Cursor's field, and front matter that does not parse
 * loads the whole file. Each is loaded for every file, so each is imported global, and
 * `which` says why, in both folders.
 */
describe('Cline rules whose front matter Cline reads its own way (real CLI, both folders)', () => {
  const MISREAD = {
    'string.md': '---\npaths: "src/api/**"\n---\n\n# One string\n\nSTRING-PATHS rule.\n',
    'blank-item.md': '---\npaths:\n  - "src/api/**"\n  - ""\n---\n\n# Blank item\n\nBLANK-ITEM rule.\n',
    'cursor-globs.md': '---\nglobs: "src/api/**"\n---\n\n# Cursor field\n\nGLOBS-FIELD rule.\n',
    'broken.md': '---\npaths: [src/api/**\n---\n\n# Broken\n\nBROKEN-YAML rule.\n',
    'alias.md': '---\npaths: *.ts\n---\n\n# Alias\n\nALIAS-YAML rule.\n',
    // Not YAML (an alias to no anchor), though a lenient `key: value` reading finds a list of
    // globs in it: Cline reads no `paths` here, and loads the whole file.
    'lenient.md': '---\npaths: [src/api/**]\ndescription: *no-such-anchor\n---\n\n# Lenient\n\nLENIENT-YAML rule.\n',
  };
  for (const folder of ['.clinerules', '.cline/rules']) {
    it(`${folder}/: imported global, as Cline loads them; the report says why; which fires everywhere and names the mistake`, () => {
      const files: Record<string, string> = { 'src/api/users.ts': 'export {};\n', 'web/app.tsx': 'export {};\n', 'src/日本/ファイル.ts': 'export {};\n' };
      for (const [name, text] of Object.entries(MISREAD)) files[`${folder}/${name}`] = text;
      // Unchanged: a list of globs, non-ASCII ones too, and a hostile one that points outside.
      files[`${folder}/kana.md`] = '---\npaths: ["src/日本/**"]\n---\n\nKANA rule.\n';
      files[`${folder}/escape.md`] = '---\npaths: ["../../**"]\n---\n\nESCAPE rule.\n';
      const dir = workspace(files);
      const report = importJson(dir);
      const skipped = skippedOf(report);
      for (const name of Object.keys(MISREAD)) {
        const found = fromFile(dir, `${folder}/${name}`);
        assert.equal(found.length, 1, `${name}: ${JSON.stringify(skipped)}`);
        assert.deepEqual([found[0]!.scope, found[0]!.paths], ['global', []], `${name} loads for every file in Cline`);
        assert.ok(skipped.some((s) => s.where === `${folder}/${name}` && /imported as Cline loads it/.test(s.reason)), `${name}: ${JSON.stringify(skipped)}`);
      }
      const [broken] = fromFile(dir, `${folder}/broken.md`);
      assert.match(broken!.body, /paths: \[src\/api\/\*\*/, 'Cline loads the whole file, front matter included');
      assert.match(broken!.body, /BROKEN-YAML/);
      assert.match(fromFile(dir, `${folder}/alias.md`)[0]!.body, /paths: \*\.ts[\s\S]*ALIAS-YAML/);
      assert.doesNotMatch(fromFile(dir, `${folder}/string.md`)[0]!.body, /paths:/, 'front matter that parses is not part of the rule');
      const [kana] = fromFile(dir, `${folder}/kana.md`);
      assert.deepEqual([kana?.scope, kana?.paths], ['path', ['src/日本/**']]);

      const web = which(dir, 'web/app.tsx');
      assert.deepEqual(verdictsOf(web, `${folder}/`), {
        'alias.md': [true, 'front matter does not parse: Cline loads the whole file everywhere'],
        'blank-item.md': [true, 'paths is not a list of globs, which Cline ignores: loaded everywhere'],
        'broken.md': [true, 'front matter does not parse: Cline loads the whole file everywhere'],
        'cursor-globs.md': [true, 'Cline rules apply everywhere'],
        'escape.md': [false, 'paths do not match'],
        'kana.md': [false, 'paths do not match'],
        'lenient.md': [true, 'front matter does not parse: Cline loads the whole file everywhere'],
        'string.md': [true, 'paths is not a list of globs, which Cline ignores: loaded everywhere'],
      });
      const problems = web.problems.map((p) => [p.where.slice(folder.length + 1), p.field, p.problem]);
      const has = (name: string, field: string, text: RegExp): void =>
        assert.ok(problems.some(([where, f, problem]) => where === name && f === field && text.test(problem!)), `${name} ${field}: ${JSON.stringify(problems)}`);
      has('string.md', 'paths', /^Cline ignores `paths` unless it is a list of globs.*: this rule loads for every file$/);
      has('blank-item.md', 'paths', /^Cline ignores `paths` unless it is a list of globs/);
      has('cursor-globs.md', 'globs', /^Cline reads `paths`, not `globs`.*loads for every file/);
      has('broken.md', 'front matter', /does not parse.*Cline loads the whole file/);
      has('alias.md', 'front matter', /does not parse.*Cline loads the whole file/);
      has('lenient.md', 'front matter', /does not parse.*Cline loads the whole file/);
      has('escape.md', 'paths', /"\.\.\/\.\.\/\*\*" points outside the workspace/);
      assert.ok(!problems.some(([where]) => where === 'kana.md'), JSON.stringify(problems));
      const kanaHit = which(dir, 'src/日本/ファイル.ts').rules.find((r) => r.path === `${folder}/kana.md`);
      assert.deepEqual([kanaHit?.fires, kanaHit?.why], [true, 'paths src/日本/**']);
      const text = cli(['which', 'web/app.tsx', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout;
      assert.match(text, /fires +\S+string\.md[^\n]*\n +! paths: Cline ignores `paths` unless it is a list of globs/);
      const lint = cli(['which', '--lint', '--db', '.context-ledger/ledger.db'], { cwd: dir }).stdout;
      assert.match(lint, /cursor-globs\.md globs: Cline reads `paths`, not `globs`/);
    });

    it(`${folder}/: the inspector counts each as loaded for every file, as Cline loads it, and one turned off as not loaded`, async () => {
      const files = [
        ...Object.entries(MISREAD).map(([name, content]) => ({ path: `${folder}/${name}`, content })),
        { path: `${folder}/kana.md`, content: '---\npaths: ["src/日本/**"]\n---\n\nKANA rule.\n' },
        { path: `${folder}/off.md`, content: '---\npaths: []\n---\n\nOFF rule.\n' },
      ];
      const counter = await TokenCounter.load('o200k_base');
      const inspect = (active: string): ReturnType<typeof agentFilesView> =>
        agentFilesView({ files, activePaths: [active], ledgerTokens: 0, included: [], count: (text) => counter.count(text) });
      const web = inspect('web/app.tsx');
      const rows = Object.fromEntries(web.files.map((f) => [f.path.slice(folder.length + 1), [f.applies, f.why]]));
      const everywhere = [true, 'Cline loads it for every request'];
      assert.deepEqual(rows, {
        'alias.md': everywhere,
        'blank-item.md': everywhere,
        'broken.md': everywhere,
        'cursor-globs.md': everywhere,
        'kana.md': [false, 'src/日本/** matches no file in play'],
        'lenient.md': everywhere,
        'off.md': [false, 'paths: [] — Cline never loads it'],
        'string.md': everywhere,
      });
      // What the agent pays for on every request: the misread rules, each whole, and nothing else.
      const misread = files.filter((f) => f.path.slice(folder.length + 1) in MISREAD);
      assert.equal(web.alwaysOnTokens, misread.reduce((n, f) => n + counter.count(f.content), 0));
      const kana = inspect('src/日本/ファイル.ts').files.find((f) => f.path === `${folder}/kana.md`);
      assert.deepEqual([kana?.applies, kana?.why], [true, 'src/日本/** matches src/日本/ファイル.ts']);
    });

    it(`${folder}/: fixing the front matter re-imports the rule path-scoped, same artifact, the user's pin kept`, () => {
      const dir = workspace({ 'src/api/users.ts': 'export {};\n', [`${folder}/api.md`]: MISREAD['broken.md'] });
      importJson(dir);
      const [before] = fromFile(dir, `${folder}/api.md`);
      assert.equal(before?.scope, 'global');
      const pin = cli(['pin', before.chainId, '--db', '.context-ledger/ledger.db'], { cwd: dir });
      assert.equal(pin.code, 0, pin.stderr);

      write(dir, { [`${folder}/api.md`]: MISREAD['broken.md'].replace('[src/api/**', '["src/api/**"]') });
      const report = importJson(dir);
      assert.deepEqual(report.formats.flatMap((f) => f.changes).map((c) => [c.outcome, c.file]), [['updated', `${folder}/api.md`]]);
      const [after] = fromFile(dir, `${folder}/api.md`);
      assert.equal(after!.chainId, before.chainId, 'the same artifact, a new version');
      assert.deepEqual([after!.scope, after!.paths], ['path', ['src/api/**']]);
      assert.equal(after!.pinned, true, 'the pin the user set is kept');
      assert.doesNotMatch(after!.body, /paths:/);
      assert.ok(!skippedOf(report).some((s) => s.where === `${folder}/api.md`), JSON.stringify(skippedOf(report)));
    });
  }

  it('which: a .claude/rules file whose front matter does not parse keeps Claude Code\'s verdict; the same text as a Cline rule gets Cline\'s', () => {
    const broken = {
      'unclosed.md': '---\npaths:\n  - "src/api/**"\n\n# API\n\nThe front matter is never closed.\n',
      'malformed.md': '---\npaths: ["src/api/**"]\n{not yaml\n---\n\n# API\n\nNeither YAML nor key: value lines.\n',
    };
    const files: Record<string, string> = { 'src/api/users.ts': 'export {};\n', 'web/app.tsx': 'export {};\n' };
    for (const [name, text] of Object.entries(broken)) {
      files[`.claude/rules/${name}`] = text;
      files[`.cline/rules/${name}`] = text;
    }
    const dir = workspace(files);
    const report = which(dir, 'web/app.tsx');
    // Each file's kind, whether it fires, and why.
    assert.deepEqual(Object.fromEntries(report.rules.map((r) => [r.path, [r.kind, r.fires, r.why]])), {
      '.claude/rules/malformed.md': ['claude-rules', true, 'no paths: always loaded'],
      '.claude/rules/unclosed.md': ['claude-rules', true, 'no paths: always loaded'],
      '.cline/rules/malformed.md': ['cline', true, 'front matter does not parse: Cline loads the whole file everywhere'],
      '.cline/rules/unclosed.md': ['cline', true, 'front matter does not parse: Cline loads the whole file everywhere'],
    });
    // The Claude rules' problem is the parse error itself, not Cline's reading of it.
    const claude = report.problems.filter((p) => p.where.startsWith('.claude/'));
    assert.deepEqual(claude.map((p) => [p.where, p.field]).sort(), [['.claude/rules/malformed.md', 'front matter'], ['.claude/rules/unclosed.md', 'front matter']]);
    assert.ok(claude.every((p) => !/Cline/.test(p.problem)), JSON.stringify(claude));
    assert.match(claude.find((p) => p.where === '.claude/rules/unclosed.md')!.problem, /never closed/);
  });
});
