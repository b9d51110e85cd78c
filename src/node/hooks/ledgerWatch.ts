/**
 * Whether anything a ledger session follows may have changed since the last look, told by the
 * operating system's file events instead of a stat of every file: the hook server
 * (src/cli/hookServer.ts) refreshes its kept ledger only then. A session's refresh checks the
 * stamps of every artifact file and knowledge file (about 100 ms of CPU at 10,000 artifacts,
 * npm run bench), which an agent would otherwise wait on at each prompt and each write.
 *
 * Watched, one folder at a time (no recursive watch: Linux has none natively): the ledger's
 * folder and every folder under it but the hooks' own (the database another process writes,
 * the artifact files a pull changes), and the folder of each knowledge file the ledger follows
 * (a new rule file beside a followed one changes the folder, as the session's stamps see it).
 * Whenever the watch cannot be trusted — a folder that could not be watched, a watcher error,
 * too many folders — it says "changed" every time, and the session's own check decides.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOKS_FOLDER } from './hookFiles';

/** More folders than this and the watch is not worth its file descriptors: every look says "changed". */
const MAX_FOLDERS = 1000;

export interface LedgerWatch {
  /** True when something may have changed since `markClean` (or the watch cannot tell). */
  readonly changed: boolean;
  /**
   * The files under the ledger folder the events since `markClean` named (absolute), or
   * undefined when the watch cannot name them all (an event without a name, a watcher error):
   * the session then lists every artifact file instead of looking at these alone.
   */
  readonly changedFiles: ReadonlySet<string> | undefined;
  /** Called just before the session's own check: a change during it is a change after it. */
  markClean(): void;
  /**
   * Watches again, after a refresh: the ledger's folders when one came or went, and the
   * knowledge files followed now when given (a refresh that changed the ledger may follow others).
   */
  rewatch(knowledgeFiles?: Iterable<string>): void;
  close(): void;
}

/** The ledger folder and every folder under it, but the hooks' own state (written at every hook). */
function ledgerFolders(ledgerFolder: string): string[] {
  const folders = [ledgerFolder];
  for (let i = 0; i < folders.length && folders.length <= MAX_FOLDERS; i++) {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(folders[i]!, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      if (i === 0 && entry.name === HOOKS_FOLDER) continue;
      folders.push(path.join(folders[i]!, entry.name));
    }
  }
  return folders;
}

/** Knowledge files (workspace-relative) by their folder (absolute). */
function byFolder(workspace: string, files: Iterable<string>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const file of files) {
    const absolute = path.join(workspace, ...file.split('/'));
    const folder = path.dirname(absolute);
    folders.set(folder, (folders.get(folder) ?? new Set()).add(path.basename(absolute)));
  }
  return folders;
}

/**
 * Watches the ledger folder of `workspace` (`.context-ledger/`) and the folders of
 * `knowledgeFiles` (workspace-relative, as the ledger records them); `onChange` is called at
 * each relevant event.
 */
export function watchLedger(workspace: string, ledgerFolder: string, knowledgeFiles: Iterable<string>, onChange: () => void = () => undefined): LedgerWatch {
  let watchers: fs.FSWatcher[] = [];
  let changed = true;
  /** Named by the ledger folders' events since markClean; undefined: an event named none, or the watch started since. */
  let named: Set<string> | undefined;
  let broken = false;
  /** A folder came or went under the ledger folder: its folders are listed again at the next rewatch. */
  let foldersMoved = true;
  let knowledge = byFolder(workspace, knowledgeFiles);
  let ledger: string[] = [];
  const open = (into: fs.FSWatcher[], folder: string, relevant: (event: string, name: string | null) => boolean): void => {
    try {
      const watcher = fs.watch(folder, { persistent: false }, (event, name) => {
        if (!relevant(event, name)) return;
        changed = true;
        onChange();
      });
      watcher.on('error', () => {
        broken = true;
      });
      into.push(watcher);
    } catch {
      broken = true;
    }
  };
  const start = (): void => {
    if (foldersMoved) {
      const before = new Set(ledger);
      ledger = ledgerFolders(ledgerFolder);
      // A folder that came is watched from now: a file written in it before is named by no event, so the next look lists them all.
      if (ledger.some((folder) => !before.has(folder))) named = undefined;
    }
    foldersMoved = false;
    // The new watchers first, the old ones closed after: no moment without a watch.
    const next: fs.FSWatcher[] = [];
    const old = watchers;
    broken = ledger.length + knowledge.size > MAX_FOLDERS;
    if (!broken) {
      for (const folder of ledger) {
        open(next, folder, (event, name) => {
          if (folder === ledgerFolder && name === HOOKS_FOLDER) return false;
          if (event === 'rename') foldersMoved = true;
          if (name === null) named = undefined;
          else named?.add(path.join(folder, name));
          return true;
        });
      }
      // In a knowledge file's folder: that file changed, or any file came or went (the folder's time, which the session stamps).
      for (const [folder, names] of knowledge) open(next, folder, (event, name) => event === 'rename' || name === null || names.has(name));
    }
    watchers = next;
    for (const watcher of old) watcher.close();
  };
  start();
  return {
    get changed() {
      return changed || broken;
    },
    get changedFiles() {
      return broken ? undefined : named;
    },
    markClean() {
      changed = false;
      named = new Set();
    },
    rewatch(files) {
      if (files === undefined && !foldersMoved && !broken) return;
      if (files !== undefined) knowledge = byFolder(workspace, files);
      start();
    },
    close() {
      for (const watcher of watchers) watcher.close();
      watchers = [];
    },
  };
}
