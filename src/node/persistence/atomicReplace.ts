/**
 * Replacing the database whole: the new bytes go to a temporary file in the same folder,
 * reach the disk, and are renamed over the database; the file replaced becomes the
 * backup (`<db>.bak`), its last good copy.
 */
import * as fs from 'node:fs';

export interface ReplaceResult {
  /** The replaced file became the backup. */
  backedUp: boolean;
}

/**
 * Replaces `file` with `bytes`, keeping the file replaced as `backupFile`. When the
 * write fails before the rename, `file` is untouched; `onBackupRebuilt` runs if the
 * backup had to be rebuilt from it (what belonged to the old backup no longer does).
 */
export function replaceFile(file: string, backupFile: string, bytes: Uint8Array, onBackupRebuilt: () => void): ReplaceResult {
  const temp = `${file}.tmp-${process.pid}`;
  const recycled = recycleBackupAs(file, backupFile, temp);
  try {
    const fd = fs.openSync(temp, recycled ? 'r+' : 'w');
    try {
      fs.writeSync(fd, bytes, 0, bytes.length, 0);
      if (recycled) fs.ftruncateSync(fd, bytes.length);
      // The data and its size must be on disk before the rename makes them the database.
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    // The database is untouched; the backup it took the place of is rebuilt from it.
    fs.rmSync(temp, { force: true });
    if (recycled && fs.existsSync(file) && keepBackup(file, backupFile)) onBackupRebuilt();
    throw error;
  }
  const backedUp = fs.existsSync(file) && keepBackup(file, backupFile);
  fs.renameSync(temp, file);
  return { backedUp };
}

/**
 * Turns the previous backup into the temporary file, to be overwritten in place. On a
 * large ledger, allocating a new file and freeing the old backup cost more than
 * writing the bytes; reusing the backup's blocks makes neither happen. Only a backup
 * that is its own file qualifies: if it shares the database's inode (a crash between
 * linking and renaming) overwriting it would overwrite the database.
 */
function recycleBackupAs(file: string, backupFile: string, temp: string): boolean {
  try {
    const backup = fs.statSync(backupFile);
    const database = fs.statSync(file);
    if (!backup.isFile() || backup.nlink !== 1 || backup.ino === database.ino) return false;
    fs.renameSync(backupFile, temp);
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
      fs.copyFileSync(file, staging);
    }
    fs.renameSync(staging, backupFile);
    return true;
  } catch {
    fs.rmSync(staging, { force: true });
    return false;
  }
}
