/**
 * The inbox folder on disk: each `*.json` file is read, validated and applied through
 * src/core/inbox.ts. A file the ledger accepted is removed (its content now lives in the
 * ledger, with the file name recorded); a file it refused is moved to `rejected/` beside
 * a `.error` file saying why — never dropped. A failure that is not the file's fault (a
 * locked or broken database) leaves the file where it is, for the next attempt.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_INBOX_FILE_BYTES, type ParsedInboxFile, parseInboxFile } from '../core/inbox';
import { type Artifact, UserError } from '../core/model';
import { decodeText, LEDGER_FOLDER, writeFileInside } from './files';
import { pendingInboxFiles } from './inboxFolder';
import { LedgerUnavailableError, refuseLink } from './persistence/noLinks';

export { INBOX_FOLDER, inboxFolderOf, pendingInboxFiles } from './inboxFolder';

export const REJECTED_FOLDER = 'rejected';

export type InboxOutcome =
  | { file: string; status: 'ingested'; created: Artifact[]; ignoredFields: string[] }
  | { file: string; status: 'rejected'; error: string; movedTo: string }
  | { file: string; status: 'failed'; error: string };


function freeName(dir: string, name: string): string {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  let candidate = name;
  for (let n = 1; fs.existsSync(path.join(dir, candidate)) || fs.existsSync(path.join(dir, `${candidate}.error`)); n++) candidate = `${stem}-${n}${ext}`;
  return path.join(dir, candidate);
}

/**
 * Moves `file` into `rejected/` and writes `<name>.error` beside it; returns the new path.
 * A link at either name is refused (naming it) before the file is moved, so it stays in the inbox.
 */
export function rejectInboxFile(file: string, reason: string): string {
  const dir = path.join(path.dirname(file), REJECTED_FOLDER);
  refuseLink(dir, `the inbox's ${REJECTED_FOLDER} folder`);
  fs.mkdirSync(dir, { recursive: true });
  const target = freeName(dir, path.basename(file));
  refuseLink(target, 'the rejected file\'s name');
  refuseLink(`${target}.error`, 'the rejected file\'s .error file');
  fs.renameSync(file, target);
  writeFileInside(
    dir,
    `${target}.error`,
    `${reason}\n\nFix the file and move it back into ${path.dirname(file)} to try again. The format: one artifact {"type", "title", "body", ...}, a list of them, or {"artifacts": [...], "decision": {...}}.\n`,
    'the rejected file\'s .error file',
  );
  return target;
}

/** Reads and validates one file; throws UserError for anything wrong with the file itself. */
export function readInboxFile(file: string): ParsedInboxFile {
  const stat = fs.lstatSync(file);
  if (!stat.isFile()) throw new UserError('It is not a regular file (a link or a folder); inbox files must be plain JSON files.');
  // Checked before reading, so a huge file is never loaded.
  if (stat.size > MAX_INBOX_FILE_BYTES) {
    throw new UserError(`The file is ${stat.size} bytes; an inbox file may hold at most ${MAX_INBOX_FILE_BYTES}. Split it into several files.`);
  }
  const bytes = fs.readFileSync(file);
  return parseInboxFile(decodeText(bytes, 'The file'), bytes.length);
}

/**
 * Processes one inbox file. `apply` writes the parsed content to the ledger (in one
 * transaction, under the ledger's lock) and returns what it created.
 */
export async function processInboxFile(file: string, apply: (parsed: ParsedInboxFile, file: string) => Promise<Artifact[]>): Promise<InboxOutcome> {
  try {
    const parsed = readInboxFile(file);
    const created = await apply(parsed, path.basename(file));
    fs.rmSync(file, { force: true });
    return { file, status: 'ingested', created, ignoredFields: parsed.ignoredFields };
  } catch (error) {
    // The ledger could not take it (locked, a linked part): not the file's fault, it stays for the next attempt.
    if (error instanceof LedgerUnavailableError) return { file, status: 'failed', error: error.hint ? `${error.message} ${error.hint}` : error.message };
    if (error instanceof UserError) {
      const reason = error.hint ? `${error.message} ${error.hint}` : error.message;
      if (!fs.existsSync(file)) return { file, status: 'failed', error: `${reason} (the file is gone)` };
      try {
        return { file, status: 'rejected', error: reason, movedTo: rejectInboxFile(file, reason) };
      } catch (moving) {
        // A link in `rejected/`: the file stays in the inbox, the outcome names the link.
        if (moving instanceof LedgerUnavailableError) return { file, status: 'failed', error: `${reason} It could not be moved aside: ${moving.message} ${moving.hint ?? ''}`.trim() };
        throw moving;
      }
    }
    return { file, status: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
}

/** Processes every waiting file, one after another. */
export async function processInbox(inboxDir: string, apply: (parsed: ParsedInboxFile, file: string) => Promise<Artifact[]>): Promise<InboxOutcome[]> {
  // A linked inbox (or ledger folder, or rejected folder) would have files read, deleted or written elsewhere.
  if (path.basename(path.dirname(inboxDir)) === LEDGER_FOLDER) refuseLink(path.dirname(inboxDir), `the ledger folder ${LEDGER_FOLDER}`);
  refuseLink(inboxDir, 'the inbox folder');
  refuseLink(path.join(inboxDir, REJECTED_FOLDER), `the inbox's ${REJECTED_FOLDER} folder`);
  const outcomes: InboxOutcome[] = [];
  for (const file of pendingInboxFiles(inboxDir)) outcomes.push(await processInboxFile(file, apply));
  return outcomes;
}
