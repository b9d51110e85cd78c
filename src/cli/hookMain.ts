/**
 * dist/hook.cjs: what installed hooks run. It takes the CLI's own arguments
 * (`hook <event> --agent <agent> [--budget <tokens>] [--now <time>] [--db <file>]`) and answers the way
 * `context-ledger hook` does (hookFront.ts), but it is a small file: when the workspace's warm
 * server answers, which is every hook after the first, the agent waits on a Node process that
 * parses a few kilobytes, not the whole CLI (npm run bench measures both). Everything else it is
 * given (`--last`, `--help`, an argument it does not know) is handed to dist/cli.js beside it.
 * A copy kept apart from its CLI (the VS Code extension's, in its global storage: stableClient.ts)
 * finds the CLI named in the `cli-path` file beside it; when that CLI is gone (the extension was
 * updated and has not started since, or removed), a hook gives the agent its no-op and logs why.
 */
import type * as ChildProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { type HookAgent, type HookEvent, isHookAgent, isHookEvent, noOutput } from '../core/hooks/agents';
import { appendHookLog } from '../node/hooks/hookFiles';
import { CLI_POINTER } from '../node/hooks/stableClient';
import { runHook } from './hookFront';

/** The CLI beside this file, else the one its `cli-path` names; undefined when neither is there. */
function findCli(): string | undefined {
  const beside = path.join(__dirname, 'cli.js');
  if (fs.existsSync(beside)) return beside;
  try {
    const named = fs.readFileSync(path.join(__dirname, CLI_POINTER), 'utf8').trim();
    return path.isAbsolute(named) && fs.existsSync(named) ? named : undefined;
  } catch {
    return undefined;
  }
}

interface FastArgs {
  event: HookEvent;
  agent: HookAgent;
  budget?: string;
  now?: string;
  db?: string;
}

/** The hook run's arguments, or undefined for anything else (the full CLI takes it). */
function fastArgs(argv: string[]): FastArgs | undefined {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { agent: { type: 'string' }, budget: { type: 'string' }, now: { type: 'string' }, db: { type: 'string' } }, allowPositionals: true, strict: true });
    const [command, event] = positionals;
    if (positionals.length !== 2 || command !== 'hook' || event === undefined || !isHookEvent(event) || values.agent === undefined || !isHookAgent(values.agent)) return undefined;
    return { event, agent: values.agent, ...(values.budget !== undefined ? { budget: values.budget } : {}), ...(values.now !== undefined ? { now: values.now } : {}), ...(values.db !== undefined ? { db: values.db } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Writes the answer straight to the file descriptor: making process.stdout's stream costs
 * the waiting agent a few ms. A pipe that cannot take it all now (EAGAIN) gets the rest
 * through the stream.
 */
function writeOut(text: string): void {
  const bytes = Buffer.from(text.endsWith('\n') ? text : `${text}\n`);
  let written = 0;
  try {
    while (written < bytes.length) written += fs.writeSync(1, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return; // the agent stopped reading: nothing to tell it
    process.stdout.on('error', () => undefined);
    process.stdout.write(bytes.subarray(written));
  }
}

const argv = process.argv.slice(2);
const fast = fastArgs(argv);
const cli = findCli();
if (cli === undefined) {
  // The CLI this copy ran went away with the extension's old folder: the agent goes on without the ledger, and the log says why.
  const why = `the Context Ledger CLI this hook runs is gone (${path.join(__dirname, CLI_POINTER)} names none that exists): open VS Code to refresh it, or run \`context-ledger hooks uninstall <agent>\``;
  if (fast === undefined) {
    process.stderr.write(`context-ledger: ${why}\n`);
    process.exitCode = 1;
  } else {
    const none = noOutput(fast.agent);
    if (none !== '') writeOut(none);
    appendHookLog(process.cwd(), { at: new Date().toISOString(), agent: fast.agent, event: fast.event, outcome: 'error', ms: 0, detail: why });
  }
} else if (fast === undefined) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const result = (require('node:child_process') as typeof ChildProcess).spawnSync(process.execPath, [cli, ...argv], { stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
} else {
  void runHook({
    ...fast,
    cwd: process.cwd(),
    script: cli,
    out: writeOut,
    inline: () => Promise.reject(new Error('the hook client always has the CLI beside it')),
  }).then((code) => {
    process.exitCode = code;
  });
}
