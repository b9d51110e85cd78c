/**
 * The one way the ledger replaces a file whole: the new content goes to a temporary file beside
 * it, created exclusively ('wx': a link planted at that name is never written through), and is
 * renamed over the file, so a reader sees the old text or the new, never half of one, and a crash
 * leaves no partial file. Kept free of other imports: the hook client bundles it, and every
 * kilobyte there is paid at each agent hook (hence no node:crypto for the temporary name: the
 * process id and a counter make it unique, and 'wx' refuses any name that exists).
 */
import * as fs from 'node:fs';

export interface AtomicWriteOptions {
  /** The bytes reach the disk before the rename makes them the file (when the file is the only copy). */
  durable?: boolean;
  /** The new file's permissions (a file that replaces a person's own keeps theirs). Default 0o666 less the umask. */
  mode?: number;
  /** Runs after the temporary file is written, before the rename: a last check that may throw to abandon the write. */
  beforeRename?: (temp: string) => void;
}

let written = 0;

export function replaceFileAtomically(file: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  // `<file>.tmp-<pid>-<hex>`: the shape artifactFolder.ts's TEMP_FILE knows, to remove one a killed writer left.
  const temp = `${file}.tmp-${process.pid}-${Date.now().toString(16)}${(written++ % 0x10000).toString(16).padStart(4, '0')}`;
  try {
    const fd = fs.openSync(temp, 'wx', options.mode ?? 0o666);
    try {
      fs.writeFileSync(fd, content);
      if (options.durable) fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // The open's mode is cut by the umask; an explicit mode is the file's mode.
    if (options.mode !== undefined) fs.chmodSync(temp, options.mode);
    options.beforeRename?.(temp);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
