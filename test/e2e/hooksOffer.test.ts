/**
 * The agent hooks offer in a real code-server (src/extension/agent/hooksOffer.ts): a workspace
 * with a ledger and Claude Code's and Codex's project folders. The extension asks, per agent,
 * whether to install the ledger's hooks; "Connect" writes Claude Code's own settings with a
 * command that runs the extension's copy of its hook client in its global storage (which outlives
 * an update of the extension) and, run as Claude Code runs it (through a shell, the payload on
 * stdin), answers with the ledger's context; "Don't Ask Again" writes nothing; the command "Connect Agent Hooks…"
 * installs Gemini CLI's on request. Screenshots in test-output/e2e/hooks-offer/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pickQuickInputItem, runCommandForQuickInput, screenshot, startExtensionSession, TIMEOUTS, waitFor, waitForNotification } from './harness';
import type { ExtensionSession, Workbench } from './harness';

let session: ExtensionSession | undefined;
let wb: Workbench | undefined;
let workspace = '';

before(async () => {
  session = await startExtensionSession(
    'hooks-offer',
    { 'contextLedger.autoInject.enabled': false },
    {
      prepare: (seeded) => {
        workspace = seeded.workspace;
        fs.mkdirSync(path.join(workspace, '.claude'), { recursive: true });
        fs.mkdirSync(path.join(workspace, '.codex'), { recursive: true });
      },
    },
  );
  wb = session.wb;
});

after(async () => {
  await session?.close();
});

async function clickToastButton(pattern: RegExp, label: string): Promise<void> {
  const toast = wb!.page.locator('.notifications-toasts .notification-list-item', { hasText: pattern });
  await toast.locator('.monaco-button', { hasText: label }).first().click({ timeout: TIMEOUTS.ui });
}

const readIf = (rel: string): string | undefined => (fs.existsSync(path.join(workspace, rel)) ? fs.readFileSync(path.join(workspace, rel), 'utf8') : undefined);

test('asked for Claude Code, "Connect" installs hooks whose command answers with the ledger’s context; nothing before the yes', async () => {
  const page = wb!.page;
  await waitForNotification(page, /Give Claude Code this project's ledger context/);
  await screenshot(page, 'offer-claude-code');
  assert.equal(readIf('.claude/settings.local.json'), undefined, 'nothing is written before the person says yes');
  await clickToastButton(/Give Claude Code/, 'Connect');
  const settings = await waitFor(() => Promise.resolve(readIf('.claude/settings.local.json')), (text) => text !== undefined, '.claude/settings.local.json', TIMEOUTS.command);
  await waitForNotification(page, /Claude Code now gets the ledger's context/);
  const config = JSON.parse(settings!) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
  const prompt = config.hooks.UserPromptSubmit?.[0]?.hooks[0]?.command ?? '';
  // The copy of the hook client in the extension's global storage, which an update of the extension refreshes instead of removing.
  assert.match(prompt, /^\[ -f '?[^ ]*\/globalStorage\/[^/ ]+\/hook\/hook\.cjs'? \] && .*\/globalStorage\/[^/ ]+\/hook\/hook\.cjs'? hook prompt --agent claude-code \|\| true$/, 'the hook client’s stable copy, by absolute path');
  assert.ok(config.hooks.PreToolUse?.some((g) => g.matcher === 'Write|Edit|MultiEdit'));

  // Run the installed command as Claude Code does: a shell, the payload on stdin.
  const run = spawnSync('/bin/sh', ['-c', prompt], {
    cwd: workspace,
    input: JSON.stringify({ session_id: 'e2e-offer', cwd: workspace, hook_event_name: 'UserPromptSubmit', prompt: 'How do we handle authentication tokens and sessions?' }),
    encoding: 'utf8',
    env: { ...process.env, CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '60000' },
  });
  assert.equal(run.status, 0, run.stderr);
  const answer = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(answer.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
  assert.match(answer.hookSpecificOutput.additionalContext, /^Project knowledge from Context Ledger for this prompt/);
});

test('"Don’t Ask Again" for Codex writes nothing', async () => {
  const page = wb!.page;
  await waitForNotification(page, /Give Codex this project's ledger context/);
  await clickToastButton(/Give Codex/, "Don't Ask Again");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(readIf('.codex/hooks.json'), undefined);
});

test('"Connect Agent Hooks…" installs Gemini CLI’s hooks on request', async () => {
  const page = wb!.page;
  await runCommandForQuickInput(page, 'Context Ledger: Connect Agent Hooks…', 'Context Ledger: Connect Agent Hooks');
  await pickQuickInputItem(page, 'Context Ledger: Connect Agent Hooks', 'Gemini', 'Gemini CLI');
  const settings = await waitFor(() => Promise.resolve(readIf('.gemini/settings.json')), (text) => text !== undefined, '.gemini/settings.json', TIMEOUTS.command);
  assert.match(settings!, /hook\.cjs'? hook prompt --agent gemini-cli/);
  await waitForNotification(page, /Gemini CLI now gets the ledger's context/);
  await screenshot(page, 'connected-gemini');
});
