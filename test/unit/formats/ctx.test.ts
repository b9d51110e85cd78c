import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCtx } from '../../../src/core/formats/ctx';

const DECISIONS = `# Decisions

<!-- INDEX:START -->
| Date | Decision |
|----|--------|
| 2026-07-25 | Use a ledger |
<!-- INDEX:END -->

<!-- DECISION FORMATS

## [YYYY-MM-DD] Decision Title

**Status**: Accepted | Superseded | Deprecated

-->

## [2026-07-25-190410] Use a ledger

**Status**: Accepted

**Context**: Agents forget.

**Decision**: Keep a ledger.

---

## [2026-07-25-190410] Second entry, same second

**Status**: Accepted

Body two.

---

## [2026-07-25-190410] Third entry, same second

Body three.

---

## [2026-02-11] Date-only header

**Status**: Accepted

Older format.

---

## [2026-03-01-161457] Global key at ~/.ctx/key

**Status**: Superseded by [2026-03-02] global key simplification

**Context**: Too complex.

---

## [2026-03-02-101010] Global key simplification

**Status**: Accepted

Simpler.

---

## [2026-03-03-000000] ~~Struck decision~~

Gone.

## Themes

- cli — CLI surface → [cli](decisions/cli.md)
`;

describe('ctx DECISIONS.md', () => {
  const result = parseCtx([{ name: 'DECISIONS.md', content: DECISIONS }]);
  const byId = new Map(result.artifacts.map((a) => [a.id, a]));

  it('reads every [timestamp] entry, skipping the INDEX table and the template comment', () => {
    assert.deepEqual(
      result.artifacts.map((a) => a.id),
      [
        'ctx-dec-2026-07-25-190410',
        'ctx-dec-2026-07-25-190410-2',
        'ctx-dec-2026-07-25-190410-3',
        'ctx-dec-2026-02-11',
        'ctx-dec-2026-03-01-161457',
        'ctx-dec-2026-03-02-101010',
        'ctx-dec-2026-03-03-000000',
      ],
    );
    assert.ok(result.artifacts.every((a) => a.type === 'decision' && a.scope === 'global'));
  });

  it('takes createdAt from the timestamp (UTC ISO) and the title from the header', () => {
    const first = byId.get('ctx-dec-2026-07-25-190410')!;
    assert.equal(first.title, 'Use a ledger');
    assert.equal(first.createdAt, '2026-07-25T19:04:10Z');
    assert.equal(first.updatedAt, '2026-07-25T19:04:10Z');
    assert.equal(byId.get('ctx-dec-2026-02-11')!.createdAt, '2026-02-11T00:00:00Z');
    assert.equal(first.source, 'import:ctx:.context/DECISIONS.md');
  });

  it('drops --- separators and keeps the body up to the next header', () => {
    const first = byId.get('ctx-dec-2026-07-25-190410')!;
    assert.equal(first.body, '**Status**: Accepted\n\n**Context**: Agents forget.\n\n**Decision**: Keep a ledger.');
    assert.equal(byId.get('ctx-dec-2026-07-25-190410-3')!.body, 'Body three.');
  });

  it('ends the last entry at ## Themes and reports the theme index as skipped', () => {
    assert.equal(byId.get('ctx-dec-2026-03-03-000000')!.body, 'Gone.');
    assert.ok(result.skipped.some((s) => /theme index/.test(s.reason) && s.where.startsWith('.context/DECISIONS.md:')));
  });

  it('marks struck-through and "Superseded by" entries superseded and links them', () => {
    const struck = byId.get('ctx-dec-2026-03-03-000000')!;
    assert.equal(struck.title, 'Struck decision');
    assert.equal(struck.status, 'superseded');
    assert.equal(byId.get('ctx-dec-2026-03-01-161457')!.status, 'superseded');
    assert.equal(byId.get('ctx-dec-2026-03-02-101010')!.status, 'active');
    assert.deepEqual(result.supersessions, [{ olderId: 'ctx-dec-2026-03-01-161457', newerId: 'ctx-dec-2026-03-02-101010' }]);
  });

  it('gives the same ids and content when imported again', () => {
    assert.deepEqual(parseCtx([{ name: 'DECISIONS.md', content: DECISIONS }]), result);
  });
});

describe('ctx LEARNINGS.md quirks', () => {
  it('keeps a hard-wrapped hyphen line and a paragraph glued to --- as text, not headings', () => {
    const content = [
      '# Learnings',
      '',
      '## [2026-04-26-152842] Trailing word boundary',
      '',
      '**Context**: \\b matches between t and',
      '-',
      '',
      '**Lesson**: use a lookahead.',
      'Last line glued to the separator',
      '---',
      '',
      '## [2026-04-27-000000] Next',
      '',
      'Next body.',
    ].join('\n');
    const result = parseCtx([{ name: 'LEARNINGS.md', content }]);
    assert.deepEqual(
      result.artifacts.map((a) => a.id),
      ['ctx-learn-2026-04-26-152842', 'ctx-learn-2026-04-27-000000'],
    );
    const body = result.artifacts[0]!.body;
    assert.match(body, /between t and\n-\n\n\*\*Lesson\*\*/);
    assert.match(body, /glued to the separator$/);
    assert.equal(result.artifacts[0]!.type, 'learning');
    assert.deepEqual(result.skipped, []);
  });

  it('does not take a ## [ line inside a code fence for an entry', () => {
    const content = '## [2026-01-01-000000] One\n\n```md\n## [2026-01-02-000000] Not an entry\n```\n';
    const result = parseCtx([{ name: 'LEARNINGS.md', content }]);
    assert.equal(result.artifacts.length, 1);
    assert.match(result.artifacts[0]!.body, /Not an entry/);
  });

  it('imports an entry trapped inside the INDEX block (ctx once lost bodies that way)', () => {
    const content = '<!-- INDEX:START -->\n- one\n\n## [2026-01-01-000000] Trapped\n\nBody.\n<!-- INDEX:END -->\n';
    const result = parseCtx([{ name: 'LEARNINGS.md', content }]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.body]),
      [['ctx-learn-2026-01-01-000000', 'Body.']],
    );
  });

  it('reports an unclosed HTML comment that swallows the rest of the file', () => {
    const content = '## [2026-01-01-000000] One\n\nBody.\n\n<!-- oops\n\n## [2026-01-02-000000] Lost\n';
    const result = parseCtx([{ name: 'LEARNINGS.md', content }]);
    assert.equal(result.artifacts.length, 1);
    assert.ok(result.skipped.some((s) => /never closed/.test(s.reason) && s.where === '.context/LEARNINGS.md:5'));
  });

  it('reads CRLF files the same as LF files', () => {
    const lf = '## [2026-01-01-000000] One\n\nLine a\nLine b\n\n---\n\n## [2026-01-02-000000] Two\n\nB\n';
    const a = parseCtx([{ name: 'LEARNINGS.md', content: lf }]);
    const b = parseCtx([{ name: 'LEARNINGS.md', content: lf.replace(/\n/g, '\r\n') }]);
    assert.deepEqual(b, a);
  });

  it('reads theme files with the same ids and a theme tag', () => {
    const result = parseCtx([
      { name: 'learnings/hooks-and-session.md', content: '# Hooks\n\n## [2026-01-01-000000] Hooks must not block\n\nBody.\n' },
    ]);
    assert.equal(result.artifacts[0]!.id, 'ctx-learn-2026-01-01-000000');
    assert.deepEqual(result.artifacts[0]!.tags, ['hooks-and-session']);
    assert.equal(result.artifacts[0]!.source, 'import:ctx:.context/learnings/hooks-and-session.md');
  });
});

describe('ctx CONVENTIONS.md', () => {
  const content = `# Conventions

<!-- UPDATE WHEN: a pattern is established -->

## Typography

See the guide for Title Case
headings and quoting.

## Naming

- **Constants use semantic prefixes**: group related constants
  - \`Dir*\` for directories
  - \`File*\` for file paths
- **Package name = folder name**: Go canonical pattern
- Reasoning: follows the stdlib
- **Maps reference constants**: keys are constants

\`\`\`go
m := map[string]X{ConstKey: v}
\`\`\`

## Error Handling

- Return errors, never panic in library code.
- Wrap with context: \`fmt.Errorf("read: %w", err)\`

## Surface Completeness

A change is complete only when all of these are updated:

- \`commands.yaml\`
- the skill file

## Themes

- code style — naming → [code style](conventions/code-style.md)
`;
  const result = parseCtx([{ name: 'CONVENTIONS.md', content }]);
  const titles = result.artifacts.map((a) => a.title);

  it('makes one convention per top-level bullet, titled by its bold lead-in or first clause', () => {
    assert.deepEqual(titles, [
      'Typography',
      'Constants use semantic prefixes',
      'Package name = folder name',
      'Maps reference constants',
      'Return errors, never panic in library code',
      'Wrap with context',
      'Surface Completeness',
    ]);
    assert.ok(result.artifacts.every((a) => a.type === 'convention'));
  });

  it('keeps nested bullets, follower bullets and a following code block in the body', () => {
    const [, constants, pkg, maps] = result.artifacts;
    assert.equal(constants!.body, '**Constants use semantic prefixes**: group related constants\n- `Dir*` for directories\n- `File*` for file paths');
    assert.equal(pkg!.body, '**Package name = folder name**: Go canonical pattern\n- Reasoning: follows the stdlib');
    assert.match(maps!.body, /```go\nm := map/);
  });

  it('tags each convention with its section and keeps prose sections whole', () => {
    assert.deepEqual(result.artifacts[1]!.tags, ['naming']);
    assert.equal(result.artifacts[0]!.body, 'See the guide for Title Case\nheadings and quoting.');
    assert.match(result.artifacts[6]!.body, /A change is complete[\s\S]*- the skill file/);
    assert.equal(result.artifacts[1]!.id, 'ctx-conv-naming-constants-use-semantic-prefixes');
  });

  it('skips the Themes index with a reason', () => {
    assert.ok(result.skipped.some((s) => /theme index/.test(s.reason)));
  });
});

describe('ctx CONSTITUTION.md', () => {
  const content = `# Constitution

These rules are INVIOLABLE.

## Completion Over Motion

Work is complete when it is **fully done**.

- No half measures.

---

## Security Invariants

- [ ] **Never** commit secrets, tokens or keys
- [ ] Path construction uses stdlib: no string concatenation
  (security: prevents path traversal)

## Process Invariants

TASKS.md must stay a replayable checklist.

- [x] **Git is required.** Every project lives in git.
`;
  const result = parseCtx([{ name: 'CONSTITUTION.md', content }]);

  it('makes one constitution rule per checkbox, and one per prose-only section', () => {
    assert.deepEqual(
      result.artifacts.map((a) => [a.type, a.title]),
      [
        ['constitution', 'Completion Over Motion'],
        ['constitution', 'Never commit secrets, tokens or keys'],
        ['constitution', 'Path construction uses stdlib'],
        ['constitution', 'Git is required'],
      ],
    );
    assert.equal(result.artifacts[2]!.body, 'Path construction uses stdlib: no string concatenation\n(security: prevents path traversal)');
    assert.match(result.artifacts[0]!.body, /fully done[\s\S]*No half measures\.$/);
  });

  it('reports the preamble and text beside checkbox rules as skipped', () => {
    assert.deepEqual(
      result.skipped.map((s) => s.where),
      ['.context/CONSTITUTION.md:3', '.context/CONSTITUTION.md:21'],
    );
  });
});

describe('ctx TASKS.md', () => {
  const content = `# Tasks

<!-- STRUCTURE RULES: use #in-progress -->

## Phase 1: Importers

- [ ] P1.1: Parse ctx files #priority:high #added:2026-05-30-101500
  - [ ] subtask stays in the description
- [x] Done task #priority:low
- [-] Skipped task (not needed)
- [ ] Hard-wrapped tags #session:
  96765858 #added:
  2026-05-27-183909
- Severity: HIGH — this bullet lost its indentation #in-progress
* [ ] Human: split the err package. Mentions PR #60 and \`#notatag\`.

### Later

- [ ] Write docs
`;
  const result = parseCtx([{ name: 'TASKS.md', content }]);
  const tasks = result.tasks!;

  it('imports open top-level items only', () => {
    assert.deepEqual(
      tasks.map((t) => t.title),
      ['P1.1: Parse ctx files', 'Hard-wrapped tags', 'Human: split the err package', 'Write docs'],
    );
    assert.equal(result.artifacts.length, 0);
  });

  it('takes labels from #tags (dates are metadata: #added sets createdAt)', () => {
    assert.deepEqual(tasks[0]!.labels, ['priority:high']);
    assert.equal(tasks[0]!.createdAt, '2026-05-30T10:15:00Z');
    assert.deepEqual(tasks[1]!.labels, ['session:96765858', 'in-progress']);
    assert.equal(tasks[1]!.createdAt, '2026-05-27T18:39:09Z');
    assert.deepEqual(tasks[2]!.labels, []);
    assert.equal(tasks[3]!.createdAt, null);
  });

  it('keeps nested items and a bullet that lost its indentation in the description', () => {
    assert.match(tasks[0]!.description, /- \[ \] subtask stays in the description/);
    assert.match(tasks[1]!.description, /Severity: HIGH/);
  });

  it('records the section and a stable id', () => {
    assert.equal(tasks[0]!.section, 'Phase 1: Importers');
    assert.equal(tasks[3]!.section, 'Later');
    assert.equal(tasks[0]!.id, 'ctx-task-p1-1-parse-ctx-files');
    assert.equal(tasks[0]!.source, 'import:ctx:.context/TASKS.md');
  });
});

describe('ctx ARCHITECTURE.md and GLOSSARY.md', () => {
  it('makes one note per non-empty ## section and reports empty template sections', () => {
    const result = parseCtx([
      {
        name: 'ARCHITECTURE.md',
        content: '# Architecture\n\nA CLI over a store.\n\n## Overview\n\n<!-- What does it do? -->\n\n## Data Flow\n\nCLI → core → store.\n',
      },
      { name: 'GLOSSARY.md', content: '# Glossary\n\n## Domain Terms\n\n- **Ledger**: the database\n\n## Abbreviations\n' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.type, a.title, a.body]),
      [
        ['ctx-arch', 'note', 'Architecture', 'A CLI over a store.'],
        ['ctx-arch-data-flow', 'note', 'Architecture: Data Flow', 'CLI → core → store.'],
        ['ctx-gloss-domain-terms', 'note', 'Glossary: Domain Terms', '- **Ledger**: the database'],
      ],
    );
    assert.deepEqual(
      result.skipped.map((s) => s.reason),
      ['empty section "Overview" (template placeholder)', 'empty section "Abbreviations" (template placeholder)'],
    );
  });
});

describe('ctx edge cases', () => {
  it('handles empty input and empty files', () => {
    assert.deepEqual(parseCtx([]), { artifacts: [], tasks: [], supersessions: [], skipped: [] });
    const empty = parseCtx(['DECISIONS.md', 'LEARNINGS.md', 'CONVENTIONS.md', 'CONSTITUTION.md', 'TASKS.md'].map((name) => ({ name, content: '' })));
    assert.deepEqual(empty.artifacts, []);
    assert.deepEqual(empty.tasks, []);
  });

  it('skips files that are not ctx knowledge files, with a reason', () => {
    const result = parseCtx([{ name: 'AGENT_PLAYBOOK.md', content: '# Playbook' }]);
    assert.equal(result.skipped.length, 1);
    assert.match(result.skipped[0]!.reason, /not a ctx knowledge file/);
  });

  it('uses the given folder and id prefix', () => {
    const result = parseCtx([{ name: 'DECISIONS.md', content: '## [2026-01-01-000000] A\n\nB\n' }], {
      contextDir: 'packages/api/.context',
      idPrefix: 'ctx-packages-api',
    });
    assert.equal(result.artifacts[0]!.id, 'ctx-packages-api-dec-2026-01-01-000000');
    assert.equal(result.artifacts[0]!.source, 'import:ctx:packages/api/.context/DECISIONS.md');
  });

  it('keeps hostile and non-ASCII titles as text while ids stay safe', () => {
    const decisions = [
      '## [2026-01-01-000000] <script>alert(1)</script>',
      '',
      'x',
      '',
      '## [2026-01-02-000000] ../../etc/passwd',
      '',
      'y',
      '',
      '## [2026-01-03-000000] 日本語の決定 🚀 עברית',
      '',
      'z',
    ].join('\n');
    const conventions = '## 規約\n\n- **日本語のタイトル**: 説明\n- **../../etc/passwd <script>**: no\n';
    const result = parseCtx([
      { name: 'DECISIONS.md', content: decisions },
      { name: 'CONVENTIONS.md', content: conventions },
    ]);
    assert.deepEqual(
      result.artifacts.slice(0, 3).map((a) => a.title),
      ['<script>alert(1)</script>', '../../etc/passwd', '日本語の決定 🚀 עברית'],
    );
    for (const artifact of result.artifacts) assert.match(artifact.id!, /^[a-z0-9-]+$/);
    assert.equal(result.artifacts[3]!.title, '日本語のタイトル');
    assert.equal(result.artifacts[4]!.id, 'ctx-conv-etc-passwd-script');
  });

  it('reads 5,000 entries quickly', () => {
    const parts: string[] = ['# Decisions', ''];
    for (let i = 0; i < 5000; i++) {
      const stamp = `2026-01-01-${String(Math.floor(i / 3600) % 24).padStart(2, '0')}${String(Math.floor(i / 60) % 60).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`;
      parts.push(`## [${stamp}] Decision number ${i}`, '', '**Status**: Accepted', '', `**Context**: Because ${i}.`, '', '---', '');
    }
    const started = performance.now();
    const result = parseCtx([{ name: 'DECISIONS.md', content: parts.join('\n') }]);
    const elapsed = performance.now() - started;
    assert.equal(result.artifacts.length, 5000);
    assert.equal(new Set(result.artifacts.map((a) => a.id)).size, 5000);
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
  });
});
