/**
 * Evidence from the change itself: the kinds of the files in play (tests, migrations, CI,
 * resources…) bring in the standing rules about them, though the task's words do not name
 * the kind, and `explain` says so.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain } from '../../../src/core/assemble';
import { changeKindsOf } from '../../../src/core/assemble/changeKinds';
import { toActivePath } from '../../../src/core/assemble/paths';
import type { LedgerStore } from '../../../src/core/store';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');

function kinds(...paths: string[]): string[] {
  return changeKindsOf(paths.map(toActivePath).filter((p) => p !== undefined)).map((k) => k.name);
}

describe('change kinds from paths', () => {
  test("test files are recognised by each ecosystem's own naming, and near-miss names are not", () => {
    for (const path of [
      'dotnet/tests/Microsoft.Agents.AI.UnitTests/ChatClient/ChatClientAgent_ChatHistoryManagementTests.cs',
      'src/Foo.Tests/Bar.cs',
      'python/packages/core/tests/core/test_compaction.py',
      'internal/rc/rc_test.go',
      'worker/src/features/integrations/bullmqAttempts.test.ts',
      '__tests__/unit/protocol-resolver.test.js',
      'sdks/typescript/src/v1/examples/run_details/get_details.e2e.ts',
      'web/src/utils/api.clienttest.ts',
      'app/src/main/java/com/acme/OrderServiceTest.java',
      'spec/models/user_spec.rb',
      'tests/',
    ]) {
      assert.deepEqual(kinds(path), ['tests'], path);
    }
    for (const path of ['src/latest.go', 'src/contest/entry.ts', 'lib/attestation.js', 'src/Protest.cs', 'docs-site/app/page.tsx']) {
      assert.deepEqual(kinds(path), [], path);
    }
  });

  test('migrations, CI, dependencies, resources, generated code and the rest each have their kind; several files give several kinds once each', () => {
    assert.deepEqual(kinds('db/migrations/20240101_add_users.sql'), ['database']);
    assert.deepEqual(kinds('prisma/schema.prisma'), ['database']);
    assert.deepEqual(kinds('.github/workflows/specialized-test-runner.yml'), ['CI']);
    assert.deepEqual(kinds('package.json'), ['dependencies']);
    assert.deepEqual(kinds('src/Aspire.Hosting/Aspire.Hosting.csproj'), ['dependencies']);
    assert.deepEqual(kinds('deploy/Dockerfile'), ['containers']);
    assert.deepEqual(kinds('src/Aspire.Hosting/Resources/InteractionStrings.resx'), ['localization']);
    assert.deepEqual(kinds('pkg/repository/sqlcv1/durable_event_log.sql.go'), ['generated code']);
    assert.deepEqual(kinds('api/v1/openapi.yaml'), ['API contract']);
    assert.deepEqual(kinds('web/.env.example'), ['configuration']);
    assert.deepEqual(kinds('.golangci.yml'), ['lint']);
    assert.deepEqual(kinds('README.md'), ['documentation']);
    assert.deepEqual(kinds('src/a.ts', 'tests/a.test.ts', 'tests/b.test.ts', 'db/migrations/002.sql'), ['tests', 'database']);
  });

  test('paths are only names: empty, non-ASCII, traversing and absolute paths are classified without reading anything', () => {
    assert.deepEqual(kinds(), []);
    assert.deepEqual(kinds('', '   ', '/'), []);
    assert.deepEqual(kinds('tests/日本語_テスト.py'), ['tests']);
    assert.deepEqual(kinds('src/überprüfung/Prüfung.cs'), []);
    assert.deepEqual(kinds('../../etc/passwd'), []);
    assert.deepEqual(kinds('../outside/migrations/001_init.sql'), ['database']);
    assert.deepEqual(kinds('/abs/path/.github/workflows/ci.yml'), ['CI']);
    assert.deepEqual(kinds(`${'deep/'.repeat(500)}x_test.go`), ['tests']);
  });
});

async function ledger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  // The team's standing rules (as imported from AGENTS.md): one about tests, others not.
  store.createArtifact({
    id: 'rule-testing',
    type: 'convention',
    title: 'Testing',
    body: 'Unit tests follow the style of nearby tests, use no mocking framework and assert one behaviour each. Run them with the filter that excludes quarantined tests.',
  });
  store.createArtifact({ id: 'rule-logging', type: 'convention', title: 'Logging', body: 'Log through the shared logger; never log secrets or whole payloads.' });
  store.createArtifact({ id: 'rule-migrations', type: 'convention', title: 'Database migrations', body: 'Every schema migration is reversible and reviewed by the data team.' });
  // Records that share the task's words, enough to fill a small budget.
  for (let i = 0; i < 6; i++) {
    store.createArtifact({
      id: `dec-${i}`,
      type: 'decision',
      title: `Console output escaping ${i}`,
      body: `Subscription names and markup in console prompts: escape square brackets before rendering (variant ${i}). ${'The prompt renderer treats brackets as markup. '.repeat(12)}`,
    });
  }
  // A record that talks about tests is not a standing rule: the test file does not raise it.
  store.createArtifact({ id: 'learn-tests', type: 'learning', title: 'Flaky test retries', body: 'Unit tests with fixtures and mocks retried twice in CI last spring.' });
  return store;
}

const TASK = { title: 'CLI crashes on subscription names containing square brackets', description: 'Escape the names before the console prompt renders them.' };
const SOURCE = 'src/Aspire.Cli/Interaction/ConsoleInteractionService.cs';
const TEST_FILE = 'tests/Aspire.Cli.Tests/Interaction/ConsoleInteractionServiceTests.cs';

describe('change kinds in the build', () => {
  test('a test file in play brings in the testing rule the task does not name, and explain says "change kind: tests"', async () => {
    const store = await ledger();
    const without = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE], log: false });
    assert.ok(!without.items.some((i) => i.id === 'rule-testing'), 'no test file in play: the testing rule has no evidence');
    const withTest = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE, TEST_FILE], log: false });
    const rule = withTest.items.find((i) => i.id === 'rule-testing');
    assert.ok(rule, withTest.items.map((i) => `${i.id} ${i.mode}`).join('\n'));
    assert.equal(rule.mode, 'full');
    assert.match(rule.reason, /change kind: tests/);
    assert.match(renderExplain(withTest), /why: [^\n]*change kind: tests/);
    assert.ok(!withTest.items.some((i) => i.id === 'rule-migrations'), 'no migration in play');
    const learning = [...withTest.items, ...withTest.excluded].find((i) => i.id === 'learn-tests');
    assert.ok(!learning || !('reason' in learning && /change kind/.test(String(learning.reason))), 'a learning is not a standing rule');
  });

  test('the kind evidence is a query weight like the others: `queryWeights.kinds` 0 turns it off', async () => {
    const store = await ledger();
    const on = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE, TEST_FILE], log: false });
    const off = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE, TEST_FILE], options: { queryWeights: { kinds: 0 } }, log: false });
    const score = (r: typeof on): number => [...r.items, ...r.excluded].find((i) => i.id === 'rule-testing')?.score ?? 0;
    // The test file's own name still says "tests" as a path word; the kind adds the rule's vocabulary on top.
    assert.ok(score(off) < score(on), `${score(off)} < ${score(on)}`);
    assert.ok(![...off.items].some((i) => /change kind/.test(i.reason)));
  });

  test('a CI workflow in play brings in the CI rule that shares no word with the task; one scoped to another folder, and a decision, do not gain', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'rule-ci', type: 'convention', title: 'CI pipelines', body: 'Every new pipeline job needs an owner and a timeout.' });
    store.createArtifact({ id: 'rule-ci-web', type: 'convention', scope: 'path', paths: ['web/**'], title: 'CI for the web app', body: 'The web pipeline caches node_modules.' });
    store.createArtifact({ id: 'dec-ci', type: 'decision', title: 'CI pipeline moved to nightly', body: 'The pipeline is nightly now.' });
    const request = { budget: 2000, now: NOW, task: { title: 'Run the end-to-end suite less often', description: '' }, log: false } as const;
    const ci = await assembleContext(store, { ...request, paths: ['.github/workflows/specialized-test-runner.yml'] });
    const rule = ci.items.find((i) => i.id === 'rule-ci');
    assert.ok(rule, ci.items.map((i) => i.id).join(', '));
    assert.match(rule.reason, /change kind: CI/);
    assert.ok(!ci.items.some((i) => i.id === 'rule-ci-web'), 'scoped to web/**, which is not in play');
    assert.ok(!ci.items.some((i) => i.id === 'dec-ci'), 'a decision is not a standing rule: the kind gives it nothing');
    const none = await assembleContext(store, { ...request, paths: ['src/runner/suite.ts'] });
    assert.ok(!none.items.some((i) => i.id === 'rule-ci'));
  });

  test('a migration in play brings in the migration rule; hostile and non-ASCII paths build without error', async () => {
    const store = await ledger();
    const result = await assembleContext(store, {
      budget: 1500,
      now: NOW,
      task: { title: 'Add a column for the display name', description: '' },
      paths: ['../../etc/passwd', '/abs/db/migrations/0042_display_name.sql', 'src/名前/表示.ts', ''],
      log: false,
    });
    const rule = result.items.find((i) => i.id === 'rule-migrations');
    assert.ok(rule, result.items.map((i) => i.id).join(', '));
    assert.match(rule.reason, /change kind: database/);
    assert.ok(result.tokensUsed <= 1500);
  });
});
