/**
 * Temporary files of writers killed mid-write (`<db>.tmp-<pid>`, `<db>.lock.tmp-<pid>-…`,
 * an artifact file's `<name>.tmp-<pid>-…`) are removed by a later writer under the lock.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the temporary files of writers killed mid-write (`<db>.tmp-<pid>`,
 * `<db>.lock.tmp-<pid>-…`, …): called under the write lock, so
 * a live writer's are told apart by its pid; a pid reused since is still alive, and its
 * file waits for a later write.
 */
export function removeDeadWritersFiles(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const match = /\.tmp-(\d+)(?:-[0-9a-f]+)?$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processIsAlive(pid)) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}
