/**
 * Replacing the database whole: the new bytes go to a temporary file in the same folder,
 * reach the disk, and are renamed over the database; the file replaced becomes the
 * backup (`<db>.bak`), its last good copy. There is a backup at every moment after the
 * first full write: the next one is put in place (a hard link to the database, atomically
 * renamed over the old one) before the new bytes are written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { faultPoint } from './faultInjection';

export interface ReplaceResult {
  /** The replaced file became the backup. */
  backedUp: boolean;
}

/**
 * Replaces `file` with `bytes`, keeping the file replaced as `backupFile`. When the
 * write fails before the rename, `file` is untouched; `onBackupReplaced` runs once the
 * old backup has given way to the current file (what belonged to the old one no longer does).
 */
export function replaceFile(file: string, backupFile: string, bytes: Uint8Array, onBackupReplaced: () => void): ReplaceResult {
  removeDeadWritersFiles(file);
  const temp = `${file}.tmp-${process.pid}`;
  fs.rmSync(temp, { force: true });
  let recycled = recycleBackupAs(file, backupFile, temp);
  faultPoint('backup-recycled');
  const backedUp = fs.existsSync(file) && keepBackup(file, backupFile);
  if (backedUp) onBackupReplaced();
  else if (recycled) {
    // The old backup is still in place under its name: the temporary link to it must not be written through.
    fs.rmSync(temp, { force: true });
    recycled = false;
  }
  faultPoint('backup-kept');
  try {
    // 'wx' never follows a link planted at the temporary name.
    const fd = fs.openSync(temp, recycled ? 'r+' : 'wx');
    try {
      fs.writeSync(fd, bytes, 0, bytes.length, 0);
      if (recycled) fs.ftruncateSync(fd, bytes.length);
      faultPoint('temp-written');
      // The data and its size must be on disk before the rename makes them the database.
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    // The database is untouched, and so is its backup.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  faultPoint('temp-synced');
  fs.renameSync(temp, file);
  faultPoint('database-replaced');
  return { backedUp };
}

/**
 * Links the previous backup's file to the temporary name, to be overwritten in place
 * once the backup's name points at the current database. On a large ledger, allocating
 * a new file and freeing the old backup cost more than writing the bytes; reusing the
 * backup's blocks makes neither happen. Only a backup that is its own file qualifies:
 * if it shares the database's inode (a crash between linking and renaming) overwriting
 * it would overwrite the database.
 */
function recycleBackupAs(file: string, backupFile: string, temp: string): boolean {
  try {
    const backup = fs.lstatSync(backupFile);
    const database = fs.lstatSync(file);
    if (!backup.isFile() || backup.nlink !== 1 || backup.ino === database.ino) return false;
    fs.linkSync(backupFile, temp);
    return true;
  } catch {
    return false;
  }
}

/** The file being replaced was valid (we loaded it), so it becomes the last good copy. */
function keepBackup(file: string, backupFile: string): boolean {
  const staging = `${backupFile}.tmp-${process.pid}`;
  try {
    fs.rmSync(staging, { force: true });
    try {
      fs.linkSync(file, staging);
    } catch {
      fs.copyFileSync(file, staging, fs.constants.COPYFILE_EXCL);
    }
    // A rename replaces a link at the backup's name itself, never its target.
    fs.renameSync(staging, backupFile);
    return true;
  } catch {
    fs.rmSync(staging, { force: true });
    return false;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the temporary files of writers killed mid-write (`<db>.tmp-<pid>`,
 * `<db>.bak.tmp-<pid>`, `<db>.lock.tmp-<pid>-…`, …): called under the write lock, so
 * a live writer's are told apart by its pid; a pid reused since is still alive, and its
 * file waits for a later write.
 */
export function removeDeadWritersFiles(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const match = /\.tmp-(\d+)(?:-[0-9a-f]+)?$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}
