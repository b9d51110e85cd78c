import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/model';
import type { LedgerStore } from '../core/store';
import { defaultDatabasePath } from '../node/files';
import { LedgerFile } from '../node/ledgerFile';
import { ensureLedgerGitignore, isWorkspaceLedger, mirrorFolderOf } from '../node/ledgerFolder';
import { mirrorHasChanges, mirrorHasFiles } from '../node/mirrorState';
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
  return LedgerFile.open(file, { create, createFolder: create && mayCreateFolder(file, isDefault) });
}

/**
 * Opens a workspace ledger as its team shares it: what the Markdown mirror got from git
 * since the last command (a pull, a checkout, a teammate's edit) is imported first, and a
 * clone with a mirror and no database builds its ledger from the mirror. Cheap when
 * nothing changed: the mirror's files are stat-ed, not read (src/node/mirrorSync.ts).
 */
/** The default place, or a `.context-ledger` folder named explicitly: the ledger's own folder, made when missing. */
function mayCreateFolder(file: string, isDefault: boolean): boolean {
  return isDefault || path.basename(path.dirname(file)) === '.context-ledger';
}

async function openShared(context: CommandContext, create: boolean): Promise<LedgerFile> {
  const { file, isDefault } = databasePath(context);
  if (!isWorkspaceLedger(file)) return openLedger(context, create);
  const fresh = !fs.existsSync(file) && mirrorHasFiles(file);
  if (fresh) context.err(`context-ledger: building the ledger from the Markdown mirror in ${path.relative(context.cwd, mirrorFolderOf(file)) || '.'}…`);
  const creating = (create || fresh) && !fs.existsSync(file);
  const ledger = await LedgerFile.open(file, { create: create || fresh, createFolder: (create || fresh) && mayCreateFolder(file, isDefault) });
  // A new ledger's folder says at once what git should keep of it (the mirror) and not (the database).
  if (creating) ensureLedgerGitignore(path.dirname(file));
  try {
    if (fresh || mirrorHasChanges(file)) await followMirror(context, ledger);
  } catch (error) {
    ledger.close();
    throw error;
  }
  return ledger;
}

/** Syncs the mirror both ways for a command; what it finds is said on stderr, and never fails the command. */
async function followMirror(context: CommandContext, ledger: LedgerFile): Promise<void> {
  const { syncMirror } = await import('../node/mirrorSync.js');
  try {
    const report = await syncMirror({ dbFile: ledger.file, auto: true, write: (fn) => ledger.write(fn) });
    const pulled = report.added.length + report.updated.length + report.archived.length;
    if (pulled > 0) context.err(`context-ledger: from the Markdown mirror: ${report.added.length} added, ${report.updated.length} updated, ${report.archived.length} archived.`);
    for (const c of report.conflicts) context.err(`context-ledger: CONFLICT ${c.path}: ${c.note}`);
    for (const p of report.problems.slice(0, 10)) context.err(`context-ledger: mirror file ${p.path} skipped: ${p.message}`);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    context.err(`context-ledger: the Markdown mirror was not synced: ${error.message}`);
  }
}

/** Opens the ledger, runs a write under its lock, persists, and closes; the chains it changed are mirrored at once. */
export async function withWrite<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>, create = true, changesArtifacts = true): Promise<T> {
  const ledger = await openShared(context, create);
  try {
    return changesArtifacts ? await writeMirrored(ledger, fn, (text) => context.err(`context-ledger: ${text}`)) : await ledger.write(fn);
  } finally {
    ledger.close();
  }
}

/**
 * A write whose changed chains get their mirror files at once, so a commit after it carries
 * them (a workspace ledger's; only theirs: an `add` renders one file however large the
 * ledger). A mirror no sync has recorded yet is synced whole. What goes wrong with the
 * mirror is said, and never fails the write.
 */
export async function writeMirrored<T>(ledger: LedgerFile, fn: (store: LedgerStore) => T | Promise<T>, say: (text: string) => void): Promise<T> {
  let chains: string[] = [];
  const result = await ledger.write(async (store) => {
    // What the lock's refresh replayed (another process's writes) is that process's to mirror.
    store.takeChangedChains();
    const value = await fn(store);
    chains = store.takeChangedChains();
    return value;
  });
  if (chains.length === 0 || !isWorkspaceLedger(ledger.file)) return result;
  const { mirrorChains, syncMirror } = await import('../node/mirrorSync.js');
  try {
    const report = await mirrorChains({ dbFile: ledger.file, chainIds: chains, write: (f) => ledger.write(f) });
    if (report.needsSync) await syncMirror({ dbFile: ledger.file, auto: true, write: (f) => ledger.write(f) });
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    say(`the Markdown mirror was not written: ${error.message}`);
  }
  return result;
}

export async function withRead<T>(context: CommandContext, fn: (store: LedgerStore) => T | Promise<T>): Promise<T> {
  const ledger = await openShared(context, false);
  try {
    return await fn(ledger.store);
  } finally {
    ledger.close();
  }
}

/** A ledger kept open between reads by a long-lived process (the agent hooks' server, src/cli/hookServer.ts). */
export interface KeptLedger {
  readonly file: string;
  /** Brings the ledger up to date as every command's open does (another process's write, the Markdown mirror), then reads. */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T>;
  close(): void;
}

export async function openKeptLedger(context: CommandContext): Promise<KeptLedger> {
  const ledger = await openShared(context, false);
  return {
    file: ledger.file,
    async read(fn) {
      ledger.refresh();
      if (isWorkspaceLedger(ledger.file) && mirrorHasChanges(ledger.file)) await followMirror(context, ledger);
      return fn(ledger.store);
    },
    close: () => ledger.close(),
  };
}
