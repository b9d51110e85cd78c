import * as fs from 'node:fs';
import * as path from 'node:path';
import { after } from 'node:test';
import { ROOT, tempDir as makeTempDir } from '../helpers';

/** Real files in the formats teams keep (read only; see its README). */
export const REAL = path.resolve(ROOT, '..', 'shared', 'fixtures', 'real');

const created: string[] = [];
after(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder removed when the test file ends. */
export function tempDir(prefix = 'ledger-interop-'): string {
  const dir = makeTempDir(prefix);
  created.push(dir);
  return dir;
}
