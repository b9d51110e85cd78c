import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain, toContractJson } from '../../../src/core/assemble';
import { type LiveCandidate, codeCandidates, deploymentCandidates, docCandidates } from '../../../src/core/sources';
import { TokenCounter } from '../../../src/core/tokens';
import { ROOT, cli, fixedClock, jsonOf, memoryStore, tempDir } from '../helpers';

const FIXTURES = path.join(ROOT, 'test/unit/compress/fixtures');
const NOW = new Date('2026-01-10T00:00:00Z');
const TASK = { title: 'Stop double bookings when the payment webhook is retried', labels: ['bug'] };
const j = (...parts: string[]) => parts.join('');

async function seeded() {
  const store = await memoryStore(fixedClock());
  store.createArtifact({ id: 'adr-7', type: 'adr', title: 'Webhooks are idempotent', body: 'Every payment webhook handler stores the event id first, so a retried delivery is a no-op.' });
  store.createArtifact({ id: 'conv-1', type: 'convention', title: 'Dates', body: 'Use Temporal for nights.' });
  return store;
}

function liveCandidates(): LiveCandidate[] {
  return [
    ...codeCandidates([{ path: 'src/payments/webhooks.ts', text: fs.readFileSync(path.join(FIXTURES, 'webhooks.ts.txt'), 'utf8'), role: 'active' }]),
    ...docCandidates([{ path: 'docs/guide.md', text: fs.readFileSync(path.join(FIXTURES, 'guide.md'), 'utf8') }]),
    { key: 'diagnostics:src/payments/webhooks.ts', source: 'diagnostics', title: 'Problems in src/payments/webhooks.ts (1 error)', text: "- error at 52:9 [ts 2339]: Property 'paidAt' does not exist on type 'Booking'.", kind: 'text', path: 'src/payments/webhooks.ts', prior: 0.95, origin: '1 error reported by the editor in a file in play' },
  ];
}

describe('live sources through assembleContext', () => {
  test('each source is its own layer and section; the profile and the reasons are reported', async () => {
    const store = await seeded();
    const result = await assembleContext(store, { budget: 6000, now: NOW, task: TASK, paths: ['src/payments/webhooks.ts'], sources: { candidates: liveCandidates() } });
    assert.equal(result.live!.profile, 'bugfix');
    assert.deepEqual(result.live!.items.map((i) => [i.key, i.mode]).slice(0, 2), [
      ['code:src/payments/webhooks.ts', 'full'],
      ['diagnostics:src/payments/webhooks.ts', 'full'],
    ]);
    assert.ok(result.layers.code!.used > 0 && result.layers.diagnostics!.used > 0);
    assert.match(result.text, /## Problems the editor reports\n\n### Problems in src\/payments\/webhooks\.ts \(1 error\)/);
    assert.match(result.text, /## Code in play\n\n### src\/payments\/webhooks\.ts\ncode · the active editor\n\n```ts\n/);
    assert.ok(result.text.indexOf('## Project knowledge') < result.text.indexOf('## Problems the editor reports'));
    assert.ok(result.items.some((i) => i.id === 'adr-7'), 'the ledger still counts');
    const explain = renderExplain(result);
    assert.match(explain, /Live sources \(profile bugfix: label "bug"/);
    assert.match(explain, /\[full\] src\/payments\/webhooks\.ts \(code\)/);
    assert.deepEqual((toContractJson(result) as { sources: { profile: string } }).sources.profile, 'bugfix');
  });

  test('a tight budget compresses before it cuts, reports level and ratio, and logs them', async () => {
    const store = await seeded();
    const counter = await TokenCounter.load('o200k_base');
    const candidates = liveCandidates().filter((c) => c.source === 'code');
    const full = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, sources: { candidates }, log: false });
    const fullTokens = full.live!.items[0]!.tokens;
    const tight = await assembleContext(store, { budget: Math.floor(fullTokens * 1.6), now: NOW, task: TASK, sources: { candidates } });
    const item = tight.live!.items.find((i) => i.key === 'code:src/payments/webhooks.ts')!;
    assert.equal(item.mode, 'compressed');
    assert.ok(item.compression!.ratio < 0.9 && item.compression!.ratio > 0, `ratio ${item.compression!.ratio}`);
    assert.match(tight.text, /code, compressed \((medium|heavy)\)/);
    assert.match(tight.text, /async handle\(event: PaymentEvent\): Promise<WebhookResult>/, 'signatures survive');
    assert.ok(tight.tokensUsed <= tight.budget);
    assert.equal(counter.count(tight.text), tight.tokensUsed);
    const logged = store.recentAssemblies(1)[0]!;
    const included = logged.included as Array<{ id: string; compression?: string; ratio?: number }>;
    const row = included.find((i) => i.id === 'code:src/payments/webhooks.ts')!;
    assert.equal(row.compression, item.compression!.level);
    assert.equal(row.ratio, item.compression!.ratio);
    assert.match(renderExplain(tight), /(medium|heavy) compression to \d+% of \d+ tokens/);
  });

  test('never over the budget, for any budget, with every source in', async () => {
    const store = await seeded();
    const counter = await TokenCounter.load('o200k_base');
    const candidates = liveCandidates();
    for (const budget of [0, 1, 20, 60, 150, 400, 900, 1500, 3000]) {
      const result = await assembleContext(store, { budget, now: NOW, task: TASK, sources: { candidates }, log: false });
      assert.ok(result.tokensUsed <= budget, `budget ${budget}: ${result.tokensUsed}`);
      assert.equal(counter.count(result.text), result.tokensUsed);
    }
  });

  test('sources given but empty or all off leave the output byte-identical to no sources', async () => {
    const store = await seeded();
    const base = await assembleContext(store, { budget: 2000, now: NOW, task: TASK, log: false });
    const empty = await assembleContext(store, { budget: 2000, now: NOW, task: TASK, log: false, sources: { candidates: [] } });
    const off = await assembleContext(store, {
      budget: 2000, now: NOW, task: TASK, log: false,
      sources: { candidates: liveCandidates(), settings: { code: { enabled: false }, docs: { enabled: false }, diagnostics: { enabled: false } } },
    });
    assert.equal(empty.outputHash, base.outputHash);
    assert.equal(off.outputHash, base.outputHash);
    assert.ok(off.live!.excluded.every((e) => e.reason === 'source-off'));
  });

  test('a source cap holds; secrets in live text are masked; same input, same output', async () => {
    const store = await seeded();
    const KEY = j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8');
    const candidates: LiveCandidate[] = [
      ...liveCandidates(),
      { key: 'code:src/config.ts', source: 'code', title: 'src/config.ts', text: `export const token = "${KEY}"; // webhook payment`, kind: 'code', language: 'ts', path: 'src/config.ts', prior: 1, origin: 'named in the task' },
    ];
    const request = { budget: 6000, now: NOW, task: TASK, log: false, sources: { candidates, settings: { code: { maxTokens: 300 } } } };
    const a = await assembleContext(store, request);
    const b = await assembleContext(store, request);
    assert.equal(a.text, b.text);
    assert.ok(a.layers.code!.used <= 300, `code used ${a.layers.code!.used}`);
    assert.ok(!a.text.includes(KEY));
    assert.ok(a.redactions.count >= 1);
  });

  test('deployment comes in for infrastructure work only, with its secrets withheld', async () => {
    const store = await seeded();
    const PW = j('hunter2', '-Sup3r');
    const candidates = deploymentCandidates([{ path: 'docker-compose.yml', text: `services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: ${PW}\n` }]);
    const bug = await assembleContext(store, { budget: 3000, now: NOW, task: TASK, log: false, sources: { candidates } });
    assert.equal(bug.live!.items.length, 0);
    const infra = await assembleContext(store, { budget: 3000, now: NOW, task: { title: 'Move the postgres database to docker compose' }, log: false, sources: { candidates } });
    assert.equal(infra.live!.profile, 'infrastructure');
    assert.equal(infra.live!.items[0]!.key, 'deployment:docker-compose.yml');
    assert.match(infra.text, /POSTGRES_PASSWORD: <withheld>/);
    assert.ok(!infra.text.includes(PW));
  });

  test('malformed sources are a clear error', async () => {
    const store = await seeded();
    await assert.rejects(assembleContext(store, { budget: 100, sources: { candidates: 'x' } as never }), /"sources" must be an object with a "candidates" list/);
    await assert.rejects(assembleContext(store, { budget: 100, sources: { candidates: [{ key: 'a' }] } as never }), /needs a key, a source, a title and a text/);
    await assert.rejects(assembleContext(store, { budget: 100, sources: { candidates: [], settings: { code: { threshold: 5 } } } }), /from 0 to 1/);
  });
});

describe('CLI build --sources', () => {
  test('live sources from the workspace join the build; without the flag nothing changes', () => {
    const root = tempDir('cli-sources-');
    fs.mkdirSync(path.join(root, 'src/payments'), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'webhooks.ts.txt'), path.join(root, 'src/payments/webhooks.ts'));
    fs.writeFileSync(path.join(root, 'README.md'), '# Shop\n\n## Payments\n\nThe payment webhook is retried by the provider; handlers must be idempotent.\n');
    assert.equal(cli(['init'], { cwd: root }).code, 0);
    const args = ['build', '--budget', '4000', '--task-title', 'Stop double bookings when the payment webhook is retried', '--path', 'src/payments/webhooks.ts', '--now', '2026-01-10T00:00:00Z', '--no-log'];
    const plain = cli([...args, '--format', 'json'], { cwd: root });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(jsonOf<{ sources?: unknown }>(plain).sources, undefined);
    const withSources = cli([...args, '--sources', 'code,docs,git', '--format', 'json'], { cwd: root });
    assert.equal(withSources.code, 0, withSources.stderr);
    const json = jsonOf<{ text: string; layers: Record<string, { used: number }>; sources: { profile: string; items: Array<{ key: string }> } }>(withSources);
    assert.deepEqual(json.sources.items.map((i) => i.key), ['code:src/payments/webhooks.ts', 'docs:README.md#payments']);
    assert.ok(json.layers.code!.used > 0 && json.layers.docs!.used > 0);
    assert.match(json.text, /## Workspace docs/);
    const bad = cli([...args, '--sources', 'code,telepathy'], { cwd: root });
    assert.equal(bad.code === 0, false);
    assert.match(bad.stderr, /Unknown or unavailable source "telepathy"/);
    const explain = cli(['explain', ...args.slice(1), '--sources', 'all', '--profile', 'research'], { cwd: root });
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /Live sources \(profile research: set explicitly/);
  });
});
