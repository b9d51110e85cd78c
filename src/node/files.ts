import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/model';

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
