import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleResult } from '../../../src/core/assemble';
import { agentFilesView } from '../../../src/core/inspector/agentFiles';
import { diffSnapshots, historyEntries, snapshotOfLog, snapshotOfResult } from '../../../src/core/inspector/history';
import { buildInspectorModel, type InspectorModel } from '../../../src/core/inspector/model';
import { parseHostMessage, parseWebviewMessage, parseWebviewState } from '../../../src/core/inspector/protocol';
import { DEFAULT_QUERY, queryRows } from '../../../src/core/inspector/query';
import type { ArtifactInput } from '../../../src/core/model';
import { CATEGORY, COMMANDS, INSPECTOR_VIEW_TYPE } from '../../../src/extension/ids';
import type { LedgerStore } from '../../../src/core/store';
import { TokenCounter } from '../../../src/core/tokens';
import { memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const TASK = { title: 'Stop double bookings when the payment webhook is retried', labels: ['payments'] };

function artifact(id: string, over: Partial<ArtifactInput> = {}): ArtifactInput {
  return {
    id,
    type: 'learning',
    title: `Note ${id}`,
    body: `The payment webhook must be idempotent; ${id} explains why retries happen. `.repeat(6),
    createdAt: '2026-01-10T00:00:00.000Z',
    ...over,
  };
}

async function seeded(inputs: ArtifactInput[]): Promise<LedgerStore> {
  const store = await memoryStore();
  store.importArtifacts(inputs);
  return store;
}

async function build(store: LedgerStore, budget: number, log = false): Promise<AssembleResult> {
  return assembleContext(store, { budget, now: NOW, task: TASK, paths: ['src/payments/webhooks.ts'], log, trigger: 'test' });
}

function model(result: AssembleResult, history: InspectorModel['history'] = []): InspectorModel {
  return buildInspectorModel({ result, folderName: 'ws', builtAt: NOW, trigger: 'test', paths: ['src/payments/webhooks.ts'], history, current: snapshotOfResult(result) });
}

describe('inspector view model', () => {
  test('counts and bar match the assembly; an excluded artifact carries its reason', async () => {
    const store = await seeded([
      artifact('rule', { type: 'constitution', title: 'Never log card numbers', body: 'Never log card numbers or CVCs.' }),
      ...Array.from({ length: 12 }, (_, i) => artifact(`n${i}`)),
      artifact('old', { title: 'Old webhook rule' }),
      artifact('new', { title: 'New webhook rule' }),
      artifact('gone', { title: 'Archived webhook note', status: 'archived' }),
    ]);
    store.supersede('old', 'new');
    const result = await build(store, 400);
    const m = model(result);

    assert.equal(m.tokensUsed, result.tokensUsed);
    assert.equal(m.budget, 400);
    assert.equal(m.rows.length, result.items.length + result.excluded.length);
    assert.equal(m.counts.full + m.counts.preview + m.counts.title, result.items.length);
    assert.equal(m.counts.excluded, result.excluded.length);
    assert.equal(m.counts.full, result.items.filter((i) => i.mode === 'full').length);

    // The bar: layers that used anything, plus headroom; widths add up to the whole bar.
    const shares = m.segments.reduce((s, x) => s + x.share, 0);
    assert.ok(Math.abs(shares - 1) < 1e-9, `shares add to ${shares}`);
    const headroom = m.segments.find((s) => s.key === 'headroom');
    assert.equal(headroom?.tokens, 400 - result.tokensUsed);
    assert.equal(m.segments.find((s) => s.key === 'fixed')?.tokens, result.layers.fixed.used);
    for (const s of m.segments) assert.ok(s.label.length > 0 && s.share >= 0);

    const superseded = m.rows.find((r) => r.id === 'old');
    assert.equal(superseded?.status, 'excluded');
    assert.equal(superseded?.reasonCode, 'superseded');
    assert.match(superseded?.reason ?? '', /superseded/);
    const budgetCut = m.rows.filter((r) => r.reasonCode === 'budget');
    assert.ok(budgetCut.length > 0, 'a 400-token budget cuts some of 14 notes');
    assert.match(budgetCut[0]!.reason, /did not fit the budget/);
    // Included rows carry tokens, score and every score component.
    const included = m.rows.filter((r) => r.status !== 'excluded');
    for (const r of included) {
      assert.equal(typeof r.tokens, 'number');
      assert.deepEqual(Object.keys(r.components ?? {}).sort(), ['feedback', 'path', 'recency', 'reference', 'relevance', 'type']);
    }
    // Estimate vs real: chars/4 of the very text, next to the real count.
    assert.equal(m.estimate.real, result.tokensUsed);
    assert.equal(m.estimate.estimate, Math.ceil(result.text.length / 4));
    assert.equal(m.estimate.error, m.estimate.estimate - m.estimate.real);
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(m)));
  });

  test('excluded rows carry the layer they would be in and what they would cost in full', async () => {
    const inputs = [
      artifact('rule', { type: 'constitution', title: 'Never log card numbers', body: 'Never log card numbers or CVCs.' }),
      ...Array.from({ length: 12 }, (_, i) => artifact(`n${i}`)),
      artifact('py', { title: 'Python webhook formatting', scope: 'path', paths: ['tools/**/*.py'] }),
      artifact('theirs', { title: 'Webhook note of another task', scope: 'task', taskId: 'other-task' }),
      artifact('gone', { title: 'Archived webhook note', status: 'archived' }),
      artifact('far', { title: 'Marina berth glossary', body: 'Berths, moorings and slipways, explained for the harbour office. '.repeat(4) }),
    ];
    const store = await seeded(inputs);
    const request = { budget: 400, now: NOW, task: TASK, paths: ['src/payments/webhooks.ts'], log: false, options: { reportExcludedTokens: true, unmatchedPathArtifacts: 'exclude' as const } };
    const tight = await assembleContext(store, request);
    const rows = new Map(model(tight).rows.map((r) => [r.id, r]));
    const cut = model(tight).rows.filter((r) => r.reasonCode === 'budget');
    assert.ok(cut.length > 0, 'a 400-token budget cuts some of the notes');
    // What a cut note would cost is what it does cost once the budget lets it in, in full.
    const roomy = await assembleContext(store, { ...request, budget: 20_000 });
    for (const row of cut) {
      const placed = roomy.items.find((i) => i.id === row.id);
      assert.equal(placed?.mode, 'full');
      assert.equal(row.layer, placed.layer);
      assert.equal(row.tokens, placed.tokens, `${row.id}: reported ${row.tokens}, costs ${placed.tokens}`);
    }
    assert.equal(rows.get('py')?.reasonCode, 'path-mismatch');
    assert.equal(rows.get('py')?.layer, 'path');
    assert.equal(rows.get('theirs')?.layer, 'task');
    assert.equal(rows.get('gone')?.layer, 'global');
    assert.equal(rows.get('far')?.reasonCode, 'below-threshold');
    assert.equal(rows.get('far')?.layer, 'global');
    for (const id of ['py', 'theirs', 'gone', 'far']) assert.ok((rows.get(id)?.tokens ?? 0) > 10, `${id} has a full token count`);

    // Without the option the layer is still there (free), the counts are not, and the context is the same to the byte.
    const plain = await assembleContext(store, { ...request, options: { unmatchedPathArtifacts: 'exclude' } });
    assert.equal(plain.text, tight.text);
    assert.equal(plain.outputHash, tight.outputHash);
    assert.ok(plain.excluded.every((e) => e.tokens === undefined && e.layer !== undefined));
  });

  test('pinned artifacts are marked so the table offers Unpin', async () => {
    const store = await seeded([artifact('p1'), artifact('p2')]);
    const result = await build(store, 8000);
    const m = buildInspectorModel({ result, folderName: 'ws', builtAt: NOW, trigger: 'test', paths: [], current: snapshotOfResult(result), pinned: new Set(['p2']) });
    assert.equal(m.rows.find((r) => r.id === 'p2')?.pinned, true);
    assert.equal(m.rows.find((r) => r.id === 'p1')?.pinned, undefined);
  });

  test('empty ledger: no rows, the whole bar is headroom', async () => {
    const store = await memoryStore();
    const result = await build(store, 8000);
    const m = model(result);
    assert.equal(m.rows.length, 0);
    assert.deepEqual(m.counts, { full: 0, preview: 0, title: 0, excluded: 0 });
    const headroom = m.segments.find((s) => s.key === 'headroom');
    assert.ok(headroom);
    assert.equal(headroom.tokens, 8000 - result.tokensUsed);
  });

  test('2,000 candidates: every one is a row, a filtered page is fast and bounded', async () => {
    const inputs = Array.from({ length: 2000 }, (_, i) =>
      artifact(`bulk-${i}`, { title: i % 7 === 0 ? `Zahlungs-Webhook 日本語 ${i} 🚀` : `Webhook note ${i}`, body: `payment webhook retry ${i} `.repeat(10) }),
    );
    const store = await seeded(inputs);
    const result = await build(store, 2000);
    const m = model(result);
    assert.equal(m.rows.length, 2000);
    assert.equal(m.candidates, 2000);
    const started = performance.now();
    const page = queryRows(m.rows, { ...DEFAULT_QUERY, text: '日本語', sort: 'title' });
    const elapsed = performance.now() - started;
    assert.equal(page.total, inputs.filter((a) => a.title.includes('日本語')).length);
    assert.equal(page.rows.length, 100);
    assert.ok(elapsed < 200, `query took ${elapsed.toFixed(1)} ms`);
    const sorted = page.rows.map((r) => r.title);
    assert.deepEqual(sorted, [...sorted].sort((a, b) => a.localeCompare(b)));
    const last = queryRows(m.rows, { ...DEFAULT_QUERY, page: 999 });
    assert.equal(last.page, last.pages - 1);
    assert.equal(last.pages, 20);
    const excluded = queryRows(m.rows, { ...DEFAULT_QUERY, statuses: ['excluded'], sort: 'score', descending: true });
    assert.equal(excluded.total, m.counts.excluded);
  });

  test('non-ASCII titles survive into the rows and the JSON the webview receives', async () => {
    const title = 'Ledger für Zahlungen — 数据库迁移 👩‍👩‍👧‍👦';
    const store = await seeded([artifact('uni', { title, type: 'constitution' })]);
    const m = model(await build(store, 8000));
    const row = m.rows.find((r) => r.id === 'uni');
    assert.equal(row?.title, title);
    const parsed = parseHostMessage(JSON.parse(JSON.stringify({ type: 'model', model: m })));
    assert.equal(parsed?.type, 'model');
  });
});

describe('inspector history', () => {
  test('timeline from the log and a diff of two builds says what came in, went out and why', async () => {
    const store = await seeded([
      artifact('a', { title: 'Alpha webhook' }),
      artifact('b', { title: 'Beta webhook' }),
      artifact('c', { title: 'Gamma webhook' }),
    ]);
    const first = await build(store, 8000, true);
    store.archive('b');
    store.importArtifacts([artifact('d', { title: 'Delta webhook' })]);
    const second = await build(store, 8000, true);
    const entries = historyEntries(store.recentAssemblies(10));
    assert.equal(entries.length, 2);
    assert.equal(entries[0]!.tokensUsed, second.tokensUsed);
    assert.equal(entries[1]!.tokensUsed, first.tokensUsed);
    assert.equal(entries[0]!.trigger, 'test');

    const diff = diffSnapshots(entries[1]!.snapshot, entries[0]!.snapshot, { a: 'Alpha webhook', b: 'Beta webhook', d: 'Delta webhook' });
    const came = diff.entries.filter((e) => e.change === 'in').map((e) => e.id);
    const went = diff.entries.filter((e) => e.change === 'out');
    assert.deepEqual(came, ['d']);
    assert.deepEqual(went.map((e) => e.id), ['b']);
    assert.equal(went[0]!.title, 'Beta webhook');
    assert.match(went[0]!.why, /archived/);
    // The log snapshot agrees with the live snapshot of the same build.
    assert.deepEqual(entries[0]!.snapshot.included.map((i) => i.id), snapshotOfResult(second).included.map((i) => i.id));
  });

  test('a tighter budget shows items going out for the budget and changing mode', async () => {
    const store = await seeded(Array.from({ length: 10 }, (_, i) => artifact(`t${i}`)));
    const wide = snapshotOfResult(await build(store, 8000));
    const narrow = snapshotOfResult(await build(store, 300));
    const diff = diffSnapshots(wide, narrow);
    assert.ok(diff.entries.length > 0);
    assert.ok(diff.tokensAfter < diff.tokensBefore);
    for (const e of diff.entries) assert.notEqual(e.change, 'in');
    const out = diff.entries.filter((e) => e.change === 'out');
    for (const e of out) assert.match(e.why, /budget/);
  });

  test('malformed log rows are read without throwing', () => {
    assert.deepEqual(snapshotOfLog({ included: 'nonsense', excluded: 42 }), { included: [], excluded: [] });
    const s = snapshotOfLog({ included: [{ id: 'x', mode: 'full', tokens: 'many' }, null, { nope: 1 }], excluded: { items: [['y', 'budget'], [3], 'z'] } });
    assert.deepEqual(s.included, [{ id: 'x', mode: 'full', layer: '', tokens: 0 }]);
    assert.deepEqual(s.excluded, [['y', 'budget']]);
  });
});

describe('what the agent will actually see', () => {
  test('always-on files are counted with the tokenizer, matched to the files in play, overlaps flagged', async () => {
    const counter = await TokenCounter.load('o200k_base');
    const rule = 'Never log card numbers or CVCs, not even masked, not in tests either.';
    const files = [
      { path: '.github/copilot-instructions.md', content: `# Project rules\n\n${rule}\n` },
      { path: '.github/instructions/ts.instructions.md', content: '---\napplyTo: "src/**/*.ts"\n---\nUse strict TypeScript.\n' },
      { path: '.github/instructions/py.instructions.md', content: '---\napplyTo: "**/*.py"\n---\nUse black.\n' },
      { path: '.cursor/rules/always.mdc', content: '---\nalwaysApply: true\n---\nBe brief. Überall. 日本語\n' },
      { path: '.cursor/rules/manual.mdc', content: '---\ndescription: only on request\n---\nManual rule.\n' },
      { path: 'AGENTS.md', content: '# Agents\n\nRun npm test before committing.\n' },
      { path: 'docs/CLAUDE.md', content: 'Docs only.\n' },
      { path: '.github/instructions/context-ledger.instructions.md', content: '---\napplyTo: "**"\n---\n<!-- generated by Context Ledger for x -->\n\nledger text\n' },
      { path: 'README.md', content: 'not an agent file' },
    ];
    const view = agentFilesView({
      files,
      activePaths: ['src/payments/webhooks.ts'],
      ledgerTokens: 500,
      included: [
        { id: 'r1', title: 'Never log card numbers', tokens: 20, body: rule, source: 'user' },
        { id: 'r2', title: 'Agents', tokens: 9, body: 'short', source: 'import:agents-md:AGENTS.md' },
        { id: 'r3', title: 'Other', tokens: 30, body: 'Something the files do not say at all, long enough to compare.', source: 'user' },
      ],
      count: (t) => counter.count(t),
    });
    const by = new Map(view.files.map((f) => [f.path, f]));
    assert.equal(by.has('README.md'), false);
    assert.equal(by.get('.github/copilot-instructions.md')?.applies, true);
    assert.equal(by.get('.github/instructions/ts.instructions.md')?.applies, true);
    assert.match(by.get('.github/instructions/ts.instructions.md')!.why, /src\/payments\/webhooks\.ts/);
    assert.equal(by.get('.github/instructions/py.instructions.md')?.applies, false);
    assert.equal(by.get('.cursor/rules/always.mdc')?.applies, true);
    assert.equal(by.get('.cursor/rules/manual.mdc')?.applies, false);
    assert.equal(by.get('AGENTS.md')?.applies, true);
    assert.equal(by.get('docs/CLAUDE.md')?.applies, false);
    assert.equal(by.get('.github/instructions/context-ledger.instructions.md')?.kind, 'ledger');
    for (const f of view.files) assert.equal(f.tokens, counter.count(files.find((x) => x.path === f.path)!.content));
    const applying = view.files.filter((f) => f.applies && f.kind !== 'ledger');
    assert.equal(view.alwaysOnTokens, applying.reduce((n, f) => n + f.tokens, 0));
    assert.equal(view.totalTokens, view.alwaysOnTokens + 500);
    assert.deepEqual(by.get('.github/copilot-instructions.md')?.overlaps.map((o) => [o.id, o.how]), [['r1', 'same text']]);
    assert.deepEqual(by.get('AGENTS.md')?.overlaps.map((o) => [o.id, o.how]), [['r2', 'imported from this file']]);
    // r2 was imported from AGENTS.md but no longer says what the file says: flagged, nothing read twice.
    assert.deepEqual(by.get('AGENTS.md')?.overlaps.map((o) => [o.share, o.tokens]), [[0, 0]]);
    assert.equal(view.overlapTokens, 20);
  });

  test('no agent files: nothing extra on the bill', () => {
    const view = agentFilesView({ files: [], activePaths: [], ledgerTokens: 10, included: [], count: () => 1 });
    assert.deepEqual(view, { files: [], alwaysOnTokens: 0, ledgerTokens: 10, totalTokens: 10, overlapTokens: 0 });
  });
});

describe('inspector messages', () => {
  test('webview messages are checked: good ones pass, hostile ones are dropped', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'pin', id: 'a-1', pinned: true, extra: 'x' }), { type: 'pin', id: 'a-1', pinned: true });
    assert.deepEqual(parseWebviewMessage({ type: 'tryBudget', budget: 12000 }), { type: 'tryBudget', budget: 12000 });
    assert.deepEqual(parseWebviewMessage({ type: 'feedback', id: 'x', verdict: 'not_useful' }), { type: 'feedback', id: 'x', verdict: 'not_useful' });
    for (const bad of [
      null,
      'ready',
      { type: 'eval', code: '1' },
      { type: 'pin', id: 'a', pinned: 'yes' },
      { type: 'openArtifact', id: '' },
      { type: 'openArtifact', id: 'x'.repeat(10_000) },
      { type: 'tryBudget', budget: -1 },
      { type: 'tryBudget', budget: 1.5 },
      { type: 'tryBudget', budget: Number.POSITIVE_INFINITY },
      { type: 'feedback', id: 'x', verdict: 'meh' },
      { type: 'openFile', path: '../../etc/passwd' },
      { type: 'openFile', path: '/etc/passwd' },
      { type: 'openFile', path: 'C:\\Windows' },
    ]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(parseHostMessage({ type: 'model', model: { rows: 'x' } }), undefined);
    assert.deepEqual(parseWebviewState({ tab: 'history', page: 2, text: 7, trialBudget: -5 }), { tab: 'history', page: 2 });
  });
});

describe('inspector manifest', () => {
  test('package.json contributes the command, restores the panel, and ships the webview bundle', () => {
    const root = path.resolve(__dirname, '../../../..');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      activationEvents: string[];
      contributes: { commands: Array<{ command: string; title: string; category?: string }>; menus: Record<string, Array<{ command: string }>> };
    };
    const command = pkg.contributes.commands.find((c) => c.command === COMMANDS.openInspector);
    assert.equal(command?.title, 'Open Context Inspector');
    assert.equal(command?.category, CATEGORY);
    assert.ok(pkg.activationEvents.includes(`onWebviewPanel:${INSPECTOR_VIEW_TYPE}`));
    assert.ok(pkg.contributes.menus['view/title']?.some((m) => m.command === COMMANDS.openInspector), 'in the sidebar title bar');
    const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(ignore.includes('!dist/webview/*.js'), 'the .vsix ships the webview bundle');
    assert.ok(ignore.includes('!media/**'), 'and its stylesheet');
  });
});
