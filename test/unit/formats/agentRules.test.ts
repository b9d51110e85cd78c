import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { classifyRuleFile, headingMark, loadedForEveryFile, parseAgentRules } from '../../../src/core/formats/agentRules';
import { ROOT } from '../helpers';

describe('Copilot instructions', () => {
  it('splits copilot-instructions.md by its top-most multi-section heading level, keeping the preamble', () => {
    const content = `# Copilot Instructions

Read the ledger first.

## Error Handling

Use \`thiserror\`.

\`\`\`rust
#[derive(Error)]
# not a heading
\`\`\`

## Testing

Tests live next to code.

### Unit

Small.
`;
    const result = parseAgentRules([{ path: '.github/copilot-instructions.md', content }]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title, a.scope, a.type]),
      [
        ['copilot-instructions', 'Copilot Instructions', 'global', 'convention'],
        ['copilot-instructions-error-handling', 'Copilot Instructions: Error Handling', 'global', 'convention'],
        ['copilot-instructions-testing', 'Copilot Instructions: Testing', 'global', 'convention'],
      ],
    );
    assert.equal(result.artifacts[0]!.body, 'Read the ledger first.');
    assert.match(result.artifacts[1]!.body, /# not a heading/);
    assert.match(result.artifacts[2]!.body, /### Unit\n\nSmall\.$/);
    assert.equal(result.artifacts[0]!.source, 'import:copilot:.github/copilot-instructions.md');
  });

  it('turns applyTo globs into a path scope (comma lists split, brace groups kept)', () => {
    const result = parseAgentRules([
      { path: '.github/instructions/ts.instructions.md', content: '---\napplyTo: "src/**/*.ts, lib/**/*.{js,mjs}"\n---\n# TypeScript\n\nUse strict mode.\n' },
      { path: '.github/instructions/all.instructions.md', content: "---\napplyTo: '**'\ndescription: Everywhere\n---\nBe kind.\n" },
    ]);
    const [all, ts] = result.artifacts;
    assert.deepEqual([ts!.id, ts!.title, ts!.scope, ts!.paths, ts!.body], ['copilot-ts', 'TypeScript', 'path', ['src/**/*.ts', 'lib/**/*.{js,mjs}'], 'Use strict mode.']);
    assert.deepEqual([all!.id, all!.title, all!.scope, all!.paths, all!.summary], ['copilot-all', 'Everywhere', 'global', [], 'Everywhere']);
  });
});

describe('Cursor rules', () => {
  it('reads globs written the way Cursor writes them (unquoted *, invalid YAML)', () => {
    const result = parseAgentRules([
      { path: '.cursor/rules/react.mdc', content: '---\ndescription: React rules\nglobs: *.tsx, src/components/**\nalwaysApply: false\n---\n\n# React\n\nHooks at the top.\n' },
    ]);
    const [rule] = result.artifacts;
    assert.deepEqual(result.skipped, []);
    assert.deepEqual([rule!.id, rule!.title, rule!.scope, rule!.paths, rule!.pinned, rule!.summary], ['cursor-react', 'React', 'path', ['*.tsx', 'src/components/**'], false, 'React rules']);
    assert.deepEqual(rule!.tags, ['cursor', 'react']);
  });

  it('pins alwaysApply rules, reads YAML glob lists, and keeps the whole file as one rule', () => {
    const result = parseAgentRules([
      { path: '.cursor/rules/product.mdc', content: '---\ndescription: Product context\nglobs: []\nalwaysApply: true\n---\n\n# Product\n\nIntro.\n\n## Users\n\nDevs.\n\n## Goals\n\nFast.\n' },
      { path: '.cursor/rules/go/style.mdc', content: '---\nglobs:\n  - "**/*.go"\n  - cmd/**\n---\nGofmt everything.\n' },
    ]);
    const [style, product] = result.artifacts;
    assert.deepEqual([product!.scope, product!.pinned, product!.title], ['global', true, 'Product']);
    assert.match(product!.body, /^Intro\.\n\n## Users\n\nDevs\.\n\n## Goals\n\nFast\.$/);
    assert.deepEqual([style!.id, style!.title, style!.paths], ['cursor-go-style', 'Go style', ['**/*.go', 'cmd/**']]);
  });

  it('skips front matter it cannot read at all, with the reason', () => {
    const result = parseAgentRules([{ path: '.cursor/rules/bad.mdc', content: '---\nglobs: [unclosed\n  : : :\n---\nBody\n' }]);
    assert.equal(result.artifacts.length, 0);
    assert.match(result.skipped[0]!.reason, /^malformed front matter: /);
  });
});

describe('CLAUDE.md, AGENTS.md, .clinerules, .claude/rules', () => {
  it('splits CLAUDE.md by ## and keeps the preamble; a nested CLAUDE.md applies to its folder', () => {
    const content = '# CLAUDE.md\n\nGuidance for Claude.\n\n## Build\n\nRun `make ci`.\n\n```bash\n# not a section\nmake dev\n```\n\n## Style\n\nEdition 2024.\n';
    const result = parseAgentRules([
      { path: 'CLAUDE.md', content },
      { path: 'packages/api/CLAUDE.md', content: '# API\n\nUse REST.\n' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title, a.scope, a.paths]),
      [
        ['claude-md', 'CLAUDE.md', 'global', []],
        ['claude-md-build', 'Build', 'global', []],
        ['claude-md-style', 'Style', 'global', []],
        ['claude-packages-api-md', 'API', 'path', ['packages/api/**']],
      ],
    );
    assert.match(result.artifacts[1]!.body, /# not a section\nmake dev/);
  });

  it('handles the .clinerules double-title quirk (# file, # Title, then ## sections)', () => {
    const content = '# product\n\n\n# Product Context\n\nctx gives AI memory.\n\n## Target users\n\nDevelopers.\n\n## Out of scope\n\nHosting.\n';
    const result = parseAgentRules([{ path: '.clinerules/product.md', content }]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title, a.body]),
      [
        ['cline-product', 'Product Context', 'ctx gives AI memory.'],
        ['cline-product-target-users', 'Product Context: Target users', 'Developers.'],
        ['cline-product-out-of-scope', 'Product Context: Out of scope', 'Hosting.'],
      ],
    );
    assert.deepEqual(result.artifacts[0]!.tags, ['cline', 'product']);
  });

  it('reads a .clinerules file, AGENTS.md with setext headings, and .claude/rules paths', () => {
    const result = parseAgentRules([
      { path: '.clinerules', content: 'Always run tests.\n' },
      { path: 'AGENTS.md', content: 'Setup\n=====\n\nnpm ci\n\nTesting\n=======\n\nnpm test\n' },
      { path: '.claude/rules/api.md', content: '---\npaths:\n  - "src/api/**/*.ts"\n---\n# API rules\n\nValidate input.\n' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title, a.scope, a.paths]),
      [
        ['claude-api', 'API rules', 'path', ['src/api/**/*.ts']],
        ['cline', '.clinerules', 'global', []],
        ['agents-md-setup', 'Setup', 'global', []],
        ['agents-md-testing', 'Testing', 'global', []],
      ],
    );
  });

  it('never imports a file Context Ledger generated', () => {
    const result = parseAgentRules([
      { path: 'AGENTS.md', content: '<!-- Generated by Context Ledger from the ledger. Do not edit by hand. -->\n# Project knowledge\n' },
    ]);
    assert.equal(result.artifacts.length, 0);
    assert.match(result.skipped[0]!.reason, /generated by Context Ledger/);
  });

  it('handles empty input, empty files and unknown files', () => {
    assert.deepEqual(parseAgentRules([]), { artifacts: [], skipped: [], became: [] });
    const result = parseAgentRules([
      { path: 'CLAUDE.md', content: '' },
      { path: 'README.md', content: '# Hi' },
    ]);
    assert.deepEqual(
      result.skipped.map((s) => s.reason),
      ['no content', 'not an agent rule file this importer knows'],
    );
  });

  it('gives hostile and non-ASCII headings safe ids and keeps their text', () => {
    const content = '## 日本語の規約\n\n説明。\n\n## <script>alert(1)</script>\n\nx\n\n## ../../etc/passwd\n\ny\n\n## 🚀\n\nz\n\n## עברית\n\nw\n';
    const result = parseAgentRules([{ path: 'AGENTS.md', content }]);
    assert.deepEqual(
      result.artifacts.map((a) => a.title),
      ['日本語の規約', '<script>alert(1)</script>', '../../etc/passwd', '🚀', 'עברית'],
    );
    for (const artifact of result.artifacts) assert.match(artifact.id!, /^[a-z0-9-]+$/);
    assert.equal(new Set(result.artifacts.map((a) => a.id)).size, 5);
  });

  it('splits a 5,000-section AGENTS.md quickly', () => {
    const content = Array.from({ length: 5000 }, (_, i) => `## Rule ${i}\n\nDo thing ${i}.\n`).join('\n');
    const started = performance.now();
    const result = parseAgentRules([{ path: 'AGENTS.md', content }]);
    const elapsed = performance.now() - started;
    assert.equal(result.artifacts.length, 5000);
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
  });
});

describe('sections their authors mark "always" or "critical"', () => {
  // cap-js/ord's real instructions (test/unit/fixtures/real/SOURCES.md): 13 numbered sections,
  // "## 10. Safe Change Checklist (always)" and "## 2. Generation Flow (critical mental model)".
  const ord = fs.readFileSync(path.join(ROOT, 'test', 'unit', 'fixtures', 'real', 'cap-js-ord', '.github', 'copilot-instructions.md'), 'utf8');

  it('a section marked "(always)" or "critical" keeps the mark as a tag; no section is pinned (the tool gives the words no meaning of its own); the others carry no mark', () => {
    const { artifacts } = parseAgentRules([{ path: '.github/copilot-instructions.md', content: ord }]);
    const byTitle = (name: string) => artifacts.find((a) => a.title.includes(name))!;
    const always = byTitle('10. Safe Change Checklist');
    assert.equal(always.pinned, false);
    assert.ok(always.tags?.includes('always'));
    assert.equal(always.scope, 'global');
    const critical = byTitle('2. Generation Flow');
    assert.equal(critical.pinned, false);
    assert.ok(critical.tags?.includes('critical'));
    assert.deepEqual(
      artifacts.filter((a) => a.pinned).map((a) => a.id),
      [],
    );
    const marked = artifacts.filter((a) => a.tags?.includes('always') || a.tags?.includes('critical'));
    assert.equal(marked.length, 2, 'the other eleven sections carry no mark');
  });

  it('in a nested file the marked section keeps its folder scope (the tool loads it only there); a rule file scoped by paths stays scoped', () => {
    const nested = parseAgentRules([{ path: 'packages/ord/.github/copilot-instructions.md', content: ord }]).artifacts.find((a) => a.title.includes('10. Safe Change'))!;
    assert.equal(nested.pinned, false);
    assert.deepEqual([nested.scope, nested.paths], ['path', ['packages/ord/**']]);
    // Cursor's own always-on field gives the same tag (and, at the root, the pin it always gave).
    const cursor = parseAgentRules([{ path: '.cursor/rules/taskfile.mdc', content: fs.readFileSync(path.join(ROOT, 'test', 'unit', 'fixtures', 'real', 'hatchet', '.cursor', 'rules', 'taskfile.mdc'), 'utf8') }]).artifacts[0]!;
    assert.deepEqual([cursor.pinned, cursor.tags?.includes('always')], [true, true]);
    assert.ok(nested.tags?.includes('always'));
    const scoped = parseAgentRules([
      { path: '.clinerules/db.md', content: '---\npaths:\n  - "db/**"\n---\n\n## Migrations (always)\n\nEvery migration is reversible.\n\n## Naming\n\nsnake_case tables.\n' },
    ]).artifacts.find((a) => a.title.includes('Migrations'))!;
    assert.equal(scoped.pinned, false);
    assert.deepEqual(scoped.paths, ['db/**']);
  });

  it('a long marked section split at its own headings passes the mark to each part', () => {
    const long = `## Deploy (always)\n\n### Before\n\n${'Check the release notes and the runbook. '.repeat(60)}\n\n### After\n\n${'Watch the dashboards for an hour. '.repeat(60)}\n\n## Other\n\nNothing.\n`;
    const { artifacts } = parseAgentRules([{ path: 'AGENTS.md', content: long }]);
    const parts = artifacts.filter((a) => a.title.includes('Deploy (always)'));
    assert.equal(parts.length, 2, artifacts.map((a) => a.title).join(' | '));
    assert.ok(parts.every((a) => a.tags?.includes('always')));
    assert.ok(!artifacts.find((a) => a.title.endsWith('Other'))?.tags?.includes('always'));
  });

  it('a heading that is itself a rule, or says "not always", is no mark; non-ASCII and hostile headings are no mark', () => {
    assert.equal(headingMark('Always use TypeScript'), null);
    assert.equal(headingMark('Not always'), null);
    assert.equal(headingMark('Option 1: Always Inject on Any Detection'), null);
    assert.equal(headingMark('Immer (always)'), 'always');
    assert.equal(headingMark('CRITICAL: Do NOT use VSTest-style `--filter` with `dotnet test`'), 'critical');
    assert.equal(headingMark('テスト (常に)'), null);
    assert.equal(headingMark(''), null);
    assert.equal(headingMark('<script>always</script>'), null);
    assert.equal(headingMark(`${'('.repeat(10_000)}always`), 'always');
  });
});

describe('classifyRuleFile', () => {
  it('knows every supported location', () => {
    const cases: Array<[string, string | null, string]> = [
      ['.github/copilot-instructions.md', 'copilot-global', ''],
      ['.github/instructions/a.instructions.md', 'copilot-instructions', ''],
      ['.cursor/rules/a.mdc', 'cursor-mdc', ''],
      ['web/.cursor/rules/a.mdc', 'cursor-mdc', 'web'],
      ['.cursorrules', 'cursor-legacy', ''],
      ['CLAUDE.md', 'claude-md', ''],
      ['.claude/CLAUDE.md', 'claude-md', ''],
      ['.claude/rules/a.md', 'claude-rules', ''],
      ['AGENTS.md', 'agents-md', ''],
      ['.clinerules', 'cline', ''],
      ['.clinerules/a.md', 'cline', ''],
      ['README.md', null, ''],
    ];
    for (const [path, kind, appliesTo] of cases) {
      const match = classifyRuleFile(path);
      assert.equal(match?.kind ?? null, kind, path);
      if (match) assert.equal(match.appliesTo, appliesTo, path);
    }
  });
});

describe('loadedForEveryFile', () => {
  it('is true of the root files each tool loads whatever the files in play, and of nothing else', () => {
    const everywhere = [
      'import:agents-md:AGENTS.md',
      'import:claude:CLAUDE.md',
      'import:claude:CLAUDE.local.md',
      'import:claude:.claude/CLAUDE.md',
      'import:claude:.claude/rules/testing.md',
      'import:copilot:.github/copilot-instructions.md',
      'import:cline:.clinerules',
      'import:cline:.clinerules/style.md',
      'import:cline:.cline/rules/style.md',
      'import:cursor:.cursorrules',
    ];
    for (const source of everywhere) assert.equal(loadedForEveryFile(source), true, source);
    const not = [
      // A folder's files apply to that folder (they are imported with its paths).
      'import:agents-md:python/AGENTS.md',
      'import:claude:web/CLAUDE.md',
      // Attached by description or by hand, never always.
      'import:cursor:.cursor/rules/style.mdc',
      'import:copilot:.github/instructions/docs.instructions.md',
      // Not a rule file, not imported, a format that does not match the file, hostile paths.
      'import:adr:docs/adr/0001-use-postgres.md',
      'import:markdown:README.md',
      'agent:claude-code',
      'user',
      '',
      'import:cursor:AGENTS.md',
      'import:agents-md:../AGENTS.md',
      'import:agents-md:/etc/AGENTS.md',
      'import:agents-md:AGENTS.md\nimport:claude:CLAUDE.md',
    ];
    for (const source of not) assert.equal(loadedForEveryFile(source), false, JSON.stringify(source));
  });
});
