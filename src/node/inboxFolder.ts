/**
 * Where the inbox is and what waits in it: a listing, without the validation code
 * (src/node/inbox.ts), so a watcher can look before it loads that.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LEDGER_FOLDER } from './files';

export const INBOX_FOLDER = 'inbox';

/** `<folder>/.context-ledger/inbox`. */
export function inboxFolderOf(workspaceFolder: string): string {
  return path.join(workspaceFolder, LEDGER_FOLDER, INBOX_FOLDER);
}

/** The `*.json` files waiting in `inboxDir`, oldest name first (agents may number them). */
export function pendingInboxFiles(inboxDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(inboxDir);
  } catch {
    return [];
  }
  return names.filter((n) => n.toLowerCase().endsWith('.json')).sort().map((n) => path.join(inboxDir, n));
}
