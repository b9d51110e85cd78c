/**
 * Which ledger the MCP server serves, and how it opens it. The server never creates a
 * ledger: started where none is (Cline starts servers in `/`), it serves none, says so,
 * and looks in the folders the client names as its roots.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../core/model';
import { defaultDatabasePath } from '../../node/files';
import { mirrorHasFiles } from '../../node/artifactFolder';
import { readWorkspaceSetting } from '../../node/workspaceSettings';

/** Where the served ledger is: its file and its workspace (the folder holding `.context-ledger`). */
export interface LedgerPlace {
  file: string;
  workspace: string;
}

/** A ledger to serve, or why there is none. */
export type Located = { place: LedgerPlace } | { missing: string };

export function workspaceOfFile(file: string, fallback: string): string {
  const folder = path.dirname(file);
  return path.basename(folder) === '.context-ledger' ? path.dirname(folder) : fallback;
}

/** What every answer says while no ledger is served, and what to do about it. */
export function missingLedgerText(where: string): string {
  return (
    `No Context Ledger found ${where}, so there is no project knowledge to serve and nothing can be recorded. ` +
    'Start the server in the project folder, pass --db <project>/.context-ledger/ledger.db, or run `context-ledger init` in the project first.'
  );
}

/** The ledger `--db` names, or the one found upwards from `cwd`; never one that does not exist yet. */
export function locateLedger(cwd: string, db: string | undefined): Located {
  if (db !== undefined) {
    assertExpandedDb(db);
    const file = path.resolve(cwd, db);
    if (!fs.existsSync(file)) return { missing: missingLedgerText(`at ${file} (given with --db)`) };
    return { place: { file, workspace: workspaceOfFile(file, cwd) } };
  }
  const found = defaultDatabasePath(cwd);
  // A fresh clone has the team's artifact files and no database yet: the session builds it from them.
  if (!found.found && !mirrorHasFiles(found.file)) return { missing: missingLedgerText(`in ${path.resolve(cwd)} or any folder above it`) };
  return { place: { file: found.file, workspace: path.dirname(path.dirname(found.file)) } };
}

/** The first of the client's roots (file: URIs, in the client's order) that is in a ledger's workspace. */
export function ledgerFromRoots(uris: readonly string[]): LedgerPlace | undefined {
  for (const uri of uris) {
    let folder: string;
    try {
      if (!uri.startsWith('file:')) continue;
      folder = fileURLToPath(uri);
    } catch {
      continue;
    }
    const found = defaultDatabasePath(folder);
    if (found.found || mirrorHasFiles(found.file)) return { file: found.file, workspace: path.dirname(path.dirname(found.file)) };
  }
  return undefined;
}

/**
 * Whether build_context includes or holds agent-written knowledge nobody approved: the
 * flag, else the workspace's own VS Code setting (so Claude Code in a repository set to
 * "hold" is held back too, exactly like Copilot in the editor), else include.
 */
export function unreviewedPolicy(flag: string | undefined, workspace: string): { policy: 'include' | 'hold'; from: string } {
  if (flag !== undefined) {
    if (flag !== 'include' && flag !== 'hold') throw new UserError(`--unreviewed must be "include" or "hold", not "${flag}".`, 'For example --unreviewed hold.');
    return { policy: flag, from: '--unreviewed' };
  }
  const setting = readWorkspaceSetting(workspace, 'contextLedger.agent.unreviewed');
  if (setting === 'include' || setting === 'hold') return { policy: setting, from: path.join(workspace, '.vscode', 'settings.json') };
  return { policy: 'include', from: 'default' };
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Refuses to serve a file that is not a ledger, before anything opens it: opening moves a
 * corrupt file aside, which a long-running server started by an agent tool must not do
 * behind the user's back. A Git LFS pointer (a clone without `git lfs pull`) says so.
 */
export function assertLedgerFile(file: string): void {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(200);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return; // Missing or unreadable: opening says what is wrong.
  }
  if (head.length === 0) return;
  const text = head.toString('latin1');
  if (text.startsWith('version https://git-lfs')) {
    throw new UserError(
      `${file} is a Git LFS pointer, not the ledger database: the repository was cloned without its LFS files. The MCP server did not start and changed nothing.`,
      'Run `git lfs pull` in the repository, then start the server again.',
    );
  }
  if (!text.startsWith(SQLITE_HEADER)) {
    throw new UserError(
      `${file} is not a ledger database (it does not start with the SQLite header). The MCP server did not start and left the file as it is.`,
      `If it was damaged, \`context-ledger restore --db ${file}\` brings back the last good copy; check it with \`context-ledger doctor --db ${file}\` if your version has it.`,
    );
  }
}

/**
 * A `--db` still holding a client's variable (`${workspaceFolder}`: the client did not fill
 * it in) names no real place: refused, instead of a new ledger made under a folder of that name.
 */
export function assertExpandedDb(db: string | undefined): void {
  const variable = db === undefined ? null : /\$\{[^}]*\}/.exec(db);
  if (!variable) return;
  throw new UserError(
    `--db ${db} still holds ${variable[0]}: the MCP client did not fill it in. The server did not start and created nothing.`,
    'Give the absolute path of the ledger (…/.context-ledger/ledger.db) in the client\'s configuration; docs/mcp.md shows each client\'s.',
  );
}
