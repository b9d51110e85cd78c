/**
 * Evidence from the change itself: the kinds of the files in play (tests, migrations, CI,
 * resources…) bring in the standing rules about them, though the task's words do not name
 * the kind, and `explain` says so.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain } from '../../../src/core/assemble';
import { changeKindsOf } from '../../../src/core/assemble/changeKinds';
import { toActivePath } from '../../../src/core/assemble/paths';
import type { LedgerStore } from '../../../src/core/store';
import { cli, fixedClock, jsonOf, memoryStore, ROOT, tempDir } from '../helpers';

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
      // A test written in a programming language is code too.
      assert.deepEqual(kinds(path).filter((k) => k !== 'code'), ['tests'], path);
    }
    for (const path of ['src/latest.go', 'src/contest/entry.ts', 'lib/attestation.js', 'src/Protest.cs', 'docs-site/app/page.tsx']) {
      assert.deepEqual(kinds(path), ['code'], path);
    }
  });

  test('source files in any language are a code change; markup, data, configuration and folders are not', () => {
    for (const path of ['lib/protocol-resolver.js', 'src/Aspire.Cli/Program.cs', 'pkg/worker/run.go', 'python/agent_framework/_agents.py', 'web/src/pages/index.tsx', 'crates/core/src/lib.rs', 'App.vue', 'src/module.MTS']) {
      assert.deepEqual(kinds(path), ['code'], path);
    }
    for (const path of ['README.md', 'docs/guide.mdx', 'package.json', 'config/app.yaml', 'data/seed.csv', 'src/', 'src/ts', 'Makefile', 'scripts/release.sh', '.github/copilot-instructions.md']) {
      assert.ok(!kinds(path).includes('code'), path);
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
    assert.deepEqual(kinds('pkg/repository/sqlcv1/durable_event_log.sql.go'), ['generated code', 'code']);
    assert.deepEqual(kinds('api/v1/openapi.yaml'), ['API contract']);
    assert.deepEqual(kinds('web/.env.example'), ['configuration']);
    assert.deepEqual(kinds('.golangci.yml'), ['lint']);
    assert.deepEqual(kinds('README.md'), ['documentation']);
    assert.deepEqual(kinds('src/a.ts', 'tests/a.test.ts', 'tests/b.test.ts', 'db/migrations/002.sql'), ['tests', 'database', 'code']);
  });

  test('paths are only names: empty, non-ASCII, traversing and absolute paths are classified without reading anything', () => {
    assert.deepEqual(kinds(), []);
    assert.deepEqual(kinds('', '   ', '/'), []);
    assert.deepEqual(kinds('tests/日本語_テスト.py'), ['tests', 'code']);
    assert.deepEqual(kinds('src/überprüfung/Prüfung.cs'), ['code']);
    assert.deepEqual(kinds('../../etc/passwd'), []);
    assert.deepEqual(kinds('../outside/migrations/001_init.sql'), ['database']);
    assert.deepEqual(kinds('/abs/path/.github/workflows/ci.yml'), ['CI']);
    assert.deepEqual(kinds(`${'deep/'.repeat(500)}x_test.go`), ['tests', 'code']);
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
    const docsOnly = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: ['docs/cli/prompts.md'], log: false });
    assert.ok(!docsOnly.items.some((i) => i.id === 'rule-testing'), 'a docs change: the testing rule has no evidence');
    const sourceOnly = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE], log: false });
    const withTest = await assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: [SOURCE, TEST_FILE], log: false });
    const rule = withTest.items.find((i) => i.id === 'rule-testing');
    assert.ok(rule, withTest.items.map((i) => `${i.id} ${i.mode}`).join('\n'));
    assert.equal(rule.mode, 'full');
    assert.match(rule.reason, /change kind: tests/);
    // A code change is tested too, so the rule has some evidence from the source file alone; a test file in play says more.
    const scoreIn = (r: typeof withTest): number => [...r.items, ...r.excluded].find((i) => i.id === 'rule-testing')?.score ?? 0;
    assert.ok(scoreIn(sourceOnly) < rule.score, `${scoreIn(sourceOnly)} < ${rule.score}`);
    assert.match(renderExplain(withTest), /why: [^\n]*change kind: tests/);
    assert.ok(!withTest.items.some((i) => i.id === 'rule-migrations'), 'no migration in play');
    const learning = [...withTest.items, ...withTest.excluded].find((i) => i.id === 'learn-tests');
    assert.ok(!learning || !('reason' in learning && /change kind/.test(String(learning.reason))), 'a learning is not a standing rule');
  });

  test('a rule added after a build is found by its kind in the next one (the kinds\' scores are kept per ledger content)', async () => {
    const store = await ledger();
    const request = { budget: 1500, now: NOW, task: TASK, paths: [SOURCE, TEST_FILE], log: false };
    const first = await assembleContext(store, request);
    assert.ok(!first.items.some((i) => i.id === 'rule-fixtures'));
    store.createArtifact({ id: 'rule-fixtures', type: 'convention', title: 'Fixtures', body: 'Each unit test builds its own fixture; a mock stands only for what crosses the process.' });
    const second = await assembleContext(store, request);
    const rule = second.items.find((i) => i.id === 'rule-fixtures');
    assert.ok(rule, second.items.map((i) => i.id).join(', '));
    assert.match(rule.reason, /change kind: tests/);
    const again = await assembleContext(store, request);
    assert.deepEqual(again.items.map((i) => [i.id, i.mode, i.score]), second.items.map((i) => [i.id, i.mode, i.score]), 'a warm build gives the same context');
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

describe('a code change and the repository\'s checks (langfuse\'s real AGENTS.md, through the CLI)', () => {
  interface Built {
    items: { id: string; mode: string; score: number; reason: string }[];
    excluded: { id: string; score?: number }[];
  }
  // langfuse keeps its AGENTS.md at .agents/AGENTS.md with a root link (as in its repository).
  const dir = tempDir('ledger-kinds-');
  fs.cpSync(path.join(ROOT, 'test', 'unit', 'fixtures', 'real', 'langfuse'), dir, { recursive: true });
  fs.symlinkSync('.agents/AGENTS.md', path.join(dir, 'AGENTS.md'));
  const db = path.join(dir, '.context-ledger', 'ledger.db');
  const build = (paths: string[]): Built => {
    const args = ['build', '--db', db, '--budget', '3000', '--format', 'json', '--no-log', '--now', '2026-06-01T00:00:00Z'];
    args.push('--task-title', 'Cap retries of failed webhook deliveries', '--task-description', 'Stop retrying a webhook delivery after five failed attempts and mark it failed.');
    for (const p of paths) args.push('--path', p);
    const result = cli(args, { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    return jsonOf<Built>(result);
  };

  test('a source file in play brings in the Verification rule the task does not name; a docs change does not', () => {
    const imported = cli(['import-folder', '--db', db], { cwd: dir });
    assert.equal(imported.code, 0, imported.stderr);
    const verification = 'agents-md-verification';
    const code = build(['worker/src/features/webhooks/deliverWebhook.ts']);
    const rule = code.items.find((i) => i.id === verification);
    assert.ok(rule, code.items.map((i) => `${i.id} ${i.mode}`).join('\n'));
    assert.match(rule.reason, /change kind: code/);
    // A root AGENTS.md applies to the docs too (every tool loads it for any file), but no
    // change kind speaks for the rule there: the kind of the change is what raised it.
    const docs = build(['docs/webhooks.md']);
    const shown = docs.items.find((i) => i.id === verification);
    assert.doesNotMatch(shown?.reason ?? '', /change kind/);
    const docsScore = shown?.score ?? docs.excluded.find((i) => i.id === verification)?.score ?? 0;
    assert.ok(docsScore < rule.score, `${docsScore} < ${rule.score}`);
  });
});
