/** What the hook tests share on the ledger's side: its CLI in a test workspace, and how they read a request. */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { CLI_PATH, type Workspace } from './agents';

/** Runs `context-ledger <args>` in the workspace (its isolated HOME) and returns stdout; fails the test on a non-zero exit. */
export function ledgerCli(ws: Workspace, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [CLI_PATH, ...args], { cwd: ws.dir, encoding: 'utf8', env: { ...process.env, HOME: ws.home, ...env } });
  assert.equal(r.status, 0, `context-ledger ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The hook's own 4 s bound is tested apart; here a loaded test machine must not turn a slow answer into none. */
export const PATIENT_HOOKS: Readonly<Record<string, string>> = { CONTEXT_LEDGER_HOOK_TIMEOUT_MS: '30000' };

/** How many times `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
