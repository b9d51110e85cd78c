import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adrNumberFromFileName, parseAdrs, stripAdrPrefix } from '../../../src/core/formats/adr';

const NYGARD_2 = `# 2. Use PostgreSQL

Date: 2018-03-01

## Status

Superseded by [3. Use SQLite](0003-use-sqlite.md)

## Context

We need a database.

\`\`\`toml
# Cargo.toml
[deps]
\`\`\`

## Decision

PostgreSQL.
`;

const NYGARD_3 = `# 3. Use SQLite

Date: 2018-04-01

## Status

Accepted

Supersedes [2. Use PostgreSQL](0002-use-postgresql.md)

## Context

Simpler.
`;

const MADR_2 = `# Use Markdown Architectural Decision Records

* Status: accepted
* Deciders: Ann, Bo
* Date: 2020-01-02

## Context and Problem Statement

We want to record decisions.
`;

const FRONT_MATTER = `---
title: "Rust as Implementation Language"
description: "Rewrite in Rust for speed."
type: adr
tags:
  - rust
  - performance
status: accepted
created: 2025-12-28
updated: 2026-01-04
author: Claude
---

# ADR-0007: Rust as Implementation Language

## Status

Accepted (partially superseded by [ADR-0050](adr_0050.md))

## Context

Python was slow.
`;

describe('ADR import', () => {
  const result = parseAdrs([
    { path: 'doc/adr/0003-use-sqlite.md', content: NYGARD_3 },
    { path: 'doc/adr/0002-use-postgresql.md', content: NYGARD_2 },
    { path: 'doc/adr/0001-use-markdown.md', content: MADR_2 },
    { path: 'doc/adr/README.md', content: '# ADRs\n\n| # | ADR |\n' },
    { path: 'docs/adrs/adr_0007.md', content: FRONT_MATTER },
  ]);
  const byId = new Map(result.artifacts.map((a) => [a.id, a]));

  it('keeps the ADR number in the id and in the title, in one spelling (ADR-0001)', () => {
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title]),
      [
        ['adr-0001', 'ADR-0001: Use Markdown Architectural Decision Records'],
        ['adr-0002', 'ADR-0002: Use PostgreSQL'],
        ['adr-0003', 'ADR-0003: Use SQLite'],
        ['adr-0007', 'ADR-0007: Rust as Implementation Language'],
      ],
    );
    assert.ok(result.artifacts.every((a) => a.type === 'adr'));
  });

  it('skips the README index with a reason', () => {
    assert.deepEqual(result.skipped, [{ where: 'doc/adr/README.md', reason: 'index, template or README, not an ADR' }]);
  });

  it('returns one supersession for "Superseded by" and the matching "Supersedes"', () => {
    assert.deepEqual(result.supersessions, [{ olderId: 'adr-0002', newerId: 'adr-0003' }]);
    assert.equal(byId.get('adr-0002')!.status, 'superseded');
    assert.equal(byId.get('adr-0003')!.status, 'active');
  });

  it('does not treat "partially superseded by" as a supersession', () => {
    assert.equal(byId.get('adr-0007')!.status, 'active');
  });

  it('reads dates from Date: lines, MADR bullets and front matter', () => {
    assert.equal(byId.get('adr-0002')!.createdAt, '2018-03-01T00:00:00Z');
    assert.equal(byId.get('adr-0001')!.createdAt, '2020-01-02T00:00:00Z');
    assert.equal(byId.get('adr-0007')!.createdAt, '2025-12-28T00:00:00Z');
    assert.equal(byId.get('adr-0007')!.updatedAt, '2026-01-04T00:00:00Z');
  });

  it('maps front matter to summary, tags and extra, and drops the title heading from the body', () => {
    const adr = byId.get('adr-0007')!;
    assert.equal(adr.summary, 'Rewrite in Rust for speed.');
    assert.deepEqual(adr.tags, ['rust', 'performance']);
    assert.deepEqual([adr.adrNumber, adr.adrStatus, adr.frontMatter, adr.extra], [7, 'accepted', { type: 'adr', author: 'Claude' }, undefined]);
    assert.ok(adr.body.startsWith('## Status\n\nAccepted'));
    assert.equal(adr.source, 'import:adr:docs/adrs/adr_0007.md');
  });

  it('does not take a # line inside a code fence for the title', () => {
    assert.match(byId.get('adr-0002')!.body, /# Cargo\.toml/);
    assert.equal(byId.get('adr-0001')!.adrStatus, 'accepted');
  });
});

describe('ADR statuses and links', () => {
  it('maps deprecated/rejected to archived and keeps proposed active', () => {
    const result = parseAdrs([
      { path: 'adr/0001-a.md', content: '---\nstatus: deprecated\n---\n# A\n\nx\n' },
      { path: 'adr/0002-b.md', content: '# B\n\n## Status\n\nRejected\n' },
      { path: 'adr/0003-c.md', content: '# C\n\n## Status\n\nProposed\n' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.status, a.adrStatus]),
      [
        ['archived', 'deprecated'],
        ['archived', 'rejected'],
        ['active', 'proposed'],
      ],
    );
  });

  it('resolves MADR front matter "superseded by ADR-0005" and bold **Supersedes:** links', () => {
    const result = parseAdrs([
      { path: 'decisions/0004-old.md', content: '---\nstatus: "superseded by ADR-0005"\n---\n# Old\n' },
      { path: 'decisions/0005-new.md', content: '# New\n\n## Status\n\nAccepted\n\n**Supersedes:** [ADR-0004: Old](0004-old.md)\n' },
    ]);
    assert.deepEqual(result.supersessions, [{ olderId: 'adr-0004', newerId: 'adr-0005' }]);
    assert.equal(result.artifacts[0]!.status, 'superseded');
  });

  it('reports a link to an ADR that is not in the import', () => {
    const result = parseAdrs([{ path: 'adr/0001-a.md', content: '# A\n\n## Status\n\nSuperseded by ADR-0099\n' }]);
    assert.deepEqual(result.supersessions, []);
    assert.equal(result.artifacts[0]!.status, 'superseded');
    assert.match(result.skipped[0]!.reason, /names no ADR/);
  });

  it('numbers duplicate ADR numbers in path order and slugs unnumbered files', () => {
    const result = parseAdrs([
      { path: 'b/adr/0001-x.md', content: '# X\n\nx' },
      { path: 'a/adr/0001-y.md', content: '# Y\n\ny' },
      { path: 'a/adr/use-rust.md', content: '# Use Rust\n\nz' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => a.id),
      ['adr-0001', 'adr-use-rust', 'adr-0001-2'],
    );
  });
});

describe('ADR malformed and hostile input', () => {
  it('skips malformed and unclosed front matter with a clear reason', () => {
    const result = parseAdrs([
      { path: 'adr/0001-a.md', content: '---\ntitle: "unterminated\nstatus accepted\n---\n# A\n' },
      { path: 'adr/0002-b.md', content: '---\ntitle: B\n# B\n\nno closing line\n' },
      { path: 'adr/0003-c.md', content: '' },
    ]);
    assert.equal(result.artifacts.length, 0);
    assert.equal(result.skipped.length, 3);
    assert.match(result.skipped[0]!.reason, /^malformed front matter: /);
    assert.match(result.skipped[1]!.reason, /never closed/);
    assert.equal(result.skipped[2]!.reason, 'empty file');
  });

  it('handles empty input', () => {
    assert.deepEqual(parseAdrs([]), { artifacts: [], supersessions: [], skipped: [] });
  });

  it('keeps hostile and non-ASCII titles as text with safe ids', () => {
    const result = parseAdrs([
      { path: 'adr/0001-x.md', content: '# ADR-0001: <script>alert(1)</script>\n\nx' },
      { path: 'adr/../../etc/passwd.md', content: '# ../../etc/passwd\n\ny' },
      { path: 'adr/0003-cjk.md', content: '# 3. 日本語の決定 🚀 עברית\n\nz' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.title]),
      [
        ['adr-passwd', '../../etc/passwd'],
        ['adr-0001', 'ADR-0001: <script>alert(1)</script>'],
        ['adr-0003', 'ADR-0003: 日本語の決定 🚀 עברית'],
      ],
    );
  });

  // How fast is for `npm run bench` (the 500-file ADR folder row); this checks a huge folder is read whole.
  it('reads 5,000 ADRs', () => {
    const files = Array.from({ length: 5000 }, (_, i) => ({
      path: `docs/adr/${String(i + 1).padStart(4, '0')}-decision-${i}.md`,
      content: `---\nstatus: accepted\ndate: 2024-01-01\ntags: [a, b]\n---\n# ${i + 1}. Decision ${i}\n\n## Status\n\nAccepted\n\n## Context\n\nBecause ${i}.\n`,
    }));
    const result = parseAdrs(files);
    assert.equal(result.artifacts.length, 5000);
    assert.equal(result.artifacts[4999]!.title.endsWith('Decision 4999'), true);
  });
});

describe('ADR number helpers', () => {
  it('reads numbers from common file names and title prefixes', () => {
    assert.equal(adrNumberFromFileName('doc/adr/0003-use-x.md'), 3);
    assert.equal(adrNumberFromFileName('adr_0047.md'), 47);
    assert.equal(adrNumberFromFileName('ADR-012-thing.md'), 12);
    assert.equal(adrNumberFromFileName('use-x.md'), null);
    assert.deepEqual(stripAdrPrefix('ADR-0001: Rust'), { title: 'Rust', number: 1 });
    assert.deepEqual(stripAdrPrefix('[ADR-12] Thing'), { title: 'Thing', number: 12 });
    assert.deepEqual(stripAdrPrefix('2. Use X'), { title: 'Use X', number: 2 });
    assert.deepEqual(stripAdrPrefix('200ms LLM Timeout'), { title: '200ms LLM Timeout', number: null });
  });
});
