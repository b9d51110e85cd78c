/**
 * Developer's tools for the start-up bench (test/bench/startup.mjs): what the extension host
 * spends at activation and holds after the first build. Each is off unless its variable is in
 * the host's environment; nothing is written without it.
 *  - CONTEXT_LEDGER_CPU_PROFILE=<folder>: a CPU profile of `activate()` and the 15 s after it
 *    (the first build), as `extension-host-<pid>.cpuprofile` (open it in Chrome DevTools).
 *  - CONTEXT_LEDGER_HEAP_SNAPSHOT=<folder>: a heap snapshot of the host 15 s after the first build.
 */
import * as inspector from 'node:inspector';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from './logger';

const AFTER_MS = 15_000;

/** Starts the CPU profile when asked for; call the result once the logger exists. */
export function startCpuProfileIfAsked(): (logger: Logger) => void {
  const folder = process.env.CONTEXT_LEDGER_CPU_PROFILE;
  if (!folder) return () => undefined;
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  return (logger) => {
    setTimeout(() => {
      session.post('Profiler.stop', (error, result) => {
        if (error) return logger.error('The CPU profile failed', error);
        const file = path.join(folder, `extension-host-${process.pid}.cpuprofile`);
        fs.writeFileSync(file, JSON.stringify(result.profile));
        session.disconnect();
        logger.info(`CPU profile written: ${file}`);
      });
    }, AFTER_MS).unref();
  };
}

/** A heap snapshot of the host AFTER_MS from now, when asked for. */
export function writeHeapSnapshotLaterIfAsked(logger: Logger): void {
  const folder = process.env.CONTEXT_LEDGER_HEAP_SNAPSHOT;
  if (!folder) return;
  setTimeout(() => {
    void import('node:v8').then((v8) => logger.info(`Heap snapshot written: ${v8.writeHeapSnapshot(path.join(folder, `extension-host-${process.pid}.heapsnapshot`))}`));
  }, AFTER_MS).unref();
}
