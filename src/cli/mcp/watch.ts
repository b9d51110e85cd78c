/**
 * Watches the ledger's folder (one inotify watch, no polling) and tells the client when
 * another process changed the ledger; the worker's own writes change nothing it has not seen.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { errorText, type LedgerWorker, log } from './worker';

export function watchLedger(file: string, worker: LedgerWorker, server: Server): () => void {
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name !== null && name !== base && name !== `${base}.journal`) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        void worker
          .request({ type: 'refresh' })
          .done.then((reply) => (reply.result === true ? server.sendResourceListChanged() : undefined))
          .catch(() => undefined);
      }, 150);
    });
  } catch (error) {
    log(`not watching ${file} for changes: ${errorText(error)}`);
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
  };
}
