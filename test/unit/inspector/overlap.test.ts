import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agentFilesView, type LedgerItemText } from '../../../src/core/inspector/agentFiles';
import { contentOverlap, MAX_COMPARED_CHARS, shingles } from '../../../src/core/inspector/overlap';
import { TokenCounter } from '../../../src/core/tokens';

// Agent files in the shape teams keep them (Cursor rule with front matter, AGENTS.md with
// sections, Copilot instructions), written for these tests.
const CURSOR_WORKFLOW = `---
description: Development workflow and process rules
globs: []
alwaysApply: true
---

# Development Workflow

## Branch discipline

- **Branch off \`main\` before the first commit.** \`main\` is
  off-limits for direct commits. Even one-line fixes get a branch.
- Branch names follow the conventional-commit shape:
  \`feat/<scope>\`, \`fix/<scope>\`, \`docs/<scope>\`.

## Never push, never merge

- **Never run \`git push\`.** Never offer to. Stop at the commit. The
  human is the final decision maker before anything reaches upstream.
- The same rule holds for \`gh pr create\` and \`gh pr merge\`.

## Gates before every commit

- \`make lint\` must report zero issues.
- \`make test\` must pass.
`;

const AGENTS_MD = `# AGENTS.md

Guidance for coding agents working in this repository.

## Build

Use the Makefile for everything: \`make ci\` runs every gate (format, lint, test, docs)
before a commit; \`make dev\` builds and installs the binary.

## Error handling

No panics in library code. Return \`Result\` everywhere and define error types with
\`thiserror\`; \`unwrap\`, \`expect\` and \`panic!\` are denied by clippy in \`src/\`.
Tests may unwrap.

## Storage

Three layers: persistence in SQLite, the full-text index in FTS5, vectors in an HNSW
index. Migrations live in \`migrations/\` and run at start-up, never by hand.
`;

const COPILOT = `# Project instructions

Money amounts are integers of minor units (cents), never floats. Currency travels with
every amount as an ISO 4217 code.

Räder und Zahlungen: Beträge immer in Cent speichern, niemals als Gleitkommazahl.
金額は常に最小通貨単位の整数で保存すること。浮動小数点は使わない。
`;

function item(id: string, body: string, tokens = 100, source = 'user'): LedgerItemText {
  return { id, title: `Artifact ${id}`, tokens, body, source };
}

function view(files: Array<{ path: string; content: string }>, included: LedgerItemText[]): ReturnType<typeof agentFilesView> {
  return agentFilesView({ files, activePaths: ['src/lib.rs'], ledgerTokens: 1000, included, count: (t) => Math.ceil(t.length / 4) });
}

describe('overlap of ledger artifacts with agent files, by content', () => {
  test('a rule re-wrapped, re-cased and re-punctuated as prose is flagged as the same text', () => {
    // The "never push" bullets of the Cursor rule, rewritten by hand into one paragraph.
    const paraphrase =
      'NEVER run git push; never offer to. Stop at the commit: the human is the final decision-maker before anything reaches upstream. ' +
      'The same rule holds for gh pr create and gh pr merge!';
    const v = view([{ path: '.cursor/rules/workflow.mdc', content: CURSOR_WORKFLOW }], [item('push', paraphrase, 60)]);
    const [o] = v.files[0]!.overlaps;
    assert.equal(o?.id, 'push');
    assert.equal(o?.how, 'same text');
    assert.equal(o?.share, 1);
    assert.equal(o?.tokens, 60);
    assert.equal(v.overlapTokens, 60);
  });

  test('an artifact whose body is one section of AGENTS.md is found inside the whole file', () => {
    const section = AGENTS_MD.slice(AGENTS_MD.indexOf('No panics'), AGENTS_MD.indexOf('## Storage')).trim();
    const v = view([{ path: 'AGENTS.md', content: AGENTS_MD }], [item('errors', section, 80), item('storage-edited', 'Three layers: persistence in SQLite, the full-text index in FTS5, vectors in an HNSW index. Backups run nightly to object storage and are kept for thirty days; restores are rehearsed every quarter.', 50)]);
    const by = new Map(v.files[0]!.overlaps.map((o) => [o.id, o]));
    assert.equal(by.get('errors')?.how, 'same text');
    assert.equal(by.get('errors')?.tokens, 80);
    // Half rewritten: flagged with how much of it still repeats the file, not all or nothing.
    const partial = by.get('storage-edited');
    assert.ok(partial, 'the partly rewritten storage note is flagged');
    assert.equal(partial.how, 'overlapping text');
    assert.ok(partial.share > 0.1 && partial.share < 0.9, `share ${partial.share}`);
    assert.equal(partial.tokens, Math.round(partial.share * 50));
    assert.equal(v.overlapTokens, 80 + partial.tokens);
  });

  test('a related artifact in other words is not flagged; nor are one-word bodies', () => {
    const related = 'Commits go through pull requests that a reviewer approves; CI checks formatting and the test suite on each branch.';
    const v = view([{ path: '.cursor/rules/workflow.mdc', content: CURSOR_WORKFLOW }], [item('related', related), item('tiny', 'make test'), item('empty', '')]);
    assert.deepEqual(v.files[0]!.overlaps, []);
    assert.equal(v.overlapTokens, 0);
  });

  test('German and Japanese rules match across punctuation, case and spacing', () => {
    const v = view(
      [{ path: '.github/copilot-instructions.md', content: COPILOT }],
      [
        item('de', 'RÄDER UND ZAHLUNGEN — Beträge immer in Cent speichern; niemals als Gleitkommazahl!', 30),
        item('ja', '金額は 常に 最小通貨単位の 整数で 保存すること', 20),
        item('fr', 'Les montants sont stockés en centimes, jamais en virgule flottante.', 20),
      ],
    );
    const ids = v.files[0]!.overlaps.map((o) => [o.id, o.how]);
    assert.deepEqual(ids.sort(), [['de', 'same text'], ['ja', 'same text']]);
  });

  test('an imported artifact stays flagged even when the file has changed since', () => {
    const v = view([{ path: 'AGENTS.md', content: '# Agents\n\nRun the tests.\n' }], [item('imp', 'Something the file no longer says at all, long enough.', 40, 'import:agents-md:AGENTS.md')]);
    assert.deepEqual(v.files[0]!.overlaps.map((o) => [o.id, o.how, o.share, o.tokens]), [['imp', 'imported from this file', 0, 0]]);
  });

  test('an artifact repeated by two files is counted once on the bill', () => {
    const rule = 'Money amounts are integers of minor units (cents), never floats.';
    const files = [
      { path: '.github/copilot-instructions.md', content: COPILOT },
      { path: 'CLAUDE.md', content: `# Claude\n\n${rule.toUpperCase()}\n` },
    ];
    const v = view(files, [item('money', rule, 25)]);
    assert.equal(v.files.filter((f) => f.overlaps.length === 1).length, 2);
    assert.equal(v.overlapTokens, 25);
  });

  test('empty files and empty artifacts: no overlap, no error', async () => {
    const counter = await TokenCounter.load('o200k_base');
    const v = agentFilesView({
      files: [
        { path: 'AGENTS.md', content: '' },
        { path: '.cursor/rules/empty.mdc', content: '---\nalwaysApply: true\n---\n' },
      ],
      activePaths: [],
      ledgerTokens: 0,
      included: [item('e', ''), item('w', '   \n\t ')],
      count: (t) => counter.count(t),
    });
    assert.equal(v.files.length, 2);
    for (const f of v.files) assert.deepEqual(f.overlaps, []);
    assert.equal(v.files.find((f) => f.path === 'AGENTS.md')?.tokens, 0);
    assert.equal(contentOverlap(shingles(''), shingles('')), undefined);
  });

  test('a huge agent file is compared in bounded time', () => {
    const rule = 'Every public function documents the errors it returns and the invariants it keeps.';
    const filler = Array.from({ length: 4000 }, (_, i) => `Paragraph ${i}: the ${i % 7 === 0 ? 'queue' : 'cache'} worker ${i} retries after ${i % 13} seconds unless told otherwise.\n`).join('\n');
    let huge = `# Agents\n\n${rule}\n\n${filler}`;
    while (huge.length < 5 * MAX_COMPARED_CHARS) huge += filler;
    const started = performance.now();
    const v = view([{ path: 'AGENTS.md', content: huge }], [item('doc', rule, 20), ...Array.from({ length: 200 }, (_, i) => item(`n${i}`, `Note ${i} about webhooks, retries and idempotency keys in the payment service ${i}.`))]);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 5000, `compared in ${Math.round(elapsed)} ms`);
    const ids = v.files[0]!.overlaps.map((o) => o.id);
    assert.ok(ids.includes('doc'), 'the rule near the top of the huge file is found');
  });
});
