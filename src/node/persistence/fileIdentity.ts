/**
 * Which version of a file was read: a writer that replaces the database renames a new
 * file over it, so inode, size and modification time together tell a changed file from
 * the one loaded without reading it again.
 */
import * as fs from 'node:fs';

export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function identityOf(file: string): FileIdentity | undefined {
  try {
    const stat = fs.statSync(file);
    return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * Reads the file and its identity from one open descriptor, so the identity always
 * belongs to the bytes read even if another process renames a new file in meanwhile.
 */
export function readWithIdentity(file: string): { bytes: Buffer | undefined; identity: FileIdentity | undefined } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: undefined, identity: undefined };
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    // The Buffer itself, not a Uint8Array over it: sql.js takes the bytes into its in-memory
    // file system with `slice()`, which copies a Uint8Array (80-150 ms for a 24 MB ledger on
    // a slow machine, on every open) but only views a Buffer. Nothing else keeps these bytes.
    const bytes = fs.readFileSync(fd);
    return { bytes, identity: { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs } };
  } finally {
    fs.closeSync(fd);
  }
}

export function sameIdentity(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a?.ino === b?.ino && a?.size === b?.size && a?.mtimeMs === b?.mtimeMs;
}

/** A time as a file-name part (no `:` or `.`), for files kept aside. */
export function timestampForFileName(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}
