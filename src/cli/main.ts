import { setFlagsFromString } from 'node:v8';
import { isMainThread, workerData } from 'node:worker_threads';
import { UserError } from '../core/model';
import { helpText, parseCommandArgs } from './args';
import { BASE_COMMANDS, type Command, type CommandContext } from './commands';
import { REVIEW_COMMANDS } from './agentCommands';

interface LazyGroup {
  names: readonly string[];
  load(): Promise<readonly Command[]>;
}

/**
 * Commands whose modules pull in big libraries (the MCP SDK and zod; the YAML and Markdown
 * parsers) or set up costly state (the assembler's grapheme segmenter) are loaded only when
 * one of them runs, so `add` and `list` start fast; the bundle keeps those libraries in
 * files of their own (see esbuild.config.mjs).
 */
const LAZY_GROUPS: readonly LazyGroup[] = [
  { names: ['build', 'explain'], load: async () => (await import('./buildCommands.js')).BUILD_COMMANDS },
  { names: ['mcp'], load: async () => [(await import('./mcp/index.js')).mcpCommand] },
  { names: ['import-folder', 'sync', 'resolve', 'which'], load: async () => (await import('./interopCommands.js')).INTEROP_COMMANDS },
  { names: ['hook', 'hooks'], load: async () => [(await import('./hookCommand.js')).hookCommand, (await import('./hooksCommand.js')).hooksCommand] },
];

const EAGER_COMMANDS: readonly Command[] = [...BASE_COMMANDS, ...REVIEW_COMMANDS];

async function findCommand(name: string): Promise<Command | undefined> {
  const eager = EAGER_COMMANDS.find((c) => c.name === name);
  if (eager) return eager;
  const group = LAZY_GROUPS.find((g) => g.names.includes(name));
  return (await group?.load())?.find((c) => c.name === name);
}

async function overview(): Promise<string> {
  const [build, mcp, interop, hooks] = await Promise.all(LAZY_GROUPS.map((g) => g.load()));
  const commands = [...BASE_COMMANDS, ...build!, ...mcp!, ...REVIEW_COMMANDS, ...interop!, ...hooks!];
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'context-ledger: the project knowledge an AI coding agent needs, within a token budget.',
    '',
    'Usage: context-ledger <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --db <file> (default: .context-ledger/ledger.db in the workspace) and --help.',
    '',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code; user errors print a message, never a stack. */
export async function runCli(argv: string[], io: Pick<CommandContext, 'out' | 'err' | 'cwd'>): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(await overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(VERSION);
    return 0;
  }
  try {
    const command = await findCommand(name);
    if (!command) throw new UserError(`Unknown command "${name}".`, 'Run `context-ledger --help` for the list.');
    const { options, positionals } = parseCommandArgs(command, rest);
    if (options.help) {
      io.out(helpText(command));
      return 0;
    }
    // The long-lived servers (`mcp`, the hooks' `hook --serve`) keep the optimiser.
    if (command.name !== 'mcp' && !(command.name === 'hook' && options.serve === true)) preferQuickStart();
    const code = await command.run({ ...io, options, positionals });
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    if (error instanceof UserError) {
      io.err(`context-ledger: ${error.message}${error.hint ? `\n  ${error.hint}` : ''}`);
      return 1;
    }
    throw error;
  }
}

/**
 * A CLI run lives for well under a second: V8's optimising compiler for sql.js's WebAssembly
 * works in the background and seldom pays back before the process ends, and it took about
 * half the CPU of an `add` on 10,000 artifacts (npm run bench). Only the CLI process sets
 * this, before sql.js compiles; the long-running servers keep the optimiser.
 */
function preferQuickStart(): void {
  if (require.main === module) setFlagsFromString('--liftoff-only');
}

declare const CONTEXT_LEDGER_VERSION: string | undefined;
const VERSION = typeof CONTEXT_LEDGER_VERSION === 'string' ? CONTEXT_LEDGER_VERSION : 'dev';

if (require.main === module && !isMainThread && (workerData as { contextLedgerHook?: unknown } | undefined)?.contextLedgerHook !== undefined) {
  // A hook's worker thread (hookCommand.ts) runs this same file: it does the hook's work, not a command.
  // (The MCP server's ledger worker runs it too, as the `mcp` command: src/cli/mcp/worker.ts.)
  void import('./hookRun.js').then((m) => m.runHookWorker());
} else if (require.main === module) {
  // `context-ledger list | head` closes the pipe early. The command still finishes (a write
  // must reach the disk); it only stops printing, instead of dying on an unhandled EPIPE.
  let stdoutClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
  });
  runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => {
      if (!stdoutClosed) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`context-ledger: unexpected error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
