import type { Artifact, ArtifactInput } from '../core/model';
import type { LedgerStore } from '../core/store';
import { LedgerSession, ledgerLocation } from '../node/session';
import { type CommandSpec, type ParsedOptions, stringOption } from './args';

/*
 * What every command is given, and the ways it reads its options and opens the ledger:
 * shared by the command files (commands.ts, interopCommands.ts, ...), so that none of
 * them imports another for it.
 */

export interface CommandContext {
  options: ParsedOptions;
  positionals: string[];
  cwd: string;
  out(text: string): void;
  err(text: string): void;
}

export interface Command extends CommandSpec {
  run(context: CommandContext): Promise<number | void>;
}

export function isJson(context: CommandContext): boolean {
  return context.options.format === 'json';
}

/** `extraOrder` only keeps a file's key order for a byte-identical re-write: not the user's data. */
function withoutBookkeeping(key: string, value: unknown): unknown {
  return key === 'extraOrder' ? undefined : value;
}

export function printJson(context: CommandContext, value: unknown): void {
  context.out(JSON.stringify(value, withoutBookkeeping, 2));
}

export function databasePath(context: CommandContext): { file: string; isDefault: boolean } {
  const { file, isDefault } = ledgerLocation(context.cwd, stringOption(context.options, 'db'));
  return { file, isDefault };
}

/** The workspace: the folder holding the ledger found from cwd (or --db), else cwd. */
export function workspaceOf(context: CommandContext): string {
  return ledgerLocation(context.cwd, stringOption(context.options, 'db')).workspace;
}

/**
 * The command's ledger session (src/node/session.ts): it follows the files the team shares
 * (the artifact files git brought, the imported knowledge files) before every read and
 * write, builds a fresh clone's ledger from its artifact files, and says what it found on
 * stderr. `create`: make a ledger when there is none.
 */
export function openSession(context: CommandContext, create = false, follow: Follow = {}): Promise<LedgerSession> {
  return LedgerSession.open({
    cwd: context.cwd,
    dbFile: stringOption(context.options, 'db'),
    create,
    say: (text) => context.err(`context-ledger: ${text}`),
    ...(follow.knowledge === false ? { followKnowledge: () => false } : {}),
  });
}

/**
 * `knowledge: false`: a command that is itself the import of the knowledge files
 * (`import-folder`) does not follow them first, so its report says what it changed.
 */
export interface Follow {
  knowledge?: boolean;
}

/** Opens the session, runs a write through its one write path, and closes. */
export async function withWrite<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>, create = true, follow: Follow = {}): Promise<T> {
  const session = await openSession(context, create, follow);
  try {
    return await session.write(fn);
  } finally {
    session.close();
  }
}

/** `add`: a new artifact as its file alone when it can be (LedgerSession.addAsFile), else through the write path. */
export async function addArtifact(context: CommandContext, input: ArtifactInput): Promise<Artifact> {
  const asFile = await LedgerSession.addAsFile({ cwd: context.cwd, dbFile: stringOption(context.options, 'db') }, input);
  return asFile ?? (await withWrite(context, (store) => store.createArtifact(input)));
}

export async function withRead<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>, follow: Follow = {}): Promise<T> {
  const session = await openSession(context, false, follow);
  try {
    return await session.read(fn);
  } finally {
    session.close();
  }
}
