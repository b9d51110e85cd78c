import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, MAX_BUDGET, type AssembleRequest, type AssembleResult } from '../../../src/core/assemble';
import { cutAtGrapheme, makePreview } from '../../../src/core/assemble/preview';
import { artifactUrn, ARTIFACT_TYPES, UserError, type ArtifactInput, type ArtifactType } from '../../../src/core/model';
import type { LedgerStore } from '../../../src/core/store';
import { TokenCounter } from '../../../src/core/tokens';
import { fixedClock, memoryStore, seededRandom as prng } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const WORDS = (
  'webhook payment booking retry queue worker lock timeout idempotency key stripe event handler route ' +
  'database migration schema index transaction session cache token budget ledger context agent review ' +
  'deploy release test fixture parser render stream buffer encoding unicode security audit latency'
).split(' ');
const EXOTIC = ['🚀', '👩‍👩‍👧‍👦', '🇯🇵', '日本語', '数据库迁移', '한국어', 'é', 'ﬁ', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '👍🏽'];

function words(rand: () => number, n: number, exotic = false): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(exotic && rand() < 0.3 ? EXOTIC[Math.floor(rand() * EXOTIC.length)]! : WORDS[Math.floor(rand() * WORDS.length)]!);
  }
  return out.join(' ');
}

function randomArtifact(rand: () => number, i: number): ArtifactInput {
  const kind = rand();
  const exotic = rand() < 0.3;
  let body: string;
  if (kind < 0.08) body = '';
  else if (kind < 0.14) body = `${words(rand, 4000, exotic)}\n\n${'🚀'.repeat(300)}${'数据'.repeat(500)}`; // huge
  else if (kind < 0.2) body = '😀'.repeat(50 + Math.floor(rand() * 500)); // one unbroken emoji run
  else body = `## Context\n\n${words(rand, 30 + Math.floor(rand() * 200), exotic)}.\n\n## Decision\n\n${words(rand, 20 + Math.floor(rand() * 80), exotic)}.`;
  const type = ARTIFACT_TYPES[Math.floor(rand() * ARTIFACT_TYPES.length)]!;
  const pathScoped = rand() < 0.25;
  return {
    id: `a-${i}`,
    type,
    title: `${words(rand, 3 + Math.floor(rand() * 5), exotic)} ${i}`,
    body,
    scope: pathScoped ? 'path' : 'global',
    paths: pathScoped ? [`src/${WORDS[Math.floor(rand() * 10)]}/**`] : [],
    tags: [WORDS[Math.floor(rand() * WORDS.length)]!],
    pinned: rand() < 0.05,
    createdAt: new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString(),
  };
}

async function randomStore(seed: number, n: number): Promise<LedgerStore> {
  const rand = prng(seed);
  const store = await memoryStore(fixedClock());
  for (let i = 0; i < n; i++) store.createArtifact(randomArtifact(rand, i));
  return store;
}

const counters = new Map<string, Promise<TokenCounter>>();
function counter(name: 'o200k_base' | 'cl100k_base'): Promise<TokenCounter> {
  let c = counters.get(name);
  if (!c) counters.set(name, (c = TokenCounter.load(name)));
  return c;
}

/** The rendered text, counted independently with the real tokenizer, fits; previews are honest. */
async function assertHonest(result: AssembleResult, budget: number, label: string): Promise<void> {
  const real = (await counter(result.tokenizer)).count(result.text);
  assert.ok(real <= budget, `${label}: ${real} tokens rendered for a budget of ${budget}`);
  assert.ok(result.tokensUsed <= budget, `${label}: reported ${result.tokensUsed} > ${budget}`);
  assert.ok(!LONE_SURROGATE.test(result.text), `${label}: a surrogate pair was split`);
  for (const item of result.items) {
    // A preview says where the whole is: its own line's "(full: …)", or, shown by its sections
    // alone (its line did not fit), each section's own address under the whole's.
    const shownBySections = item.sections !== undefined && item.sections.length > 0 && item.sections.every((s) => result.text.includes(`${artifactUrn(item.id)}#${s.slug}`));
    if (item.mode === 'preview') assert.ok(result.text.includes(`(full: ${artifactUrn(item.id)})`) || shownBySections, `${label}: preview of ${item.id} lacks its URN`);
  }
}

const TASK = {
  title: 'Stop double bookings when the payment webhook is retried',
  description: 'The Stripe webhook handler is retried on timeout; make booking idempotent with a lock on the event id.',
  labels: ['payments'],
};

function request(budget: number, extra: Partial<AssembleRequest> = {}): AssembleRequest {
  return { budget, now: NOW, task: TASK, paths: ['src/payments/webhooks.ts'], log: false, ...extra };
}

async function realisticStore(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-01-01T00:00:00.000Z'));
  const add = (id: string, type: ArtifactType, title: string, body: string, more: Partial<ArtifactInput> = {}) =>
    store.createArtifact({ id, type, title, body, createdAt: '2025-12-01T00:00:00.000Z', ...more });
  add('rules', 'constitution', 'Engineering rules', 'All money amounts are integers in cents. Every external call has a timeout. Never log card data.');
  add('adr-idem', 'adr', 'ADR-012: Idempotent webhook processing', `## Context\n\nStripe retries webhooks up to 3 days. ${'We saw double bookings in production when the handler timed out. '.repeat(8)}\n\n## Decision\n\nStore the event id with a unique index and skip duplicates inside the booking transaction.`);
  add('pat-lock', 'pattern', 'Advisory lock per booking', 'Take pg_advisory_xact_lock(booking_id) before changing a booking row.', { scope: 'path', paths: ['src/payments/**'] });
  add('learn-tz', 'learning', 'Time zones in the booking calendar', 'Store UTC, render in the venue time zone. 日本語の会場も同じ。🚀');
  add('conv-tests', 'convention', 'Tests name the behaviour', 'Test names read as sentences describing behaviour.');
  add('note-empty', 'note', 'Empty note about webhooks', '');
  for (let i = 0; i < 30; i++) add(`dec-${i}`, 'decision', `Decision ${i} on ${WORDS[i % WORDS.length]} handling`, `${WORDS.slice(i % 10, (i % 10) + 12).join(' ')}. `.repeat(20));
  return store;
}

describe('assembler budget', () => {
  test('the rendered text never exceeds budgets 0, 50, 100 and 1000 on a realistic corpus', async () => {
    const store = await realisticStore();
    for (const budget of [0, 1, 50, 100, 1000, 8000]) {
      for (const tokenizer of ['o200k_base', 'cl100k_base'] as const) {
        const result = await assembleContext(store, request(budget, { tokenizer }));
        await assertHonest(result, budget, `budget ${budget} ${tokenizer}`);
        if (budget === 0) assert.equal(result.text, '');
      }
    }
    const roomy = await assembleContext(store, request(8000));
    assert.ok(roomy.items.some((i) => i.id === 'adr-idem' && i.mode === 'full'), 'the ADR on the task is included in full at 8000');
  });

  test('random corpora (emoji, CJK, huge and empty bodies) at random budgets stay within budget', async () => {
    const rand = prng(20260301);
    for (let round = 0; round < 12; round++) {
      const store = await randomStore(1000 + round, 5 + Math.floor(rand() * 60));
      for (let k = 0; k < 4; k++) {
        const r = rand();
        const budget = r < 0.3 ? Math.floor(rand() * 120) : r < 0.8 ? Math.floor(rand() * 3000) : Math.floor(rand() * 30000);
        const tokenizer = rand() < 0.5 ? 'o200k_base' : 'cl100k_base';
        const previewChars = 20 + Math.floor(rand() * 400);
        const result = await assembleContext(store, request(budget, { tokenizer, options: { previewChars } }));
        await assertHonest(result, budget, `round ${round} budget ${budget} ${tokenizer} previewChars ${previewChars}`);
      }
      store.close();
    }
  });

  test('pinned and constitution items alone far over the budget still fit', async () => {
    const store = await memoryStore(fixedClock());
    for (let i = 0; i < 8; i++) {
      store.createArtifact({ id: `rule-${i}`, type: 'constitution', title: `Rule ${i} 🚀 数据`, body: `${words(prng(i), 600, true)}` });
      store.createArtifact({ id: `pin-${i}`, type: 'note', title: `Pinned note ${i}`, body: words(prng(100 + i), 500), pinned: true });
    }
    for (const budget of [0, 30, 50, 100, 400, 1000, 3000]) {
      const result = await assembleContext(store, request(budget));
      await assertHonest(result, budget, `fixed tier over budget ${budget}`);
    }
    const result = await assembleContext(store, request(1000));
    assert.ok(result.items.length > 0, 'something of the fixed tier is shown at 1000 tokens');
  });

  test('only the latest version of a chain is used; superseded and archived are excluded with their reason', async () => {
    const store = await memoryStore(fixedClock());
    store.createArtifact({ id: 'retry', type: 'decision', title: 'Webhook retry policy', body: 'OLDVERSIONMARKER retry the webhook handler twice.' });
    const v2 = store.updateArtifact('retry', { body: 'NEWVERSIONMARKER retry the webhook handler with backoff and an idempotency key.' });
    store.createArtifact({ id: 'old-lock', type: 'adr', title: 'Booking lock with table locks', body: 'SUPERSEDEDMARKER lock the whole booking table on webhook.' });
    store.supersedeWith('old-lock', { id: 'new-lock', type: 'adr', title: 'Booking lock with advisory locks', body: 'Advisory lock per booking on webhook.' });
    store.createArtifact({ id: 'gone', type: 'learning', title: 'Webhook booking queue experiment', body: 'ARCHIVEDMARKER the webhook queue experiment.' });
    store.archive('gone');

    const result = await assembleContext(store, request(8000));
    assert.ok(result.text.includes('NEWVERSIONMARKER'));
    for (const marker of ['OLDVERSIONMARKER', 'SUPERSEDEDMARKER', 'ARCHIVEDMARKER']) assert.ok(!result.text.includes(marker), marker);
    assert.ok(result.items.some((i) => i.id === v2.id));
    assert.ok(!result.items.some((i) => i.id === 'retry' || i.id === 'old-lock' || i.id === 'gone'));
    const reason = (id: string) => result.excluded.find((e) => e.id === id);
    assert.equal(reason('old-lock')?.reason, 'superseded');
    assert.match(reason('old-lock')?.detail ?? '', /new-lock/);
    assert.equal(reason('gone')?.reason, 'archived');

    const explained = await assembleContext(store, request(8000, { options: { reportOlderVersions: true } }));
    assert.equal(explained.excluded.find((e) => e.id === 'retry')?.reason, 'older-version');
  });

  test('same database, inputs and now give byte-identical text', async () => {
    const a = await randomStore(7, 40);
    const b = await randomStore(7, 40);
    for (const budget of [100, 1500, 8000]) {
      const first = await assembleContext(a, request(budget));
      const again = await assembleContext(a, request(budget));
      const other = await assembleContext(b, request(budget));
      assert.equal(again.text, first.text);
      assert.equal(other.text, first.text);
      assert.equal(other.outputHash, first.outputHash);
    }
  });

  test('bad budgets are clear user errors', async () => {
    const store = await realisticStore();
    const cases: Array<[unknown, RegExp]> = [
      [-1, /0 or more/],
      [-0.5, /whole number/],
      [12.5, /whole number/],
      [Number.NaN, /must be a number of tokens/],
      [Number.POSITIVE_INFINITY, /must be a number of tokens/],
      ['8000', /must be a number of tokens/],
      [null, /must be a number of tokens/],
      [MAX_BUDGET + 1, /more than any model reads/],
      [1e300, /more than any model reads/],
    ];
    for (const [budget, message] of cases) {
      await assert.rejects(
        assembleContext(store, { ...request(0), budget: budget as number }),
        (error: unknown) => error instanceof UserError && message.test(error.message),
        `budget ${String(budget)}`,
      );
    }
    const max = await assembleContext(store, request(MAX_BUDGET));
    await assertHonest(max, MAX_BUDGET, 'MAX_BUDGET');
  });

  test('a cut ends where a full grapheme segmentation says, on mixed ASCII and combining text', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const reference = (text: string, max: number): string => {
      let end = 0;
      for (const { index, segment } of segmenter.segment(text)) {
        if (index + segment.length > max) break;
        end = index + segment.length;
      }
      return text.slice(0, end);
    };
    // ASCII next to combining accents, CR LF, ZWJ emoji, flags and Hangul jamo: every kind of
    // character that joins a neighbour into one grapheme, at every cut position.
    const pieces = ['a', ' ', 'e\u0301', '\r\n', '\r', '\n', '👩‍💻', '🇫🇷', '\u1100\u1161', 'x\u200d', '।', 'Z'];
    const random = prng(7);
    for (let sample = 0; sample < 40; sample++) {
      let text = '';
      while (text.length < 80) text += pieces[Math.floor(random() * pieces.length)];
      for (let max = 0; max <= text.length + 1; max++) assert.equal(cutAtGrapheme(text, max), reference(text, max), `cut ${max} of ${JSON.stringify(text)}`);
    }
  });

  test('a decision record previews its decision, not its status line and context', () => {
    const nygard = '# 3. Use sql.js\n\n## Status\n\nAccepted\n\n## Context\n\nThe extension must run where native modules cannot be built.\n\n## Decision\n\nWe will store the ledger with sql.js, in WebAssembly.\n\n## Consequences\n\nNo native build.';
    assert.equal(makePreview(nygard, 140), 'We will store the ledger with sql.js, in WebAssembly.');
    const madr = '* Status: accepted\n\n## Context and Problem Statement\n\nWe need a format.\n\n## Decision Outcome\n\nChosen option: "MADR", because it is the most complete.\n\n### Positive Consequences\n\n* Reviews are easier.';
    assert.equal(makePreview(madr, 140), 'Chosen option: "MADR", because it is the most complete.');
    const inline = '**Context**: Three storage layers overlapped.\n\n**Decision**: Remove the sessions folder. Two stores remain.\n\n**Consequences**: Less to sync.';
    assert.equal(makePreview(inline, 140), 'Remove the sessions folder. Two stores remain.');
    assert.equal(makePreview('**Context:** Slow.\n\n**Decision:** Cache it.\n\n**Consequences:** Stale reads.', 140), 'Cache it.');
    assert.equal(makePreview('**Decision** making is slow here.', 140), '**Decision** making is slow here.');
    // A summary wins; a body without a decision, or with an empty one, previews its start.
    assert.equal(makePreview(nygard, 140, 'sql.js, because no native build.'), 'sql.js, because no native build.');
    assert.equal(makePreview('## Decision\n\n## Consequences\n\nNone yet.', 140), 'None yet.');
    assert.equal(makePreview('Our decision process is described below.\n\nDecision makers meet weekly.', 140), 'Our decision process is described below. Decision makers meet weekly.');
    // Without a decision section, the metadata lines of a record are skipped, not previewed.
    const meta = '- Status: accepted\n\nTechnical Story: https://github.com/kumahq/kuma/issues/13886\n\n* Deciders: Ana, Bo\n* Date: 2024-05-01\n\n## Context\n\nKuma names Envoy resources in one way.';
    assert.equal(makePreview(meta, 140), 'Kuma names Envoy resources in one way.');
    assert.equal(makePreview('Status: the queue is stuck at 3 AM every day.\n\nIt retries forever.', 140), 'Status: the queue is stuck at 3 AM every day. It retries forever.');
    assert.equal(makePreview('* Status: accepted', 140), '* Status: accepted');
    const bold = '**Date:** 2026-02-19\n**Status:** Superseded by ADR-013 (Group-Scoped Context)\n**Author:** User + Claude\n**Depends on:** ADR-012 (Task Groups)\n\n## Context\n\nAgents can create artifacts.';
    assert.equal(makePreview(bold, 140), 'Agents can create artifacts.');
    assert.equal(makePreview('## Status\nProposed\n\n## Context\nUsers need swim lanes.', 140), 'Users need swim lanes.');
    // A sentence that starts with a status word is content.
    assert.equal(makePreview('Implemented the retry queue\n\nIt backs off.', 140), 'Implemented the retry queue It backs off.');
    // A long decision is cut like any preview: after its last whole sentence that fits.
    assert.equal(makePreview(`## Decision\n\n${'Cache the rendered bodies. '.repeat(20)}`, 60), 'Cache the rendered bodies. Cache the rendered bodies.');
  });

  test('a preview ends with a whole sentence when one ends far enough in', () => {
    const body = 'The webhook is retried by the provider for up to three days. Each retry carries the same event id, so the handler must be idempotent.';
    assert.equal(makePreview(body, 100), 'The webhook is retried by the provider for up to three days.');
    // A first sentence shorter than 40% of the preview says too little: cut at a word instead.
    assert.equal(makePreview('Short one. Then a much longer sentence that goes on and on past the limit of the preview', 60), 'Short one. Then a much longer sentence that goes on and on…');
    // Abbreviations and list numbers do not end a sentence; CJK full stops do.
    assert.equal(makePreview('Prefer plain data types, e.g. maps and arrays over classes with hidden state and', 60), 'Prefer plain data types, e.g. maps and arrays over classes…');
    assert.equal(makePreview('It gives the best balance of: 1. startup time and 2. accuracy of the results for users', 60), 'It gives the best balance of: 1. startup time and 2…');
    assert.equal(makePreview('台帳はワークスペースに保存される。エージェントは必要な知識だけを受け取る。', 30), '台帳はワークスペースに保存される。');
  });

  test('a learning previews its lesson, and a preview never just repeats the title', () => {
    const learning = '**Context**: After editing commands.yaml and make build, the old help text still showed.\n\n**Lesson**: The ctx on PATH is a stale install; run the freshly built binary.\n\n**Application**: Use ./ctx in tests.';
    assert.equal(makePreview(learning, 140), 'The ctx on PATH is a stale install; run the freshly built binary.');
    assert.equal(makePreview('## Lessons learned\n\nPin the toolchain.\n\n## Next', 140), 'Pin the toolchain.');
    // The decision is the title, word for word: the preview goes on to what the title does not say.
    const restated = '**Status**: Accepted\n\n**Decision**: Use hook relay for session provenance\n\n**Rationale**: JSONL parsing broke on every format change.';
    assert.equal(makePreview(restated, 140, null, 'Use hook relay for session provenance.'), '**Rationale**: JSONL parsing broke on every format change.');
    // A decision that introduces one subsection per part is previewed with their headings
    // (code blocks in between are not mistaken for headings, a later section ends the list).
    const parts = '## Decision\nAdd three observability surfaces:\n\n### 1. Task tabs\n```sh\n# not a heading\n```\n\n### 2. Preview endpoint\n\nGET /api/preview.\n\n## Consequences\n\n### Positive\n\nMore to see.';
    assert.equal(makePreview(parts, 140), 'Add three observability surfaces: 1. Task tabs; 2. Preview endpoint');
    // "Consolidated from" is provenance, not content.
    assert.equal(makePreview('**Consolidated from**: 4 entries (2026-01-25 to 2026-04-03)\n\n- Run the full gate before each commit.', 140), '- Run the full gate before each commit.');
  });

  test('previews never split a surrogate pair or grapheme and end with the URN', async () => {
    const samples = ['😀'.repeat(100), `a${'👩‍👩‍👧‍👦'.repeat(40)}`, '日本語🚀'.repeat(60), `${'🇯🇵'.repeat(50)} end`, `x${'𝔘'.repeat(200)}`];
    for (const text of samples) {
      for (let max = 1; max < 60; max++) {
        const cut = cutAtGrapheme(text, max);
        assert.ok(cut.length <= max && text.startsWith(cut) && !LONE_SURROGATE.test(cut), `cut ${max} of ${text.slice(0, 8)}`);
        const preview = makePreview(text, Math.max(20, max));
        assert.ok(!LONE_SURROGATE.test(preview), `preview ${max}`);
      }
    }
    // In an assembled document: many emoji-heavy bodies and a small budget force previews.
    const store = await memoryStore(fixedClock());
    for (let i = 0; i < 20; i++) {
      store.createArtifact({ id: `emoji-${i}`, type: 'decision', title: `Webhook retry emoji note ${i}`, body: `webhook retry ${'🚀😀👩‍👩‍👧‍👦'.repeat(300)}` });
    }
    let sawPreview = false;
    for (const budget of [150, 250, 400, 700]) {
      for (const previewChars of [21, 33, 57, 240]) {
        const result = await assembleContext(store, request(budget, { options: { previewChars } }));
        await assertHonest(result, budget, `emoji previews ${budget}/${previewChars}`);
        sawPreview ||= result.items.some((i) => i.mode === 'preview');
      }
    }
    assert.ok(sawPreview, 'at least one assembly degraded to previews');
  });
});
