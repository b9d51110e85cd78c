/**
 * The real CLI on one workspace that keeps many tools' files at once (as real repositories
 * do): the real Windsurf, Kiro, Gemini CLI, Junie, Continue, Roo Code, Amazon Q files and
 * skills of test/unit/fixtures/real, a Copilot prompt file and custom agent, a workflow.
 * `import-folder --dry-run` says what each file became and why and what is not a rule; the
 * import keeps a pin across re-imports; `which` answers per tool; `export --to` each tool
 * writes within budget and never over a person's file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { type ArtifactJson, cli, jsonOf, ROOT } from '../helpers';
import { tempDir } from './shared';

const REAL = path.join(ROOT, 'test', 'unit', 'fixtures', 'real');
const FOLDERS = ['swift-secp256k1', 'spirit-of-kiro', 'gemini-cli', 'tamarin', 'continue', 'roo-code', 'amazon-q-cli', 'vscode'];

interface Report {
  formats: { format: string; added: number; unchanged: number; became: { where: string; what: string }[]; skipped: { where: string; reason: string }[] }[];
  skipped: { where: string; reason: string }[];
}
interface Which {
  rules: { path: string; kind: string; fires: boolean; why: string }[];
}

function workspace(): string {
  const dir = tempDir('ledger-other-tools-');
  for (const folder of FOLDERS) fs.cpSync(path.join(REAL, folder), dir, { recursive: true });
  // One skill kept for two tools, as repositories do: the copy is made here.
  fs.cpSync(path.join(dir, '.github', 'skills'), path.join(dir, '.claude', 'skills'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'Plugins', 'SharedSourcesPlugin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Plugins', 'SharedSourcesPlugin', 'Plugin.swift'), '// plugin\n');
  fs.mkdirSync(path.join(dir, '.context-ledger'), { recursive: true });
  return dir;
}

const db = ['--db', '.context-ledger/ledger.db'];

function importJson(cwd: string, ...args: string[]): Report {
  const result = cli(['import-folder', ...db, '--format', 'json', ...args], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return jsonOf<Report>(result);
}

function latest(cwd: string): ArtifactJson[] {
  const result = cli(['export', ...db, '--format', 'jsonl', '--latest-only'], { cwd });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ArtifactJson);
}

describe('every tool\'s files in one workspace (real CLI, real files)', () => {
  const dir = workspace();

  it('import-folder --dry-run says what each file became and why, and names the files that are not rules', () => {
    const report = importJson(dir, '--dry-run');
    const formats = report.formats.map((f) => f.format).sort();
    for (const format of ['amazonq', 'continue', 'gemini', 'junie', 'kiro', 'roo', 'skills', 'windsurf']) assert.ok(formats.includes(format), format);
    const became = Object.fromEntries(report.formats.flatMap((f) => f.became).map((b) => [b.where, b.what]));
    assert.match(became['.windsurf/rules/plugin-research.md']!, /^path-scoped to \*\*\/Plugins\/\*\*\/\*\.swift, \*\*\/Plugin\.swift \(trigger: glob, globs:/);
    assert.match(became['.windsurf/rules/posix-commands.md']!, /neither pinned nor exported .*trigger "always" is not a value Windsurf documents/);
    assert.match(became['.roo/rules-pr-fixer/2_best_practices.xml']!, /Roo Code's "pr-fixer" mode only/);
    assert.match(became['.agents/skills/code-review/SKILL.md'] ?? became['.claude/skills/code-review/SKILL.md']!, /on-demand knowledge/);
    assert.match(became['.continue/rules/overeager.md']!, /always on for the whole workspace/);
    const skipped = Object.fromEntries([...report.skipped, ...report.formats.flatMap((f) => f.skipped)].map((s) => [s.where, s.reason]));
    assert.match(skipped['.github/prompts/no-any.prompt.md']!, /Copilot prompt file/);
    assert.match(skipped['.github/agents/my-agent.agent.md']!, /Copilot custom agent/);
    assert.match(skipped['.windsurf/workflows/speckit.taskstoissues.md']!, /Windsurf workflow/);
    assert.match(skipped['.continue/prompts/sub-agent-foreground.md']!, /Continue prompt/);
    assert.match(skipped['.github/skills/code-review/SKILL.md']!, /the same skill as \.claude\/skills\/code-review\/SKILL\.md/);
    const text = cli(['import-folder', ...db, '--dry-run'], { cwd: dir }).stdout;
    assert.match(text, /Would read each file as:\n/);
    assert.match(text, /\.kiro\/steering\/tech\.md: always on for the whole workspace/);
    assert.equal(fs.existsSync(path.join(dir, '.context-ledger', 'ledger.db')), false, 'a dry run writes nothing');
  });

  it('import, then a pin made in the ledger survives re-import; nothing of a prompt, agent or workflow is in the ledger', () => {
    importJson(dir);
    const all = latest(dir);
    const sources = new Set(all.map((a) => a.source));
    for (const notRule of ['.github/prompts/no-any.prompt.md', '.github/agents/my-agent.agent.md', '.windsurf/workflows/speckit.taskstoissues.md', '.continue/prompts/sub-agent-foreground.md']) {
      assert.ok(![...sources].some((s) => s.endsWith(`:${notRule}`)), notRule);
    }
    assert.equal(all.filter((a) => a.source.startsWith('import:skills:') && a.title === 'code-review').length, 1, 'one skill, once');
    const junie = all.find((a) => a.source === 'import:junie:.junie/guidelines.md')!;
    assert.equal(cli(['pin', junie.id, ...db], { cwd: dir }).code, 0);
    const again = importJson(dir);
    assert.ok(again.formats.every((f) => f.added === 0));
    assert.equal(latest(dir).find((a) => a.id === junie.id)!.pinned, true);
  });

  it('which <file> answers for each tool\'s files as the tool would', () => {
    const result = cli(['which', 'Plugins/SharedSourcesPlugin/Plugin.swift', ...db, '--format', 'json'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    const v = Object.fromEntries(jsonOf<Which>(result).rules.map((r) => [r.path, [r.fires, r.why] as [boolean, string]]));
    assert.deepEqual(v['.windsurf/rules/plugin-research.md'], [true, 'globs **/Plugins/**/*.swift']);
    assert.equal(v['.windsurf/rules/posix-commands.md']![0], false);
    assert.equal(v['.continue/rules/no-any-types.md']![0], false);
    assert.equal(v['.kiro/steering/tech.md']![0], true);
    assert.equal(v['.junie/guidelines.md']![0], true);
    assert.equal(v['.amazonq/rules/repo-maintenance.md']![0], true);
    assert.deepEqual(v['packages/sdk/GEMINI.md'], [false, 'applies to packages/sdk/ only']);
    assert.match(v['GEMINI.md']![1], /Zed reads this file \(the first of its list at the root\)/);
    assert.match(v['.claude/skills/code-review/SKILL.md']![1], /^on demand/);
    assert.match(v['.roo/rules-pr-fixer/2_best_practices.xml']![1], /"pr-fixer" mode only/);
    const text = cli(['which', 'Plugins/SharedSourcesPlugin/Plugin.swift', ...db], { cwd: dir }).stdout;
    assert.match(text, /! trigger: "always" is not one of Windsurf's values/);
  });

  it('export --to each tool: within budget, into the tool\'s own place, a person\'s file of the same name refused', () => {
    for (const target of ['kiro', 'windsurf', 'continue', 'roo', 'amazonq', 'augment', 'gemini']) {
      const out = tempDir(`ledger-export-${target}-`);
      const result = cli(['export', '--to', target, '--out', out, '--budget', '1500', ...db, '--format', 'json'], { cwd: dir });
      assert.equal(result.code, 0, `${target}: ${result.stderr}`);
      const report = jsonOf<{ files: { path: string; tokens: number }[]; leftOut: { id: string; reason: string }[] }>(result);
      assert.ok(report.files.length > 0, target);
      for (const file of report.files) {
        assert.ok(file.tokens <= 1500, `${target} ${file.path} ${file.tokens}`);
        assert.ok(fs.readFileSync(path.join(out, file.path), 'utf8').includes('Generated by Context Ledger'));
      }
      // Skills and the unknown `trigger: always` rule are not written as always-on knowledge.
      assert.ok(report.leftOut.some((l) => /agent-requested in its source/.test(l.reason)), target);
      assert.ok(report.leftOut.some((l) => /does not document/.test(l.reason)), target);
    }
    const mine = tempDir('ledger-export-mine-');
    fs.mkdirSync(path.join(mine, '.kiro', 'steering'), { recursive: true });
    fs.writeFileSync(path.join(mine, '.kiro', 'steering', 'context-ledger-global.md'), 'My own steering.\n');
    const refused = cli(['export', '--to', 'kiro', '--out', mine, ...db], { cwd: dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused to overwrite \.kiro\/steering\/context-ledger-global\.md/);
    assert.equal(fs.readFileSync(path.join(mine, '.kiro', 'steering', 'context-ledger-global.md'), 'utf8'), 'My own steering.\n');
    const unknown = cli(['export', '--to', 'zed', ...db], { cwd: dir });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /--to copilot\|cursor\|agents\|kiro\|windsurf\|continue\|roo\|amazonq\|augment\|gemini/);
  });
});

describe('import-folder names the reader of an AGENTS.md in a sentence that reads', () => {
  it('says "An agent that reads AGENTS.md loads this file whole"', () => {
    const dir = tempDir('ledger-agents-md-reader-');
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Rules\n\nUse tabs.\n');
    const text = cli(['import-folder', '--dry-run'], { cwd: dir }).stdout;
    assert.match(text, /AGENTS\.md: always on for the whole workspace \(An agent that reads AGENTS\.md loads this file whole\)/);
  });
});
