/**
 * A hook client at a path that outlives the VS Code extension's folder. An extension update
 * installs into a new, versioned folder and removes the old one, so a hook command pointing into
 * the extension would break at each update. The extension keeps a copy of its hook client
 * (dist/hook.cjs, a few kilobytes) in its global storage, refreshed at every activation, beside a
 * one-line file naming the CLI to use (the current extension's dist/cli.js): the installed command
 * points at the copy. Between an update and the next activation the CLI named may be gone: the
 * client then gives the agent its no-op and logs why (hookMain.ts); after an uninstall the copy
 * itself may be gone: the installed command checks for it first (agentHooks.ts, `guard`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { replaceFileAtomically } from '../atomicWrite';

/** The file beside a copied client that names the CLI it runs (hookMain.ts reads it). */
export const CLI_POINTER = 'cli-path';

/**
 * Copies `dist/hook.cjs` of `distFolder` into `storageFolder/hook/` and points it at `dist/cli.js`;
 * returns the copy's path. Written beside and renamed over, so a hook starting meanwhile reads
 * either the old copy or the new one, never half of one. A file already as it should be is not
 * written again: every window's activation refreshes the copy, and most find it current.
 */
export function refreshStableClient(storageFolder: string, distFolder: string): string {
  const folder = path.join(storageFolder, 'hook');
  fs.mkdirSync(folder, { recursive: true });
  const client = path.join(folder, 'hook.cjs');
  const replace = (file: string, content: string | Buffer): void => {
    if (isAlready(file, content)) return;
    replaceFileAtomically(file, content, { mode: 0o755 });
  };
  replace(path.join(folder, CLI_POINTER), path.join(distFolder, 'cli.js'));
  replace(client, fs.readFileSync(path.join(distFolder, 'hook.cjs')));
  return client;
}

function isAlready(file: string, content: string | Buffer): boolean {
  try {
    return fs.readFileSync(file).equals(typeof content === 'string' ? Buffer.from(content) : content);
  } catch {
    return false;
  }
}
