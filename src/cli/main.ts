import { UserError } from '../core/model';
import { helpText, parseCommandArgs } from './args';
import { BASE_COMMANDS, type Command, type CommandContext } from './commands';
import { BUILD_COMMANDS } from './buildCommands';
import { AGENT_COMMANDS } from './agentCommands';
import { INTEROP_COMMANDS } from './interopCommands';

const COMMANDS: readonly Command[] = [...BASE_COMMANDS, ...BUILD_COMMANDS, ...AGENT_COMMANDS, ...INTEROP_COMMANDS];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'context-ledger: the project knowledge an AI coding agent needs, within a token budget.',
    '',
    'Usage: context-ledger <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --db <file> (default: .context-ledger/ledger.db in the workspace) and --help.',
    '',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code; user errors print a message, never a stack. */
export async function runCli(argv: string[], io: Pick<CommandContext, 'out' | 'err' | 'cwd'>): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(VERSION);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  try {
    if (!command) throw new UserError(`Unknown command "${name}".`, 'Run `context-ledger --help` for the list.');
    const { options, positionals } = parseCommandArgs(command, rest);
    if (options.help) {
      io.out(helpText(command));
      return 0;
    }
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

declare const CONTEXT_LEDGER_VERSION: string | undefined;
const VERSION = typeof CONTEXT_LEDGER_VERSION === 'string' ? CONTEXT_LEDGER_VERSION : 'dev';

if (require.main === module) {
  runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
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
