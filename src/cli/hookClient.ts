/**
 * The light side of the agent hooks' warm server (hookServer.ts), loaded by every hook
 * process: where a workspace's server listens, how to ask it, how to start it. Kept apart from
 * the server and the build so that a hook the server answers loads no sql.js, no assembler.
 */
import type * as ChildProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HookAgent, HookEvent, HookPayload } from '../core/hooks/agents';
import type { HookLogEntry } from '../node/hooks/hookFiles';
import { defaultDatabasePath } from '../node/files';
import { LEDGER_FOLDER } from '../node/ledgerFolder';

export interface HookJob {
  agent: HookAgent;
  event: HookEvent;
  payload: HookPayload;
  /** The hook process's own folder: the agent's `cwd` in the payload wins when it is a folder. */
  cwd: string;
  db?: string;
  budget?: number;
  /** The time the answer is built for (ISO 8601; `--now`, for reproducible benchmarks): the current time when absent. */
  now?: string;
  /** How a model can fetch an item cut short: the command that runs this CLI. */
  showCommand: string;
}

export interface HookAnswer {
  output: string;
  entry: HookLogEntry;
  workspace?: string;
}

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The workspace: the folder holding the ledger found from the agent's folder up, else that folder. */
function workspaceOf(cwd: string, db: string | undefined): string {
  if (db !== undefined) {
    const folder = path.dirname(path.resolve(cwd, db));
    return path.basename(folder) === LEDGER_FOLDER ? path.dirname(folder) : cwd;
  }
  const found = defaultDatabasePath(cwd);
  return found.found ? path.dirname(path.dirname(found.file)) : path.resolve(cwd);
}

/** The agent's folder for a job: the payload's `cwd` when it is an absolute folder, else the hook process's. */
export function jobCwd(job: HookJob): string {
  return job.payload.cwd !== undefined && path.isAbsolute(job.payload.cwd) && isFolder(job.payload.cwd) ? job.payload.cwd : job.cwd;
}

/** The workspace a job answers for (the hook server serves one). */
export function jobWorkspace(job: HookJob): string {
  return workspaceOf(jobCwd(job), job.db);
}

/** The CLI script this process runs, when it is the bundled CLI (workers and the ledger server run the same file). */
export function cliScript(): string | undefined {
  const main = require.main?.filename;
  return main !== undefined && path.basename(main) === 'cli.js' ? main : undefined;
}

export function serverEnabled(): boolean {
  return process.env.CONTEXT_LEDGER_HOOK_SERVER !== 'off';
}

/** The folder of the user's hook sockets: private to the user (0700), refused when it is not. */
function socketFolder(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(os.tmpdir(), `context-ledger-${uid}`);
}

export function ensureSocketFolder(): string {
  const dir = socketFolder();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)) {
    throw new Error(`${dir} is not a private folder of this user: the hook server is not started`);
  }
  return dir;
}

/**
 * 64 bits of FNV-1a over the UTF-16 code units, as hex: a name, not a secret (the folder is
 * private), and no crypto module for the hook client to load at every hook.
 */
function nameHash(text: string): string {
  let low = 0x811c9dc5;
  let high = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    low = Math.imul(low ^ unit, 0x01000193) >>> 0;
    high = Math.imul(high ^ unit ^ (low >>> 16), 0x01000193) >>> 0;
  }
  return `${high.toString(16).padStart(8, '0')}${low.toString(16).padStart(8, '0')}`;
}

/** The socket of the server for `workspace` run by the CLI `script` as it is now (a rebuilt CLI gets a new server). */
export function socketPathFor(workspace: string, script: string): string {
  let stamp = '';
  try {
    stamp = String(fs.statSync(script).mtimeMs);
  } catch {
    // Unreadable script: the path alone names the server.
  }
  const key = nameHash(`${path.resolve(workspace)}\u0000${script}\u0000${stamp}`);
  return process.platform === 'win32' ? `\\\\.\\pipe\\context-ledger-${key}` : path.join(socketFolder(), `${key}.sock`);
}

/** Asks the server at `socket`; undefined when there is none (nothing listens): the caller answers itself. */
export function askServer(socket: string, job: HookJob): Promise<HookAnswer | undefined> {
  return new Promise((resolve, reject) => {
    let data = '';
    let connected = false;
    const connection = net.connect(socket);
    connection.setEncoding('utf8');
    connection.on('connect', () => {
      connected = true;
      connection.write(`${JSON.stringify(job)}\n`);
    });
    connection.on('data', (chunk: string) => (data += chunk));
    connection.on('end', () => {
      try {
        const reply = JSON.parse(data) as { answer?: HookAnswer; error?: string };
        if (reply.answer) resolve(reply.answer);
        else reject(new Error(reply.error ?? 'the hook server gave no answer'));
      } catch {
        reject(new Error('the hook server closed the connection without an answer'));
      }
    });
    connection.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) resolve(undefined);
      else reject(error);
    });
  });
}

/**
 * Starts the server for `workspace` in the background, detached from the agent's hook process
 * (or the MCP server, which watches it for an early exit); undefined when it could not be.
 */
export function startServer(script: string, workspace: string): ChildProcess.ChildProcess | undefined {
  try {
    // Required here: only the first hook of a workspace starts a server.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const child = (require('node:child_process') as typeof ChildProcess).spawn(process.execPath, [script, 'hook', '--serve'], { cwd: workspace, detached: true, stdio: 'ignore', env: process.env });
    child.on('error', () => undefined);
    child.unref();
    return child;
  } catch {
    // Best effort: hooks answer on their own without it.
    return undefined;
  }
}

