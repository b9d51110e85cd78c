/**
 * Markdown built to crash or hang the lexer (nesting that recursed past the stack, deep
 * indentation that took over a minute) goes through every Markdown importer in under two
 * seconds: the file is imported, the good text kept, and the report says which lines
 * were cut back and why.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAdrs } from '../../../src/core/formats/adr';
import { parseAgentRules } from '../../../src/core/formats/agentRules';
import type { ImportResult } from '../../../src/core/formats/common';
import { parseCtx } from '../../../src/core/formats/ctx';
import { capNesting, lexMarkdown, MAX_MARKDOWN_NESTING } from '../../../src/core/formats/markdown';

/** The shapes that broke the importers before, at the sizes they broke at. */
const HOSTILE: Record<string, string> = {
  '2 KB of nested block quotes on one line': `${'>'.repeat(2000)} deep words`,
  '2,000 lines each quoted one level deeper': Array.from({ length: 2000 }, (_, i) => `${'>'.repeat(i + 1)} quote ${i}`).join('\n'),
  '4 KB of nested list markers on one line': `${'- '.repeat(2000)}deep words`,
  '4 KB of nested ordered markers': `${'1. '.repeat(1400)}deep words`,
  'quotes and lists interleaved': `${'> - '.repeat(1000)}deep words`,
  '3,000 list lines each indented two columns deeper': Array.from({ length: 3000 }, (_, i) => `${' '.repeat(2 * i)}- item ${i}`).join('\n'),
};

const importers: Record<string, (body: string) => ImportResult> = {
  ADR: (body) => parseAdrs([{ path: 'docs/adr/0001-hostile.md', content: `# 1. Hostile input\n\nGood paragraph kept.\n\n${body}\n` }]),
  ctx: (body) => parseCtx([{ name: 'LEARNINGS.md', content: `# Learnings\n\n## [2026-01-01-120000] Hostile input\n\nGood paragraph kept.\n\n${body}\n` }]),
  Cursor: (body) => parseAgentRules([{ path: '.cursor/rules/hostile.mdc', content: `---\ndescription: Hostile input\nalwaysApply: true\n---\n\nGood paragraph kept.\n\n${body}\n` }]),
};

describe('hostile Markdown', () => {
  for (const [importer, parse] of Object.entries(importers)) {
    for (const [shape, body] of Object.entries(HOSTILE)) {
      test(`${importer}: ${shape} imports in under 2 s with the good text kept`, () => {
        const started = performance.now();
        const result = parse(body);
        const ms = performance.now() - started;
        assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
        const text = result.artifacts.map((a) => a.body).join('\n');
        assert.match(text, /Good paragraph kept/);
        const last = /(?:deep words|quote 1999|item 2999)/.exec(body)![0];
        assert.ok(text.includes(last), `the deepest words are kept: ${last}`);
        assert.ok(
          result.skipped.some((s) => /nesting deeper than 8 block quotes or list levels/.test(s.reason)),
          JSON.stringify(result.skipped).slice(0, 300),
        );
      });
    }
  }

  test('ordinary nesting is left exactly as written, and fenced code is never touched', () => {
    const doc = ['> quote', '> > nested quote', '- a', '  - b', '    - c', '      1. d', '', '```yaml', `${' '.repeat(60)}deep: code`, '```', ''].join('\n');
    assert.deepEqual(capNesting(doc), { text: doc, flattened: [] });
    const notes: string[] = [];
    lexMarkdown(doc, notes);
    assert.deepEqual(notes, []);
  });

  test(`a line nested ${MAX_MARKDOWN_NESTING + 1} deep is cut back to ${MAX_MARKDOWN_NESTING}, its words kept`, () => {
    const { text, flattened } = capNesting(`intro\n${'> '.repeat(MAX_MARKDOWN_NESTING + 1)}words`);
    assert.equal(text, `intro\n${'> '.repeat(MAX_MARKDOWN_NESTING)}words`);
    assert.deepEqual(flattened, [2]);
  });
});
