/**
 * The workspace's `.context-ledger/` folder as git should see it: the artifact files
 * (`artifacts/`) are the ledger the team shares and are committed; everything else there
 * is this machine's (the index database, its lock, local record and damaged copies, the
 * agent inbox, files an older version left). A binary database in git is a conflict
 * nobody can merge, so the folder carries its own `.gitignore` that says so, written
 * once: the team's `.gitignore` is theirs, and a person's edits to this one are kept.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const LEDGER_FOLDER = '.context-ledger';
export const MIRROR_FOLDER = 'artifacts';

/*
 * An allow-list rather than a list of what to leave out: a side file a later version adds
 * is local without anyone updating this. `!artifacts/**` is needed besides `!artifacts/`
 * because `*` also matches every file inside it.
 */
export const LEDGER_GITIGNORE = [
  '# Written by Context Ledger. Commit the artifact files (artifacts/): they are the ledger the team shares.',
  '# Everything else here stays on this machine: the index (ledger.db), its lock, local record and damaged',
  '# copies, the agent inbox. On a fresh clone the index is rebuilt from the artifact files.',
  '*',
  '!.gitignore',
  `!${MIRROR_FOLDER}/`,
  `!${MIRROR_FOLDER}/**`,
  '',
].join('\n');

/** Whether `dbFile` is a workspace ledger (`<workspace>/.context-ledger/<name>.db`), the layout a team shares. */
export function isWorkspaceLedger(dbFile: string): boolean {
  return path.basename(path.dirname(path.resolve(dbFile))) === LEDGER_FOLDER;
}

/** The mirror folder of a ledger: `artifacts/` beside the database. */
export function mirrorFolderOf(dbFile: string): string {
  return path.join(path.dirname(path.resolve(dbFile)), MIRROR_FOLDER);
}

/** Writes `.context-ledger/.gitignore` unless there is one. Returns whether it wrote it. */
export function ensureLedgerGitignore(ledgerFolder: string): boolean {
  const file = path.join(ledgerFolder, '.gitignore');
  try {
    fs.writeFileSync(file, LEDGER_GITIGNORE, { flag: 'wx' });
    return true;
  } catch {
    // There is one already (kept as the team or the person left it), or the folder is read-only.
    return false;
  }
}
