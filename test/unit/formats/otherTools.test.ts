/**
 * Kiro, Windsurf, Gemini CLI, Junie, Continue, Roo Code, Amazon Q, Augment, Zed and Agent
 * Skills files, read as each tool reads them (docs/formats.md): what each file becomes on
 * import, whether `which` says it fires for a file, and what the Inspector counts as loaded.
 * Real files from public repositories (test/unit/fixtures/real/SOURCES.md) where one could be
 * copied; files written here where none could (Augment, Zed's `.rules`), and for the values
 * real files do not show (a misspelled `inclusion`, a comma in a Kiro pattern).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { classifyRuleFile, parseAgentRules } from '../../../src/core/formats/agentRules';
import type { SourceFile } from '../../../src/core/formats/common';
import { formatOf, notRuleReason } from '../../../src/core/formats/detect';
import { simulateRules, type WhichReport } from '../../../src/core/formats/ruleSimulator';
import { agentFilesView, agentToolFiles } from '../../../src/core/inspector/agentFiles';
import type { ArtifactInput } from '../../../src/core/model';
import { ROOT } from '../helpers';

const REAL = path.join(ROOT, 'test', 'unit', 'fixtures', 'real');

/** Every file under a fixture folder, workspace-relative (its repository's own layout). */
function real(folder: string): SourceFile[] {
  const root = path.join(REAL, folder);
  const out: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push({ path: path.relative(root, full).split(path.sep).join('/'), content: fs.readFileSync(full, 'utf8') });
    }
  };
  walk(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

function byFile(artifacts: ArtifactInput[]): Map<string, ArtifactInput[]> {
  const map = new Map<string, ArtifactInput[]>();
  for (const a of artifacts) {
    const file = a.source!.replace(/^import:[a-z-]+:/, '');
    map.set(file, [...(map.get(file) ?? []), a]);
  }
  return map;
}

function verdicts(report: WhichReport): Record<string, [boolean, string]> {
  return Object.fromEntries(report.rules.map((r) => [r.path, [r.fires, r.why]]));
}

const which = (target: string, files: SourceFile[], extra: string[] = [], text?: string): WhichReport =>
  simulateRules(target, [...files.map((f) => f.path), ...extra, target], files.filter((f) => classifyRuleFile(f.path)), [], text);

describe('Windsurf (real rules of 21-DOT-DEV/swift-secp256k1)', () => {
  const files = real('swift-secp256k1');
  const result = parseAgentRules(files.filter((f) => formatOf(f.path) !== null));
  const got = byFile(result.artifacts);

  it('glob rules become path-scoped; a workflow is not a rule; `trigger: always` is kept and reported, not read as always_on', () => {
    assert.equal(formatOf('.windsurf/workflows/speckit.taskstoissues.md'), null);
    assert.match(notRuleReason('.windsurf/workflows/speckit.taskstoissues.md')!, /Windsurf workflow/);
    assert.deepEqual(got.get('.windsurf/rules/plugin-research.md')![0]!.paths, ['**/Plugins/**/*.swift', '**/Plugin.swift']);
    const always = got.get('.windsurf/rules/posix-commands.md')![0]!;
    assert.equal(always.scope, 'global');
    assert.equal(always.pinned, false);
    assert.ok(always.tags!.includes('unknown-activation'));
    assert.ok(result.skipped.some((s) => s.where === '.windsurf/rules/posix-commands.md' && /"always" is not one of Windsurf's values \(always_on, glob, model_decision, manual\)/.test(s.reason)));
    const became = result.became!.find((b) => b.where === '.windsurf/rules/posix-commands.md')!.what;
    assert.match(became, /trigger "always" is not a value Windsurf documents/);
  });

  it('which: the plugin rule fires for a plugin source, the `trigger: always` rule is silent and says why', () => {
    const report = which('Plugins/SharedSourcesPlugin/Plugin.swift', files, ['Package.swift']);
    const v = verdicts(report);
    assert.deepEqual(v['.windsurf/rules/plugin-research.md'], [true, 'globs **/Plugins/**/*.swift']);
    assert.equal(v['.windsurf/rules/posix-commands.md']![0], false);
    assert.match(v['.windsurf/rules/posix-commands.md']![1], /trigger "always" is not a value Windsurf documents/);
    assert.equal(v['.windsurf/rules/swift-version-compatibility.md']![0], false);
    assert.equal(verdicts(which('Package.swift', files))['.windsurf/rules/swift-version-compatibility.md']![0], true);
    assert.ok(report.problems.some((p) => p.where === '.windsurf/rules/posix-commands.md' && p.field === 'trigger'));
  });

  it('always_on is pinned, model_decision is agent-requested, manual is manual, a comma-separated globs string is split and its spaces linted, .windsurfrules is always on', () => {
    const mine = parseAgentRules([
      { path: '.windsurf/rules/a.md', content: '---\ntrigger: always_on\n---\nA always.\n' },
      { path: '.windsurf/rules/b.md', content: '---\ntrigger: model_decision\ndescription: When touching SQL\n---\nB.\n' },
      { path: '.windsurf/rules/c.md', content: '---\ntrigger: manual\n---\nC.\n' },
      { path: '.windsurf/rules/d.md', content: '---\ntrigger: glob\nglobs: "*.py, **/*.py"\n---\nD.\n' },
      { path: '.windsurfrules', content: '# Legacy\n\nOld rules.\n' },
    ]);
    const m = byFile(mine.artifacts);
    assert.deepEqual([m.get('.windsurf/rules/a.md')![0]!.pinned, m.get('.windsurf/rules/a.md')![0]!.tags], [true, ['windsurf', 'always']]);
    assert.ok(m.get('.windsurf/rules/b.md')![0]!.tags!.includes('agent-requested'));
    assert.ok(m.get('.windsurf/rules/c.md')![0]!.tags!.includes('manual'));
    assert.deepEqual(m.get('.windsurf/rules/d.md')![0]!.paths, ['*.py', '**/*.py']);
    assert.equal(m.get('.windsurfrules')![0]!.scope, 'global');
    const lint = which('src/x.py', [{ path: '.windsurf/rules/d.md', content: '---\ntrigger: glob\nglobs: "*.py, **/*.py"\n---\nD.\n' }]);
    assert.ok(lint.problems.some((p) => /space after a comma/.test(p.problem)));
  });
});

describe('Kiro (real steering of kirodotdev/spirit-of-kiro, and values real files do not show)', () => {
  it('steering without front matter is always included (Kiro\'s default), repository-wide, not pinned', () => {
    const result = parseAgentRules(real('spirit-of-kiro'));
    assert.equal(result.artifacts.length, 3);
    for (const a of result.artifacts) assert.deepEqual([a.scope, a.pinned, a.tags], ['global', false, ['kiro']]);
    assert.ok(result.became!.every((b) => /always on for the whole workspace \(no inclusion or fileMatchPattern: Kiro's default\)/.test(b.what)));
    const v = verdicts(which('client/src/main.ts', real('spirit-of-kiro')));
    assert.deepEqual(v['.kiro/steering/tech.md'], [true, 'Kiro loads it for every file']);
  });

  it('fileMatch (a string, a list, a brace glob), manual, auto, a misspelled inclusion and a comma in a pattern', () => {
    const files: SourceFile[] = [
      { path: '.kiro/steering/ts.md', content: '---\ninclusion: fileMatch\nfileMatchPattern: "src/**/*.{ts,tsx}"\n---\nTS.\n' },
      { path: '.kiro/steering/list.md', content: '---\ninclusion: fileMatch\nfileMatchPattern: ["docs/**", "README.md"]\n---\nDocs.\n' },
      { path: '.kiro/steering/comma.md', content: "---\ninclusion: fileMatch\nfileMatchPattern: 'RELEASE_NOTES.md,CHANGELOG.md'\n---\nRelease.\n" },
      { path: '.kiro/steering/manual.md', content: '---\ninclusion: manual\n---\nBy hand.\n' },
      { path: '.kiro/steering/auto.md', content: '---\ninclusion: auto\nname: api\ndescription: REST API design\n---\nAPI.\n' },
      { path: '.kiro/steering/typo.md', content: '---\ninclusion: Always\n---\nTypo.\n' },
      { path: '.kiro/steering/nopattern.md', content: '---\ninclusion: fileMatch\n---\nNothing.\n' },
      { path: 'packages/web/.kiro/steering/web.md', content: 'Web only.\n' },
    ];
    const result = parseAgentRules(files);
    const m = byFile(result.artifacts);
    assert.deepEqual(m.get('.kiro/steering/ts.md')![0]!.paths, ['src/**/*.{ts,tsx}']);
    assert.deepEqual(m.get('.kiro/steering/list.md')![0]!.paths, ['docs/**', 'README.md']);
    // Kept as one glob, as Kiro documents the field; reported.
    assert.deepEqual(m.get('.kiro/steering/comma.md')![0]!.paths, ['RELEASE_NOTES.md,CHANGELOG.md']);
    assert.ok(result.skipped.some((s) => s.where === '.kiro/steering/comma.md' && /comma outside braces/.test(s.reason)));
    assert.ok(m.get('.kiro/steering/manual.md')![0]!.tags!.includes('manual'));
    assert.ok(m.get('.kiro/steering/auto.md')![0]!.tags!.includes('agent-requested'));
    assert.ok(m.get('.kiro/steering/typo.md')![0]!.tags!.includes('unknown-activation'));
    assert.equal(m.has('.kiro/steering/nopattern.md'), false);
    assert.deepEqual(m.get('packages/web/.kiro/steering/web.md')![0]!.paths, ['packages/web/**']);
    const v = verdicts(which('src/app/page.tsx', files));
    assert.deepEqual(v['.kiro/steering/ts.md'], [true, 'fileMatchPattern src/**/*.{ts,tsx}']);
    assert.equal(v['.kiro/steering/list.md']![0], false);
    assert.equal(v['.kiro/steering/comma.md']![0], false);
    assert.match(v['.kiro/steering/auto.md']![1], /ask for it by its description \("REST API design"\)/);
    assert.match(v['.kiro/steering/typo.md']![1], /inclusion "Always" is not a value Kiro documents/);
    assert.deepEqual(v['packages/web/.kiro/steering/web.md'], [false, 'applies to packages/web/ only']);
    assert.equal(verdicts(which('CHANGELOG.md', files))['.kiro/steering/comma.md']![0], false, 'one glob with a comma matches neither file');
  });
});

describe('Gemini CLI and Junie (real files of google-gemini/gemini-cli and TamarinOpenXrAndroidBindings)', () => {
  it('a root GEMINI.md for everything, a nested one for its folder; Junie guidelines for the whole project', () => {
    const gemini = real('gemini-cli').filter((f) => f.path.endsWith('GEMINI.md'));
    const m = byFile(parseAgentRules(gemini).artifacts);
    assert.ok(m.get('GEMINI.md')!.every((a) => a.scope === 'global'));
    assert.ok(m.get('packages/sdk/GEMINI.md')!.every((a) => a.scope === 'path' && a.paths![0] === 'packages/sdk/**'));
    const inSdk = verdicts(which('packages/sdk/src/agent.ts', gemini));
    assert.equal(inSdk['GEMINI.md']![0], true);
    assert.deepEqual(inSdk['packages/sdk/GEMINI.md'], [true, 'in packages/sdk/, a folder of the file']);
    assert.deepEqual(verdicts(which('packages/cli/index.ts', gemini))['packages/sdk/GEMINI.md'], [false, 'applies to packages/sdk/ only']);
    const junie = parseAgentRules(real('tamarin'));
    assert.ok(junie.artifacts.length > 1 && junie.artifacts.every((a) => a.scope === 'global' && a.source === 'import:junie:.junie/guidelines.md'));
    const nested = parseAgentRules([{ path: 'tools/.junie/guidelines.md', content: 'Tools.\n' }]);
    assert.equal(nested.artifacts.length, 0);
    assert.ok(nested.skipped.some((s) => /workspace root only/.test(s.reason)));
  });
});

describe('Continue (real rules of continuedev/continue)', () => {
  const files = real('continue');
  const rules = files.filter((f) => formatOf(f.path) !== null);

  it('globs → path-scoped (also on request by description with alwaysApply: false), neither → always; a prompt is not a rule', () => {
    assert.equal(formatOf('.continue/prompts/sub-agent-foreground.md'), null);
    assert.match(notRuleReason('.continue/prompts/sub-agent-foreground.md')!, /Continue prompt/);
    const result = parseAgentRules(rules);
    const m = byFile(result.artifacts);
    assert.deepEqual(m.get('.continue/rules/colors.md')![0]!.paths, ['gui/**/*.tsx']);
    assert.deepEqual(m.get('.continue/rules/no-any-types.md')![0]!.paths, ['**/*.{ts,tsx}']);
    assert.deepEqual([m.get('.continue/rules/overeager.md')![0]!.scope, m.get('.continue/rules/overeager.md')![0]!.title], ['global', "Don't be overeager"]);
    assert.match(result.became!.find((b) => b.where === '.continue/rules/colors.md')!.what, /path-scoped to gui\/\*\*\/\*\.tsx, or when the agent asks for it by its description \(alwaysApply: false, globs: gui/);
  });

  it('which: globs decide; with alwaysApply: false the agent may still ask; a regex rule needs the file\'s text', () => {
    const gui = verdicts(which('gui/src/App.tsx', rules));
    assert.deepEqual(gui['.continue/rules/colors.md'], [true, 'globs gui/**/*.tsx']);
    assert.deepEqual(gui['.continue/rules/no-any-types.md'], [true, 'globs **/*.{ts,tsx}']);
    assert.equal(gui['.continue/rules/overeager.md']![0], true);
    const core = verdicts(which('core/index.ts', rules));
    assert.match(core['.continue/rules/colors.md']![1], /globs do not match; the agent may still ask for it by its description/);
    const regex: SourceFile[] = [{ path: '.continue/rules/react.md', content: '---\nglobs: "**/*.tsx"\nregex: "^import React"\n---\nReact rules.\n' }];
    assert.deepEqual(verdicts(which('a.tsx', regex, [], 'import React from "react";\n'))['.continue/rules/react.md'], [true, 'globs **/*.tsx']);
    assert.match(verdicts(which('a.tsx', regex, [], 'export {};\n'))['.continue/rules/react.md']![1], /does not match the file's text/);
    assert.ok(parseAgentRules(regex).artifacts[0]!.tags!.includes('regex'));
  });
});

describe('Roo Code (real rules of RooCodeInc/Roo-Code)', () => {
  const files = real('roo-code');

  it('.roo/rules for every mode, .roo/rules-<mode> (any text file, XML here) for its mode only, as a label condition', () => {
    const m = byFile(parseAgentRules(files).artifacts);
    assert.ok(m.get('.roo/rules/rules.md')!.every((a) => a.scope === 'global' && a.conditions === undefined));
    const xml = m.get('.roo/rules-pr-fixer/2_best_practices.xml')![0]!;
    assert.deepEqual([xml.conditions, xml.tags], [{ labels: ['pr-fixer'] }, ['roo', 'mode-pr-fixer']]);
    const v = verdicts(which('src/extension.ts', files));
    assert.equal(v['.roo/rules/rules.md']![0], true);
    assert.match(v['.roo/rules-pr-fixer/2_best_practices.xml']![1], /in Roo Code's "pr-fixer" mode only/);
  });

  it('.roorules is read only where .roo/rules/ holds no file: skipped on import, silent in which', () => {
    const withLegacy = [...files, { path: '.roorules', content: 'Legacy Roo rules.\n' }];
    const result = parseAgentRules(withLegacy);
    assert.equal(byFile(result.artifacts).has('.roorules'), false);
    assert.ok(result.skipped.some((s) => s.where === '.roorules' && /\.roo\/rules\/rules\.md is there/.test(s.reason)));
    assert.match(verdicts(which('a.ts', withLegacy))['.roorules']![1], /Roo Code reads \.roo\/rules\/rules\.md instead/);
    const alone = parseAgentRules([{ path: '.roorules', content: 'Legacy Roo rules.\n' }]);
    assert.equal(alone.artifacts[0]!.scope, 'global');
  });
});

describe('Amazon Q and Augment', () => {
  it('Amazon Q rules (real, aws/amazon-q-developer-cli) are always on; a nested .amazonq is not read', () => {
    const q = parseAgentRules(real('amazon-q-cli'));
    assert.ok(q.artifacts.length > 0 && q.artifacts.every((a) => a.scope === 'global' && a.source === 'import:amazonq:.amazonq/rules/repo-maintenance.md'));
    assert.equal(verdicts(which('crates/x.rs', real('amazon-q-cli')))['.amazonq/rules/repo-maintenance.md']![0], true);
    assert.equal(parseAgentRules([{ path: 'sub/.amazonq/rules/a.md', content: 'A.\n' }]).artifacts.length, 0);
  });

  it('Augment: always_apply pinned, agent_requested by description, manual, a missing or unknown type reported, the legacy .augment-guidelines always on', () => {
    const files: SourceFile[] = [
      { path: '.augment/rules/always.md', content: '---\ntype: always_apply\n---\nAlways.\n' },
      { path: '.augment/rules/asked.md', content: '---\ntype: agent_requested\ndescription: Database migrations\n---\nAsked.\n' },
      { path: '.augment/rules/manual.md', content: '---\ntype: manual\n---\nManual.\n' },
      { path: '.augment/rules/old.md', content: '---\ntype: always\n---\nOld value.\n' },
      { path: '.augment/rules/none.md', content: 'No front matter.\n' },
      { path: '.augment-guidelines', content: 'Legacy guidelines.\n' },
    ];
    const result = parseAgentRules(files);
    const m = byFile(result.artifacts);
    assert.deepEqual(m.get('.augment/rules/always.md')![0]!.tags, ['augment', 'always']);
    assert.equal(m.get('.augment/rules/always.md')![0]!.pinned, true);
    assert.ok(m.get('.augment/rules/asked.md')![0]!.tags!.includes('agent-requested'));
    assert.ok(m.get('.augment/rules/manual.md')![0]!.tags!.includes('manual'));
    for (const f of ['old', 'none']) assert.ok(m.get(`.augment/rules/${f}.md`)![0]!.tags!.includes('unknown-activation'));
    assert.equal(m.get('.augment-guidelines')![0]!.scope, 'global');
    const v = verdicts(which('a.ts', files));
    assert.equal(v['.augment/rules/always.md']![0], true);
    assert.equal(v['.augment/rules/asked.md']![0], false);
    assert.equal(v['.augment-guidelines']![0], true);
  });
});

describe('Zed: the first file of its list at the root', () => {
  it('.rules when present, else the first of .cursorrules … AGENTS.md, CLAUDE.md, GEMINI.md (real AGENTS.md and GEMINI.md)', () => {
    const agents = { path: 'AGENTS.md', content: fs.readFileSync(path.join(REAL, 'cline', 'AGENTS.md'), 'utf8') };
    const gemini = real('gemini-cli').find((f) => f.path === 'GEMINI.md')!;
    const without = verdicts(which('src/a.ts', [agents, gemini]));
    assert.match(without['AGENTS.md']![1], /; Zed reads this file \(the first of its list at the root\)$/);
    assert.match(without['GEMINI.md']![1], /; Zed reads AGENTS\.md instead$/);
    const rules = { path: '.rules', content: 'Zed project rules.\n' };
    const withRules = verdicts(which('src/a.ts', [agents, gemini, rules]));
    assert.match(withRules['.rules']![1], /Zed loads it for every file; Zed reads this file/);
    assert.match(withRules['AGENTS.md']![1], /; Zed reads \.rules instead$/);
    assert.equal(parseAgentRules([rules]).artifacts[0]!.source, 'import:zed:.rules');
    assert.deepEqual(agentToolFiles('zed', [agents, gemini, rules], ['src/a.ts']).map((f) => f.path), ['.rules']);
    assert.deepEqual(agentToolFiles('zed', [agents, gemini], ['src/a.ts']).map((f) => f.path), ['AGENTS.md']);
  });
});

describe('Agent Skills (real skills of microsoft/vscode and google-gemini/gemini-cli)', () => {
  const skill = real('vscode').find((f) => f.path === '.github/skills/code-review/SKILL.md')!;
  // The repositories keep one skill for several tools: the test makes the copies, as they do.
  const copies: SourceFile[] = [skill, { ...skill, path: '.claude/skills/code-review/SKILL.md' }, { ...skill, path: '.agents/skills/code-review/SKILL.md' }];

  it('the same skill in several tools\' folders is imported once, as on-demand knowledge by description, never always-on or path-scoped', () => {
    const gemini = real('gemini-cli').find((f) => f.path.endsWith('SKILL.md'))!;
    const nested = { ...gemini, path: 'tools/bot/.gemini/skills/pr-address-comments/SKILL.md' };
    const result = parseAgentRules([...copies, gemini, nested]);
    const skills = result.artifacts.filter((a) => a.tags!.includes('skill'));
    assert.deepEqual(skills.map((a) => [a.source, a.title, a.scope, a.pinned, a.tags]), [
      ['import:skills:.agents/skills/code-review/SKILL.md', 'code-review', 'global', false, ['skills', 'skill', 'agent-requested']],
      ['import:skills:.gemini/skills/pr-address-comments/SKILL.md', 'pr-address-comments', 'global', false, ['skills', 'skill', 'agent-requested']],
      ['import:skills:tools/bot/.gemini/skills/pr-address-comments/SKILL.md', 'pr-address-comments', 'global', false, ['skills', 'skill', 'agent-requested']],
    ]);
    assert.equal(skills[0]!.summary, "Use this skill when you're asked to perform a code review.");
    for (const copy of ['.claude/skills/code-review/SKILL.md', '.github/skills/code-review/SKILL.md']) {
      assert.ok(result.skipped.some((s) => s.where === copy && /the same skill as \.agents\/skills\/code-review\/SKILL\.md .*imported once/.test(s.reason)));
    }
    assert.match(notRuleReason('.github/skills/code-review/references/sbatten.md')!, /part of a skill/);
    const v = verdicts(which('src/a.ts', copies));
    for (const copy of copies) assert.match(v[copy.path]![1], /^on demand: the agent loads this skill when a task matches its description/);
  });

  it('a copy of the same name with other text is its own entry, noted', () => {
    const other = { path: '.claude/skills/code-review/SKILL.md', content: skill.content.replace('ignore this skill.', 'ask Claude to review instead.') };
    const result = parseAgentRules([skill, other]);
    assert.equal(result.artifacts.length, 2);
    assert.ok(result.skipped.some((s) => s.where === '.github/skills/code-review/SKILL.md' && /different text: imported as its own entry/.test(s.reason)));
  });

  it('each tool loads the skills of its own folders only', () => {
    const paths = (tool: Parameters<typeof agentToolFiles>[0]): string[] => agentToolFiles(tool, copies, ['src/a.ts']).map((f) => f.path);
    assert.deepEqual(paths('claude'), ['.claude/skills/code-review/SKILL.md']);
    assert.deepEqual(paths('codex'), ['.agents/skills/code-review/SKILL.md']);
    assert.deepEqual(paths('copilot'), copies.map((c) => c.path).sort());
    assert.deepEqual(paths('cursor'), []);
    assert.ok(agentToolFiles('claude', copies, []).every((f) => !f.applies && /loaded on request only/.test(f.why)));
  });
});

describe('Copilot prompt files and custom agents (real files of microsoft/vscode) are not rules', () => {
  it('neither is read as a rule, and the import says why', () => {
    for (const file of ['.github/prompts/no-any.prompt.md', '.github/agents/my-agent.agent.md']) {
      assert.equal(classifyRuleFile(file), null);
      assert.equal(formatOf(file), null);
    }
    assert.match(notRuleReason('.github/prompts/no-any.prompt.md')!, /Copilot prompt file/);
    assert.match(notRuleReason('.github/agents/my-agent.agent.md')!, /Copilot custom agent/);
    assert.equal(notRuleReason('.github/instructions/ts.instructions.md'), null);
  });
});

describe('the Inspector\'s "what the agent sees", one model for every tool', () => {
  it('counts what each tool loads for the files in play: a Kiro fileMatch, a Roo mode rule, a skill', () => {
    const files = [
      ...real('roo-code'),
      { path: '.kiro/steering/ts.md', content: '---\ninclusion: fileMatch\nfileMatchPattern: ["src/**/*.ts"]\n---\nTS.\n' },
      ...real('vscode').filter((f) => f.path.endsWith('SKILL.md')),
      ...real('gemini-cli').filter((f) => f.path.endsWith('GEMINI.md')),
    ];
    const view = agentFilesView({ files, activePaths: ['src/a.ts'], ledgerTokens: 0, included: [], count: (t) => t.length });
    const rows = Object.fromEntries(view.files.map((f) => [f.path, [f.applies, f.why]]));
    assert.deepEqual(rows['.kiro/steering/ts.md'], [true, 'src/**/*.ts matches src/a.ts']);
    assert.deepEqual(rows['.roo/rules/rules.md'], [true, 'Roo Code loads it for every request']);
    assert.deepEqual(rows['.roo/rules-pr-fixer/2_best_practices.xml'], [false, 'Roo Code loads it in its "pr-fixer" mode only']);
    assert.equal(rows['.github/skills/code-review/SKILL.md']![0], false);
    assert.deepEqual(rows['packages/sdk/GEMINI.md'], [false, 'applies under packages/sdk/ only; no file in play there']);
    assert.equal(view.alwaysOnTokens, ['.roo/rules/rules.md', '.kiro/steering/ts.md', 'GEMINI.md'].reduce((n, p) => n + files.find((f) => f.path === p)!.content.length, 0));
  });
});

describe('hostile and malformed files of the new tools', () => {
  it('a glob out of the workspace, unclosed front matter, an empty skill, a non-ASCII name, a huge steering file', () => {
    const files: SourceFile[] = [
      { path: '.kiro/steering/out.md', content: '---\ninclusion: fileMatch\nfileMatchPattern: "../../etc/**"\n---\nOut.\n' },
      { path: '.windsurf/rules/open.md', content: '---\ntrigger: glob\nglobs: "*.ts"\nNo closing line.\n' },
      { path: '.claude/skills/empty/SKILL.md', content: '---\nname: empty\ndescription: Nothing\n---\n' },
      { path: '.roo/rules/規則.md', content: '# 規則\n\n日本語のルール。\n' },
      { path: '.roo/rules/ルール.md', content: '# ルール\n\n別のルール。\n' },
      { path: '.kiro/steering/huge.md', content: `# Huge\n\n${'## Part\n\nA long line of steering text. '.repeat(40_000)}` },
    ];
    const result = parseAgentRules(files);
    const why = (where: string): string => result.skipped.filter((s) => s.where === where).map((s) => s.reason).join(' | ');
    assert.match(why('.windsurf/rules/open.md'), /never closed/);
    assert.match(why('.claude/skills/empty/SKILL.md'), /no content/);
    const roo = result.artifacts.filter((a) => a.source!.startsWith('import:roo:'));
    assert.equal(new Set(roo.map((a) => a.id)).size, 2, 'two non-ASCII names, two ids');
    assert.ok(result.artifacts.some((a) => a.source === 'import:kiro:.kiro/steering/huge.md'));
    const report = which('src/a.ts', files);
    assert.ok(report.problems.some((p) => p.where === '.kiro/steering/out.md' && /points outside the workspace/.test(p.problem)));
    assert.equal(verdicts(report)['.kiro/steering/out.md']![0], false);
  });
});
