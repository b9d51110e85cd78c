import * as path from 'node:path';
import type { LedgerStore } from '../core/store';
import { defaultDatabasePath } from '../node/files';
import { LedgerFile } from '../node/ledgerFile';
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

export function printJson(context: CommandContext, value: unknown): void {
  context.out(JSON.stringify(value, null, 2));
}

export function databasePath(context: CommandContext): { file: string; isDefault: boolean } {
  const given = stringOption(context.options, 'db');
  if (given) return { file: path.resolve(context.cwd, given), isDefault: false };
  return { file: defaultDatabasePath(context.cwd).file, isDefault: true };
}

/** The workspace: the folder holding the ledger found from cwd (or --db), else cwd. */
export function workspaceOf(context: CommandContext): string {
  const db = stringOption(context.options, 'db');
  if (db) {
    const file = path.resolve(context.cwd, db);
    const folder = path.dirname(file);
    return path.basename(folder) === '.context-ledger' ? path.dirname(folder) : context.cwd;
  }
  const found = defaultDatabasePath(context.cwd);
  return found.found ? path.dirname(path.dirname(found.file)) : context.cwd;
}

export async function openLedger(context: CommandContext, create = false): Promise<LedgerFile> {
  const { file, isDefault } = databasePath(context);
  // `--db .context-ledger/ledger.db` names the default place: its folder is made as for the default.
  return LedgerFile.open(file, { create, createFolder: create && (isDefault || path.basename(path.dirname(file)) === '.context-ledger') });
}

/** Opens the ledger, runs a write under its lock, persists, and closes. */
export async function withWrite<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>, create = true): Promise<T> {
  const ledger = await openLedger(context, create);
  try {
    return await ledger.write(fn);
  } finally {
    ledger.close();
  }
}

export async function withRead<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
  const ledger = await openLedger(context, false);
  try {
    return await fn(ledger.store);
  } finally {
    ledger.close();
  }
}
