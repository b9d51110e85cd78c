/**
 * Runs inside the desktop VS Code that runTest.ts starts (the extension host loads this
 * module and calls run()). Plain node:assert, one check after the other; a failure
 * rejects run() and fails `npm run test:desktop`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../../src/extension/services';

interface Manifest {
  contributes: { commands: { command: string }[] };
}

async function check(name: string, fn: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  await fn();
  console.log(`ok - ${name} (${Date.now() - t0} ms)`);
}

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension<Services>('context-ledger.context-ledger');
  assert.ok(extension, 'the extension is installed');
  const services = await extension.activate();
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the sample workspace is open');

  await check('every contributed command is registered', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(extension.extensionPath, 'package.json'), 'utf8')) as Manifest;
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const { command } of manifest.contributes.commands) assert.ok(registered.has(command), `${command} is registered`);
  });

  await check('the preview is a read-only document with the seeded rules', async () => {
    await vscode.commands.executeCommand('contextLedger.previewContext');
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc, 'an editor opened');
    assert.notEqual(doc.uri.scheme, 'untitled', 'not an untitled document that asks to be saved');
    assert.match(doc.getText(), /Never log card numbers or CVCs/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  await check('an active task and its stage show in the task view', async () => {
    await services.registry.get(folder).write((store) => {
      const task = store.createTask({ title: 'Desktop test task', labels: ['bug'] });
      store.setActiveTask(task.id);
      store.setTaskStage(task.id, 'review');
    }, 'tasks');
    const nodes = await services.taskTree.getChildren();
    const labels = nodes.map((n) => services.taskTree.getTreeItem(n).label);
    assert.ok(labels.includes('Desktop test task'), JSON.stringify(labels));
    assert.ok(labels.includes('Stage: review'), JSON.stringify(labels));
    await vscode.commands.executeCommand('contextLedger.clearActiveTask');
    assert.deepEqual(await services.taskTree.getChildren(), []);
  });
}
