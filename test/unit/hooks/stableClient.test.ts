/**
 * The hooks the VS Code extension installs survive an update of the extension and its removal:
 * they run the copy of the hook client the extension keeps in its global storage, which names
 * the CLI of the extension's current version. Run here as an agent runs them: the installed
 * command line, through a shell, with a real payload.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { changeAgentHooks, shellQuote } from '../../../src/node/hooks/agentHooks';
import { CLI_POINTER, refreshStableClient } from '../../../src/node/hooks/stableClient';
import { CLI, ROOT, tempDir } from '../helpers';

/** An installed extension's folder: the built dist/ (without source maps and the extension's own bundle). */
function extensionFolder(parent: string, version: string): string {
  const dist = path.join(parent, `context-ledger-${version}`, 'dist');
  fs.cpSync(path.join(ROOT, 'dist'), dist, { recursive: true, filter: (src) => !src.endsWith('.map') && path.basename(src) !== 'extension.js' && path.basename(src) !== 'webview' });
  return dist;
}

function installedCommand(workspace: string, eventName: string): string {
  const settings = JSON.parse(fs.readFileSync(path.join(workspace, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
  return settings.hooks[eventName]![0]!.hooks[0]!.command;
}

/** The command as Claude Code runs it: through a shell, the payload on stdin. */
function runCommand(command: string, cwd: string, payload: object): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', command], { cwd, input: JSON.stringify(payload), encoding: 'utf8', env: { ...process.env, CONTEXT_LEDGER_HOOK_SERVER: 'off', CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('an extension update or removal never breaks the hooks it installed: the copy in its storage follows the new version, and gives the agent its no-op meanwhile', () => {
  const root = tempDir('ledger-stable-client-');
  const workspace = path.join(root, 'projekt ü');
  fs.mkdirSync(workspace);
  for (const args of [['init'], ['add', '--type', 'decision', '--title', 'Refunds go back to the card', '--body', 'Marker REFUND-STABLE-1 — zurück auf die Karte.']]) {
    assert.equal(spawnSync(process.execPath, [CLI, ...args], { cwd: workspace, encoding: 'utf8' }).status, 0);
  }
  const storage = path.join(root, 'globalStorage', 'publisher.context-ledger');
  const v1 = extensionFolder(path.join(root, 'extensions'), '1.0.0');
  const client = refreshStableClient(storage, v1);
  assert.ok(!client.startsWith(path.dirname(v1)), 'the installed command does not point into the extension’s folder');
  changeAgentHooks(workspace, { agent: 'claude-code', install: true, shared: false, runner: `${shellQuote(process.execPath)} ${shellQuote(client)}`, guard: client });
  const command = installedCommand(workspace, 'UserPromptSubmit');
  const prompt = { session_id: 's1', cwd: workspace, prompt: 'Refund a cancelled booking to the card' };
  const answered = runCommand(command, workspace, prompt);
  assert.equal(answered.code, 0, answered.stderr);
  assert.match(answered.stdout, /REFUND-STABLE-1/);

  // The update: a new versioned folder, the old one removed; the hooks run before the new version starts.
  const v2 = extensionFolder(path.join(root, 'extensions'), '1.1.0');
  fs.rmSync(path.dirname(v1), { recursive: true });
  const between = runCommand(command, workspace, { ...prompt, session_id: 's2' });
  assert.deepEqual([between.code, between.stdout], [0, ''], 'the agent gets its no-op, not an error');
  const log = spawnSync(process.execPath, [CLI, 'hook', '--last', '1', '--format', 'json'], { cwd: workspace, encoding: 'utf8' });
  assert.match(log.stdout, new RegExp(`CLI this hook runs is gone \\(.*${CLI_POINTER}`));

  // The new version starts: the same installed command answers again, with nothing reinstalled.
  refreshStableClient(storage, v2);
  assert.equal(installedCommand(workspace, 'UserPromptSubmit'), command);
  const after = runCommand(command, workspace, { ...prompt, session_id: 's3' });
  assert.equal(after.code, 0, after.stderr);
  assert.match(after.stdout, /REFUND-STABLE-1/);

  // The extension removed with its storage: the command checks for the client and gives the agent its no-op.
  changeAgentHooks(workspace, { agent: 'gemini-cli', install: true, shared: false, runner: `${shellQuote(process.execPath)} ${shellQuote(client)}`, guard: client });
  const gemini = (JSON.parse(fs.readFileSync(path.join(workspace, '.gemini', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> }).hooks.BeforeAgent![0]!.hooks[0]!.command;
  fs.rmSync(path.join(root, 'globalStorage'), { recursive: true });
  const removed = runCommand(command, workspace, { ...prompt, session_id: 's4' });
  assert.deepEqual([removed.code, removed.stdout, removed.stderr], [0, '', '']);
  const geminiRemoved = runCommand(gemini, workspace, { session_id: 's5', cwd: workspace, prompt: 'Refund a cancelled booking' });
  assert.deepEqual([geminiRemoved.code, geminiRemoved.stdout, geminiRemoved.stderr], [0, '{}', ''], 'Gemini CLI reads stdout as JSON: its no-op');
});
