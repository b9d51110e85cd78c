/**
 * The ledger's own files are never reached through a link: a cloned repository can ship
 * `.context-ledger/ledger.db.lock` (or an artifact file, the inbox, ...) as a symbolic link
 * to a file elsewhere, and writing it would write there. Such a part is refused, naming
 * the link, before anything is written.
 */
import * as fs from 'node:fs';
import { UserError } from '../../core/model';

/** The ledger cannot be used as it is on disk (a linked part, a lock held): not the fault of what was being written. */
export class LedgerUnavailableError extends UserError {}

/** Throws when `file` exists and is a symbolic link (its target is never touched). */
export function refuseLink(file: string, what: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return;
  }
  if (stat.isSymbolicLink()) {
    let target = '';
    try {
      target = ` to ${fs.readlinkSync(file)}`;
    } catch {
      // Unreadable: named without its target.
    }
    throw new LedgerUnavailableError(
      `Refusing to use ${file}: ${what} is a symbolic link${target}, and writing through it would change a file outside the ledger.`,
      'Remove the link (the ledger recreates its files) or replace it with a real file or folder.',
    );
  }
}
