/**
 * Smoke test of the e2e harness itself: builds a throwaway extension on the fly, runs it
 * in a real code-server + Chromium, and checks the palette, clipboard, status bar, a tree
 * view and Quick Open. Screenshots land in test-output/e2e/smoke/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  OUTPUT_DIR,
  REPO_ROOT,
  activeEditorText,
  activeEditorTitle,
  installVsix,
  openFile,
  openView,
  openWorkbench,
  runCommand,
  screenshot,
  startCodeServer,
  waitForClipboard,
  waitForNotification,
  waitForStatusBarText,
  waitForTreeItems,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const PUBLISHER = 'e2e-smoke';
const NAME = 'smoke';
const VERSION = '0.0.1';
const GREETING = `hello from smoke ${process.pid}`;

const EXTENSION_JS = `
const vscode = require('vscode');
exports.activate = function (context) {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 1000);
  item.text = 'Smoke: ready';
  item.show();
  context.subscriptions.push(item);
  context.subscriptions.push(vscode.commands.registerCommand('smoke.hello', async () => {
    await vscode.env.clipboard.writeText(${JSON.stringify(GREETING)});
    item.text = '$(check) Smoke said hello';
    void vscode.window.showInformationMessage('Smoke: the clipboard has the greeting');
  }));
  const children = { alpha: ['alpha-1', 'alpha-2'] };
  context.subscriptions.push(vscode.window.registerTreeDataProvider('smokeTree', {
    getChildren: (el) => (el ? children[el] || [] : ['alpha', 'beta']),
    getTreeItem: (el) => {
      const ti = new vscode.TreeItem(el, children[el] ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      ti.description = 'desc-' + el;
      return ti;
    },
  }));
};
exports.deactivate = function () {};
`;

function writeExtension(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const manifest = {
    name: NAME,
    displayName: 'Smoke',
    publisher: PUBLISHER,
    version: VERSION,
    license: 'MIT',
    engines: { vscode: '^1.100.0' },
    main: './extension.js',
    activationEvents: ['onStartupFinished'],
    contributes: {
      commands: [{ command: 'smoke.hello', title: 'Hello', category: 'Smoke' }],
      views: { explorer: [{ id: 'smokeTree', name: 'Smoke Tree' }] },
    },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(dir, 'extension.js'), EXTENSION_JS);
  fs.writeFileSync(path.join(dir, 'README.md'), '# Smoke\n\nThrowaway extension for the e2e harness smoke test.\n');
  fs.writeFileSync(path.join(dir, 'LICENSE'), 'MIT\n');
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-smoke-'));
const workspace = path.join(tmp, 'workspace');
const extensionsDir = path.join(tmp, 'extensions');
const userDataDir = path.join(tmp, 'user-data');
const shots = path.join(OUTPUT_DIR, 'smoke');
let server: CodeServer | undefined;
let wb: Workbench | undefined;

before(async () => {
  fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Smoke workspace\n');
  fs.writeFileSync(path.join(workspace, 'docs', 'notes.md'), 'first line of notes\nsecond line\n');
  // An unpacked extension folder named publisher.name-version in --extensions-dir is picked up as installed.
  writeExtension(path.join(extensionsDir, `${PUBLISHER}.${NAME}-${VERSION}`));
  const t0 = Date.now();
  server = await startCodeServer({ workspace, extensionsDir, userDataDir, logFile: path.join(shots, 'code-server.log') });
  const t1 = Date.now();
  wb = await openWorkbench(server.url, workspace, shots);
  console.log(`code-server answered in ${t1 - t0} ms, workbench ready ${Date.now() - t1} ms later`);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('workbench loads with the extension active', async () => {
  const page = wb!.page;
  const t0 = Date.now();
  await waitForStatusBarText(page, /^Smoke: ready$/);
  console.log(`extension (onStartupFinished) active ${Date.now() - t0} ms after the workbench was ready`);
  await screenshot(page, '01-workbench');
});

test('a command from the palette writes the clipboard and updates the status bar', async () => {
  const page = wb!.page;
  await runCommand(page, 'Smoke: Hello');
  assert.equal(await waitForClipboard(page, GREETING), GREETING);
  assert.match(await waitForStatusBarText(page, /Smoke said hello/), /^Smoke said hello$/);
  assert.equal(await waitForNotification(page, /clipboard has the greeting/), 'Smoke: the clipboard has the greeting');
  await screenshot(page, '02-after-command');
});

test('a contributed tree view shows its items', async () => {
  const page = wb!.page;
  await openView(page, 'Smoke Tree');
  const items = await waitForTreeItems(page, 'Smoke Tree', (all) => all.some((i) => i.label === 'alpha-2'));
  assert.deepEqual(
    items.map((i) => [i.label, i.description, i.depth]),
    [
      ['alpha', 'desc-alpha', 1],
      ['alpha-1', 'desc-alpha-1', 2],
      ['alpha-2', 'desc-alpha-2', 2],
      ['beta', 'desc-beta', 1],
    ],
  );
  await screenshot(page, '03-tree');
});

test('Quick Open opens a workspace file', async () => {
  const page = wb!.page;
  await openFile(page, 'docs/notes.md');
  assert.equal(await activeEditorTitle(page), 'notes.md');
  assert.match(await activeEditorText(page), /first line of notes/);
  await screenshot(page, '04-file');
  await openFile(page, 'README.md');
  assert.equal(await activeEditorTitle(page), 'README.md');
  assert.match(await activeEditorText(page), /# Smoke workspace/);
});

test('a packaged .vsix installs with --install-extension', async () => {
  const src = path.join(tmp, 'vsix-src');
  writeExtension(src);
  const vsix = path.join(tmp, 'smoke.vsix');
  const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--out', vsix, '--allow-missing-repository', '--skip-license'], {
    cwd: src,
    stdio: 'pipe',
    env: { ...process.env, CI: 'true' },
  });
  const otherExtensions = path.join(tmp, 'extensions-vsix');
  const out = await installVsix(vsix, otherExtensions, path.join(tmp, 'user-data-vsix'));
  assert.match(out, /successfully installed/i);
  assert.ok(
    fs.readdirSync(otherExtensions).includes(`${PUBLISHER}.${NAME}-${VERSION}`),
    `expected ${PUBLISHER}.${NAME}-${VERSION} in ${otherExtensions}: ${fs.readdirSync(otherExtensions).join(', ')}`,
  );
});
