import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/model';
import { type AtomicWriteOptions, replaceFileAtomically } from './atomicWrite';
import { LedgerUnavailableError, refuseLink } from './persistence/noLinks';

export const LEDGER_FOLDER = '.context-ledger';
export const LEDGER_FILE = 'ledger.db';

/**
 * The default database: `.context-ledger/ledger.db` in the nearest folder up from
 * `cwd` that has one (like git finds its repository), else in `cwd` itself.
 */
export function defaultDatabasePath(cwd: string): { file: string; found: boolean } {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, LEDGER_FOLDER, LEDGER_FILE);
    if (fs.existsSync(candidate)) return { file: candidate, found: true };
    if (path.dirname(dir) === dir) break;
  }
  return { file: path.join(path.resolve(cwd), LEDGER_FOLDER, LEDGER_FILE), found: false };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes bytes as UTF-8 text, rejecting binary files and other encodings with a clear message. */
export function decodeText(bytes: Uint8Array, where: string): string {
  if (bytes.includes(0)) throw new UserError(`${where} looks like a binary file (it contains NUL bytes), not text.`);
  try {
    return strictUtf8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new UserError(`${where} is not UTF-8 text.`, 'Convert it to UTF-8 (e.g. `iconv -f latin1 -t utf-8`) and try again.');
  }
}

/** `missingHint`: what to do instead when there is no such file (the caller knows the likely slip). */
export function readTextFile(file: string, maxBytes = Number.POSITIVE_INFINITY, missingHint?: string): string {
  return decodeText(readFileBytes(file, maxBytes, missingHint), file);
}

/** The bytes of `file`, with readTextFile's checks (exists, not a folder, not over `maxBytes`). */
export function readFileBytes(file: string, maxBytes = Number.POSITIVE_INFINITY, missingHint?: string): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UserError(`File not found: ${file}`, missingHint);
  }
  if (stat.isDirectory()) throw new UserError(`${file} is a folder, not a file.`);
  if (stat.size > maxBytes) {
    throw new UserError(`${file} is ${(stat.size / 1048576).toFixed(1)} MB; the limit is ${(maxBytes / 1048576).toFixed(0)} MB.`);
  }
  return fs.readFileSync(file);
}

export async function readStdin(maxBytes: number): Promise<string> {
  return decodeText(await readStdinBytes(maxBytes), 'Standard input');
}

export async function readStdinBytes(maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw new UserError(`Standard input is over ${(maxBytes / 1048576).toFixed(0)} MB.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Writes `file` whole, inside the folder `root`, never through a link: every write of a
 * generated file (the artifact files, exported rule files, an inbox `.error`)
 * goes through here, and the check is made at the moment of writing, not when the command
 * started. A symbolic link at a folder between `root` and the file, or at the file's own name,
 * is refused with an error naming it (a cloned repository can ship one pointing anywhere);
 * `root` itself is the caller's (a workspace opened through a link is fine; OutputFolder
 * refuses a link at the folder it was given). The bytes go to a new temporary file (`O_EXCL`: a name that exists, link or not,
 * is never opened) that is renamed over the file, so a hard link at the file's name is
 * replaced, not written through: its other names keep their content.
 */
export function writeFileInside(root: string, file: string, content: string | Uint8Array, what = 'the file', options: Omit<AtomicWriteOptions, 'beforeRename'> = {}): void {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new UserError(`Refused to write ${file}: it is outside ${root}.`);
  let folder = root;
  const parts = relative.split(path.sep);
  for (const part of parts.slice(0, -1)) {
    folder = path.join(folder, part);
    refuseLink(folder, `a folder on the way to ${what}`);
    try {
      fs.mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  refuseLink(file, what);
  replaceFileAtomically(file, content, {
    ...options,
    beforeRename(temp) {
      // A folder swapped for a link since the checks above: the temporary file landed elsewhere.
      const real = fs.realpathSync(path.dirname(temp));
      const realRoot = fs.realpathSync(root);
      if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
        throw new LedgerUnavailableError(`Refusing to write ${file}: a folder on the way became a link to ${real}, outside ${root}.`, 'Remove the link and try again.');
      }
      refuseLink(file, what);
    },
  });
}
