import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { collectLiveSources, parseSourceKinds, walkWorkspace } from '../../../src/node/sources';
import { DEFAULT_SOURCE_SETTINGS, SOURCE_KINDS, detectProfile, resolveProfileRules } from '../../../src/core/sources';
import { readConfig } from '../../../src/extension/configModel';
import { contributedSettings, tempDir } from '../helpers';

const j = (...parts: string[]) => parts.join('');
const PASSWORD = j('hunter2', '-Sup3r-9');

function write(root: string, rel: string, text: string | Buffer): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function git(root: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: root, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

function workspace(): string {
  const root = tempDir('sources-');
  write(root, 'src/payments/webhooks.ts', "import { store } from './store';\nimport x from 'lodash';\nexport function handle(): void {\n  store.save();\n}\n");
  write(root, 'src/payments/store.ts', 'export const store = { save(): void {} };\n');
  write(root, 'src/other.ts', 'export const unrelated = 1;\n');
  write(root, 'README.md', '# Shop\n\nIntro.\n\n## Payments\n\nWebhooks are retried.\n');
  write(root, 'docs/ops/runbook.md', '# Runbook\n\nRestart the worker.\n');
  write(root, 'node_modules/pkg/README.md', '# Not ours\n\nNever read.\n');
  write(root, 'deploy/k8s/app.yaml', `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - env:\n            - name: DB_PASSWORD\n              value: ${PASSWORD}\n`);
  write(root, '.env.example', `DB_PASSWORD=${PASSWORD}\nPORT=8080\n`);
  write(root, '.env', `DB_PASSWORD=${PASSWORD}\n`);
  write(root, 'src/blob.bin', Buffer.from([0, 1, 2, 3]));
  return root;
}

/** The sample shop committed on main, checked out on a new branch `fix/retries`. */
function shopOnBranch(): string {
  const root = workspace();
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'Initial shop');
  git(root, 'checkout', '-q', '-b', 'fix/retries');
  return root;
}

describe('live sources from the disk and git (CLI path)', () => {
  test('code in play and its imports, docs by section, deployment without secrets, git changes', () => {
    const root = shopOnBranch();
    write(root, 'src/payments/webhooks.ts', "import { store } from './store';\nexport function handle(): void {\n  store.save();\n  store.save();\n}\n");
    git(root, 'commit', '-q', '-am', 'Handle retried webhooks once');

    const out = collectLiveSources({
      root,
      kinds: ['code', 'docs', 'deployment', 'git'],
      task: { title: 'Webhook retries double-charge', description: 'See src/payments/webhooks.ts and ../outside.ts' },
      paths: ['src/blob.bin', '../../etc/passwd'],
    });
    const keys = out.map((c) => c.key);
    assert.deepEqual(keys.filter((k) => k.startsWith('code:')), ['code:src/payments/webhooks.ts', 'code:src/payments/store.ts']);
    assert.equal(out.find((c) => c.key === 'code:src/payments/store.ts')!.origin, 'imported by src/payments/webhooks.ts');
    assert.deepEqual(keys.filter((k) => k.startsWith('docs:')), ['docs:README.md#shop', 'docs:README.md#payments', 'docs:docs/ops/runbook.md#runbook']);
    assert.deepEqual(keys.filter((k) => k.startsWith('deployment:')), ['deployment:.env.example', 'deployment:deploy/k8s/app.yaml']);
    const all = out.map((c) => `${c.title}\n${c.text}`).join('\n');
    assert.ok(!all.includes(PASSWORD), 'no secret value leaves');
    assert.ok(all.includes('DB_PASSWORD'), 'the name does');
    const changes = out.find((c) => c.key === 'git:changes')!;
    assert.match(changes.title, /^Changes on branch fix\/retries since main: 1 file, \+1 -1$/);
    assert.equal(changes.text, '- M src/payments/webhooks.ts +1 -1');
    assert.match(out.find((c) => c.key === 'git:commits')!.text, /Handle retried webhooks once \(src\/payments\/webhooks\.ts\)/);
  });

  test('git answers are reused between builds, yet every change to the branch or the working tree shows at once', () => {
    const root = shopOnBranch();
    const changes = (): string => collectLiveSources({ root, kinds: ['git'] }).find((c) => c.key === 'git:changes')?.text ?? '';
    const commits = (): string => collectLiveSources({ root, kinds: ['git'] }).find((c) => c.key === 'git:commits')?.text ?? '';
    assert.equal(changes(), '');
    write(root, 'src/other.ts', 'export const unrelated = 2;\n');
    assert.equal(changes(), '- M src/other.ts +1 -1');
    assert.equal(changes(), '- M src/other.ts +1 -1', 'unchanged: the same answer');
    // A file that is already changed, changed again: git status says the same, its size and time do not.
    write(root, 'src/other.ts', 'export const unrelated = 2;\nexport const more = 3;\n');
    assert.equal(changes(), '- M src/other.ts +2 -1');
    write(root, 'notes/todo.txt', 'new file\n');
    assert.equal(changes(), '- ? notes/todo.txt\n- M src/other.ts +2 -1');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'Tidy the other module');
    assert.match(commits(), /Tidy the other module/);
    assert.equal(changes(), '- A notes/todo.txt +1 -0\n- M src/other.ts +2 -1');
    fs.rmSync(path.join(root, 'notes/todo.txt'));
    assert.equal(changes(), '- M src/other.ts +2 -1');
  });

  test('a folder that is not a git repository, and nothing in play: no error, fewer candidates', () => {
    const root = tempDir('sources-plain-');
    write(root, 'README.md', '# Hi\n\nText.');
    const out = collectLiveSources({ root, kinds: ['code', 'git', 'docs'] });
    assert.deepEqual(out.map((c) => c.key), ['docs:README.md#hi']);
  });

  test('unsaved editor text, editor outlines and diagnostics come in through the same collector', () => {
    const root = workspace();
    const out = collectLiveSources({
      root,
      kinds: ['code', 'diagnostics'],
      paths: ['src/other.ts'],
      open: ['README.md'],
      textOf: (rel) => (rel === 'src/other.ts' ? 'export const edited = 2;' : undefined),
      outlines: new Map([['src/other.ts', 'export const edited']]),
      diagnostics: [{ path: 'src/other.ts', line: 1, column: 14, severity: 'error', message: 'Type error' }],
    });
    const code = out.find((c) => c.key === 'code:src/other.ts')!;
    assert.equal(code.text, 'export const edited = 2;');
    assert.equal(code.outline, 'export const edited');
    assert.equal(out.find((c) => c.key === 'code:README.md')!.prior, 0.65);
    assert.match(out.find((c) => c.key === 'diagnostics:src/other.ts')!.text, /error at 1:14: Type error\n {2}`export const edited = 2;`/);
  });

  test('--sources parsing', () => {
    assert.deepEqual(parseSourceKinds('code, docs,git'), ['code', 'docs', 'git']);
    assert.deepEqual(parseSourceKinds('all'), ['code', 'diagnostics', 'logs', 'docs', 'deployment', 'git']);
    assert.throws(() => parseSourceKinds('code,nope'), /Unknown or unavailable source "nope"/);
    assert.throws(() => parseSourceKinds(' , '), /at least one source/);
  });

  test('the walk skips dependency folders and does not follow symlinks out of the workspace', () => {
    const root = workspace();
    const outside = tempDir('outside-');
    write(outside, 'secret.md', '# Secret');
    fs.symlinkSync(outside, path.join(root, 'docs', 'linked'));
    const files = walkWorkspace(root);
    assert.ok(!files.some((f) => f.startsWith('node_modules/')));
    assert.ok(!files.some((f) => f.includes('secret.md')));
  });
});

describe('extension settings for live sources', () => {
  test('off by default; valid per-source overrides kept, bad ones fall back; conversation only in chat', () => {
    const none = readConfig(() => undefined).sources;
    assert.equal(none.enabled, false);
    assert.deepEqual(none.kinds, ['code', 'diagnostics', 'logs', 'docs', 'deployment', 'git']);
    assert.equal(none.profile, 'auto');
    const raw: Record<string, unknown> = {
      'sources.enabled': true,
      'sources.profile': 'infrastructure',
      'sources.docs': { enabled: false },
      'sources.code': { threshold: 7, maxTokens: 'lots' },
    };
    const set = readConfig((name) => raw[name]).sources;
    assert.equal(set.enabled, true);
    assert.equal(set.profile, 'infrastructure');
    assert.deepEqual(set.kinds, ['code', 'diagnostics', 'logs', 'deployment', 'git']);
    assert.deepEqual(set.settings, { docs: { enabled: false }, code: { threshold: 1 } });
    assert.equal(readConfig((name) => (name === 'sources.profile' ? 'chaos' : undefined)).sources.profile, 'auto');
  });

  test('package.json contributes every sources setting the extension reads', () => {
    const props = contributedSettings<{ default?: unknown }>();
    for (const key of ['enabled', 'profile', 'profileRules', 'logFiles', 'code', 'diagnostics', 'logs', 'docs', 'deployment', 'git', 'conversation']) assert.ok(props[`contextLedger.sources.${key}`], key);
    assert.deepEqual(props['contextLedger.sources.diagnostics']!.default, { enabled: true, threshold: 0.7, maxTokens: 1500 });
    for (const kind of SOURCE_KINDS) {
      assert.deepEqual(props[`contextLedger.sources.${kind}`]!.default, { ...DEFAULT_SOURCE_SETTINGS[kind] }, `the ${kind} default in package.json is the core's`);
    }
  });

  test('profile rules from settings decide the detected profile; rules the assembler would refuse fall back to the defaults', () => {
    const rules = { infrastructure: { labels: ['platform'], keywords: ['terraform', 'Grafana-Dashboard'] } };
    const set = readConfig((name) => ({ 'sources.enabled': true, 'sources.profileRules': rules })[name]).sources;
    assert.deepEqual(set.profileRules, rules);
    const task = { title: 'Tidy the Grafana dashboard', description: '', labels: [] };
    assert.equal(detectProfile(task, resolveProfileRules(set.profileRules)).profile, 'infrastructure');
    assert.notEqual(detectProfile({ ...task, title: 'Tidy the dashboard' }, resolveProfileRules(set.profileRules)).profile, 'infrastructure');
    assert.equal(detectProfile({ title: 'x', description: '', labels: ['Platform'] }, resolveProfileRules(set.profileRules)).profile, 'infrastructure');
    for (const bad of [{ chaos: { labels: ['x'] } }, { bugfix: { labels: 'bug' } }, ['bugfix'], 'bugfix']) {
      assert.equal(readConfig((name) => (name === 'sources.profileRules' ? bad : undefined)).sources.profileRules, undefined, JSON.stringify(bad));
    }
    assert.equal(readConfig(() => undefined).sources.profileRules, undefined);
  });
});
