/**
 * What agent hooks keep on disk, all under `.context-ledger/hooks/` (git-ignored: the
 * folder's own `.gitignore` keeps everything but the mirror local): one small JSON file per
 * agent session (what it was given), and a log of every hook run a person can read with
 * `context-ledger hook --last`. A workspace without a ledger folder gets no files from a
 * hook: its log goes to the user's state folder instead.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as Crypto from 'node:crypto';
import { type HookSession, parseSession } from '../../core/hooks/session';
import { replaceFileAtomically } from '../atomicWrite';
import { LEDGER_FOLDER, ensureLedgerGitignore } from '../ledgerFolder';

export const HOOKS_FOLDER = 'hooks';
const LOG_FILE = 'log.jsonl';
/** The log keeps its newest half when it grows past this. */
const LOG_MAX_BYTES = 256 * 1024;
/** Sessions untouched this long are forgotten at the next session start. */
const SESSION_MAX_AGE_MS = 14 * 24 * 3600 * 1000;

export interface HookLogEntry {
  at: string;
  agent: string;
  event: string;
  /** What happened: `added` (context given), `nothing` (nothing new to add), or why nothing was given. */
  outcome: 'added' | 'nothing' | 'no-ledger' | 'bad-payload' | 'timeout' | 'error';
  ms: number;
  /** CPU time of the answer (user + system), where it was measured alone (the hook server answers one hook at a time). */
  cpuMs?: number;
  session?: string;
  workspace?: string;
  tokens?: number;
  chars?: number;
  items?: string[];
  detail?: string;
  /** Answered by the workspace's warm hook server (src/cli/hookServer.ts). */
  server?: boolean;
  /** Of `ms`, what the hook server spent first reading in a change to the files the ledger follows (a pull, another process's write). */
  refreshMs?: number;
}

/** The hooks folder of the workspace's ledger folder, when there is a ledger folder. */
export function hooksFolder(workspace: string): string | undefined {
  const ledger = path.join(workspace, LEDGER_FOLDER);
  try {
    if (!fs.lstatSync(ledger).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const hooks = path.join(ledger, HOOKS_FOLDER);
  // A link there (a clone can ship one pointing anywhere) is not followed: the log goes to the user's own file.
  return isLink(hooks) ? undefined : hooks;
}

function isLink(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** Where hook runs are logged when no workspace ledger folder is found: the user's own state folder. */
export function userLogFile(): string {
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'context-ledger', 'hooks.log.jsonl');
}

export function logFileOf(workspace: string | undefined): string {
  const folder = workspace === undefined ? undefined : hooksFolder(workspace);
  return folder === undefined ? userLogFile() : path.join(folder, LOG_FILE);
}

/**
 * Makes the hooks folder, and makes sure git leaves it out: a ledger folder without its
 * `.gitignore` gets one (an allow-list of the mirror); one a person wrote without a `*` or
 * a `hooks/` line gets `hooks/` added.
 */
function ensureFolder(folder: string): void {
  const ledger = path.dirname(folder);
  if (!fs.existsSync(folder)) {
    ensureLedgerGitignore(ledger);
    const ignore = path.join(ledger, '.gitignore');
    try {
      const lines = fs.readFileSync(ignore, 'utf8').split(/\r?\n/).map((l) => l.trim());
      const own = fs.lstatSync(ignore);
      // A link there (a clone can ship one) is another file: never appended to.
      const appendable = !own.isSymbolicLink() && own.nlink === 1;
      if (appendable && !lines.includes('*') && !lines.some((l) => /^\/?hooks\/?(\*\*)?$/.test(l))) fs.appendFileSync(ignore, `${lines.at(-1) === '' ? '' : '\n'}${HOOKS_FOLDER}/\n`);
    } catch {
      // No .gitignore could be written (a read-only folder): nothing will be written here either.
    }
  }
  fs.mkdirSync(folder, { recursive: true });
}

/** Appends one entry; never throws (a hook must not fail for its log). */
export function appendHookLog(workspace: string | undefined, entry: HookLogEntry): void {
  try {
    const file = logFileOf(workspace);
    if (file === userLogFile()) fs.mkdirSync(path.dirname(file), { recursive: true });
    else ensureFolder(path.dirname(file));
    const line = `${JSON.stringify(entry)}\n`;
    const existing = fs.lstatSync(file, { throwIfNoEntry: false });
    if (existing?.isSymbolicLink()) return;
    // A hard link: appending would write into the file it shares. The log starts anew; the other name keeps its text.
    if (existing !== undefined && existing.nlink > 1) return replaceFileAtomically(file, line);
    fs.appendFileSync(file, line);
    if (fs.statSync(file).size > LOG_MAX_BYTES) {
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      replaceFileAtomically(file, `${lines.slice(Math.floor(lines.length / 2)).join('\n')}\n`);
    }
  } catch {
    // The log is a help, never a reason to fail.
  }
}

/** The newest `count` entries of the log (workspace's, else the user's), oldest first. */
export function readHookLog(workspace: string | undefined, count: number): { file: string; entries: HookLogEntry[] } {
  const file = logFileOf(workspace);
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { file, entries: [] };
  }
  const entries: HookLogEntry[] = [];
  for (const line of text.split('\n').filter(Boolean).slice(-count)) {
    try {
      entries.push(JSON.parse(line) as HookLogEntry);
    } catch {
      // A torn line (two hooks appending at once): skipped.
    }
  }
  return { file, entries };
}

/** The file of one agent session: its id hashed, so no id can name a path. */
function sessionFile(folder: string, agent: string, sessionId: string): string {
  // Required here, not at the top: the hook client (dist/hook.cjs) logs through this file and never needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hash = (require('node:crypto') as typeof Crypto).createHash('sha256').update(`${agent}\u0000${sessionId}`).digest('hex').slice(0, 32);
  return path.join(folder, 'sessions', `${agent}-${hash}.json`);
}

export function readHookSession(workspace: string, agent: string, sessionId: string): HookSession | undefined {
  const folder = hooksFolder(workspace);
  if (folder === undefined) return undefined;
  try {
    if (isLink(path.join(folder, 'sessions'))) return undefined;
    return parseSession(JSON.parse(fs.readFileSync(sessionFile(folder, agent, sessionId), 'utf8')));
  } catch {
    return undefined;
  }
}

export function writeHookSession(workspace: string, agent: string, sessionId: string, session: HookSession): void {
  const folder = hooksFolder(workspace);
  if (folder === undefined) return;
  const file = sessionFile(folder, agent, sessionId);
  ensureFolder(folder);
  if (isLink(path.dirname(file))) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  replaceFileAtomically(file, JSON.stringify(session));
}

/** Forgets sessions nobody touched for two weeks. */
export function pruneHookSessions(workspace: string, now: Date): void {
  const folder = hooksFolder(workspace);
  if (folder === undefined) return;
  const dir = path.join(folder, 'sessions');
  // Pruning through a link would delete files that are not ours.
  if (isLink(dir)) return;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      if (now.getTime() - fs.statSync(file).mtimeMs > SESSION_MAX_AGE_MS) fs.unlinkSync(file);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}
