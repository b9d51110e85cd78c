/**
 * The ledger shared through git, with VS Code open on one clone (issue 19), in a real
 * code-server: the seeded sample workspace is clone B, pushed to a bare repository in the
 * temp folder; clone A is a teammate working with the CLI. Nothing is run in B's VS Code
 * between a `git pull` and what the tree shows. Also: after the extension has run a while
 * (files opened, editors switched, context built, auto-inject on), `git status` shows only
 * what the user changed. Screenshots land in test-output/e2e/git-share/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CLI_PATH,
  activeEditorTitle,
  openFile,
  openView,
  pickQuickInputItem,
  runCommand,
  screenshot,
  startExtensionSession,
  viewPane,
  waitFor,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession, Workbench } from './harness';

let session: ExtensionSession | undefined;
let wb: Workbench | undefined;
let b = '';
let a = '';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The CLI in `cwd` (its own ledger, found from there): stdout and stderr, failing on a non-zero exit. */
function cli(cwd: string, ...args: string[]): { stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI_PATH, ...args], { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, `context-ledger ${args.join(' ')}: ${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

interface Listed {
  id: string;
  chainId: string;
  title: string;
  status: string;
  version: number;
}

const listed = (cwd: string): Listed[] => JSON.parse(cli(cwd, 'list', '--format', 'json', '--limit', '1000').stdout) as Listed[];

/** The user's changes (`git status --porcelain`), one path per line. */
const status = (cwd: string): string[] => git(cwd, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean);

before(async () => {
  session = await startExtensionSession('git-share', { 'contextLedger.autoInject.enabled': true }, {
    prepare: ({ workspace }) => {
      // B: the seeded sample workspace, committed as a team would (the mirror, not the database) and pushed.
      const remote = path.join(path.dirname(workspace), 'remote.git');
      git(path.dirname(workspace), 'init', '-q', '--bare', remote);
      git(workspace, 'init', '-q');
      git(workspace, 'config', 'user.name', 'Bea');
      git(workspace, 'config', 'user.email', 'bea@example.com');
      git(workspace, 'add', '-A');
      git(workspace, 'commit', '-q', '-m', 'the sample workspace and its ledger mirror');
      git(workspace, 'remote', 'add', 'origin', remote);
      git(workspace, 'push', '-q', '-u', 'origin', 'main');
      a = path.join(path.dirname(workspace), 'clone-a');
      git(path.dirname(workspace), 'clone', '-q', remote, a);
      git(a, 'config', 'user.name', 'Alice');
      git(a, 'config', 'user.email', 'alice@example.com');
    },
  });
  ({ wb } = session);
  b = session.workspace;
});

after(async () => {
  await session?.close();
});

test('the committed files are the mirror and .gitignore; the database stays local', () => {
  const tracked = git(b, 'ls-files', '.context-ledger').split('\n').filter(Boolean);
  assert.ok(tracked.includes('.context-ledger/.gitignore'), tracked.join(', '));
  assert.ok(tracked.some((f) => f.startsWith('.context-ledger/artifacts/') && f.endsWith('.md')), tracked.join(', '));
  assert.deepEqual(tracked.filter((f) => !f.startsWith('.context-ledger/artifacts/') && f !== '.context-ledger/.gitignore'), []);
  // Clone A has no database: its first command builds the ledger from the mirror.
  assert.equal(fs.existsSync(path.join(a, '.context-ledger', 'ledger.db')), false);
  assert.equal(listed(a).length, listed(b).length);
});

test('after opening files, switching editors and building context with auto-inject on, git status shows only what the user changed', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  for (const file of ['src/payments/webhooks.ts', 'README.md', 'src/payments/webhooks.ts']) {
    await openFile(page, file);
    await waitFor(() => activeEditorTitle(page), (t) => t === path.basename(file), `${file} in front`);
  }
  await runCommand(page, 'Context Ledger: Build agent context');
  // Long enough for every debounced writer (activity, auto-inject, mirror) to have run.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  await screenshot(page, '01-after-a-while');
  assert.deepEqual(status(b), [], 'nothing changed that the user did not change');

  // The user's own change is all that shows.
  fs.appendFileSync(path.join(b, 'README.md'), '\nA line the user wrote.\n');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(status(b), [' M README.md']);
  git(b, 'commit', '-q', '-am', 'the user edits the README');
  git(b, 'push', '-q');
});

test('A adds, edits and supersedes and pushes; B pulls: the tree shows it with no command, and the next build has it', async () => {
  const page = wb!.page;
  git(a, 'pull', '-q');
  const before = listed(a).filter((x) => x.status === 'active');
  const edited = before[0]!;
  const replaced = before[1]!;
  cli(a, 'add', '--type', 'decision', '--title', 'Webhooks are idempotent — clé de déduplication', '--body', 'Every payment webhook carries an idempotency key; a retried delivery is a no-op.', '--path', 'src/payments/**');
  cli(a, 'update', edited.id, '--title', `${edited.title} (revised by Alice)`);
  cli(a, 'supersede', replaced.id, '--type', 'note', '--title', 'The replacement note from Alice', '--body', 'Replaces an older note.');
  assert.deepEqual(status(a).filter((l) => !l.includes('.context-ledger/artifacts/')), [], 'A changed only mirror files');
  git(a, 'add', '-A');
  git(a, 'commit', '-q', '-m', 'Alice: knowledge about webhooks');
  git(a, 'push', '-q');

  git(b, 'pull', '-q', '--no-rebase');
  const items = await waitForTreeItems(
    page,
    'Artifacts',
    (all) =>
      all.some((i) => i.label === 'Webhooks are idempotent — clé de déduplication') &&
      all.some((i) => i.label === `${edited.title} (revised by Alice)`) &&
      all.some((i) => i.label === 'The replacement note from Alice') &&
      !all.some((i) => i.label === replaced.title),
    30_000,
  );
  assert.ok(items.length > 3);
  await screenshot(page, '02-after-pull');

  // The extension already imported the pull: the CLI finds nothing left to bring in, and its build has A's knowledge.
  const build = cli(b, 'build', '--budget', '8000', '--task-title', 'Make the payment webhook idempotent', '--path', 'src/payments/webhooks.ts', '--format', 'json');
  assert.doesNotMatch(build.stderr, /from the Markdown mirror/);
  assert.match(build.stdout, /clé de déduplication/);
  const pulled = listed(b).find((x) => x.title === 'Webhooks are idempotent — clé de déduplication');
  assert.ok(pulled);
  const history = JSON.parse(cli(b, 'show', pulled.id, '--format', 'json').stdout) as { author?: string };
  assert.equal(history.author, 'Alice <alice@example.com>', 'a pulled version carries its git author');
  assert.deepEqual(status(b), [], 'the pull left git clean');
});

test('both edit one artifact: the conflict shows in the tree, Resolve… keeps theirs, and nothing is lost', async () => {
  const page = wb!.page;
  const target = listed(b).find((x) => x.title === 'Webhooks are idempotent — clé de déduplication')!;
  cli(a, 'update', target.id, '--body', 'ALICE: keys live for 24 hours.');
  git(a, 'commit', '-q', '-am', 'Alice: key lifetime');
  git(a, 'push', '-q');
  cli(b, 'update', target.id, '--body', 'BEA: keys live for 7 days.');
  git(b, 'commit', '-q', '-am', 'Bea: key lifetime');
  try {
    git(b, 'pull', '-q', '--no-rebase');
    assert.fail('the pull should stop on the conflicting edits');
  } catch (error) {
    assert.match(String((error as { stdout?: string }).stdout) + String((error as { stderr?: string }).stderr), /CONFLICT/);
  }

  await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.label === 'Resolve conflict…'), 30_000);
  const row = viewPane(page, 'Artifacts').locator('.monaco-list-row', { hasText: target.title }).first();
  const description = (await row.locator('.label-description').textContent()) ?? '';
  assert.match(description, /conflict/);
  await screenshot(page, '03-conflict');

  await withFailureScreenshot(page, 'resolve', async () => {
    // The tree may redraw under the click (the mirror writer settles after the pull): a click
    // that only selected the row is made again, as a person would.
    const title = page.locator('.quick-input-widget .quick-input-title', { hasText: `Resolve "${target.title}"` });
    await waitFor(
      async () => {
        await viewPane(page, 'Artifacts').locator('.monaco-list-row', { hasText: 'Resolve conflict…' }).first().click();
        return title.waitFor({ state: 'visible', timeout: 5_000 }).then(
          () => true,
          () => false,
        );
      },
      (shown) => shown,
      'the Resolve quick pick after a click on "Resolve conflict…"',
      30_000,
    );
    await pickQuickInputItem(page, `Resolve "${target.title}"`, 'theirs', 'Keep theirs');
  });
  await waitForTreeItems(page, 'Artifacts', (all) => !all.some((i) => i.label === 'Resolve conflict…'), 20_000);
  await screenshot(page, '04-resolved');

  const versions = JSON.parse(cli(b, 'history', target.id, '--format', 'json').stdout) as { body: string }[];
  const bodies = versions.map((v) => v.body).join('\n');
  assert.match(bodies, /ALICE: keys live for 24 hours/, 'their side is kept');
  assert.match(bodies, /BEA: keys live for 7 days/, 'my side stays in the history');
  assert.match(versions.at(-1)!.body, /ALICE/, 'theirs is the latest');
  const file = git(b, 'diff', '--name-only', '--diff-filter=U').trim();
  assert.ok(file.startsWith('.context-ledger/artifacts/'), `the conflicted file: ${file}`);
  assert.doesNotMatch(fs.readFileSync(path.join(b, file), 'utf8'), /^(<<<<<<<|=======|>>>>>>>)/m, 'the mirror file is written clean');
  assert.equal(cli(b, 'resolve').stdout.trim(), 'No conflicts.');
  console.log(`git-share: resolved ${file}; ${versions.length} versions kept`);
});
