/**
 * Issue 42: kill -9 at random points of add, update, import and refresh (a teammate's new and
 * edited files followed), 200 times, each a real process writing through the one
 * LedgerSession (test/unit/fixtures/killableWriter.ts). After every kill a fresh session opens
 * the ledger and finds: every write that returned is there (0 lost) — an update as it was
 * made or as a later one left it —, no chain in two files (0 duplicates), every file parses,
 * the index agrees with the files, and a teammate's new file became one artifact, not two.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseMirrorFile } from '../../../src/core/formats/mirror';
import { LedgerSession } from '../../../src/node/session';
import { tempDir } from '../helpers';

const TRIALS = Number(process.env.KILL_TRIALS ?? 200);
/** A new small ledger this often: the check reads every file after every kill. */
const TRIALS_PER_LEDGER = 20;
const WRITER = path.join(__dirname, '..', 'fixtures', 'killableWriter.js');

function runAndKill(workspace: string, seed: number, afterReadyMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, workspace, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (timer === undefined && out.includes('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), afterReadyMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`the writer stopped by itself (exit ${code}): ${err}`));
      else resolve(out.split('\n').filter((l) => l !== ''));
    });
  });
}

interface Expectations {
  added: Set<string>;
  imported: Set<string>;
  teammate: Set<string>;
  /** Per chain updated: the bodies it may have now, the last update that returned and any tried after it (settled: one returned). */
  bodies: Map<string, { settled: boolean; bodies: string[] }>;
}

function learn(lines: readonly string[], known: Expectations): void {
  for (const line of lines) {
    const [state, op, ...rest] = line.split(' ');
    if (op === 'add' && state === 'ok') known.added.add(rest[0]!);
    if (op === 'import' && state === 'ok') for (const id of rest) known.imported.add(id);
    if (op === 'teammate') known.teammate.add(rest.join(' '));
    if (op === 'update') {
      const [chain, ...words] = rest;
      const body = words.join(' ');
      const now = known.bodies.get(chain!) ?? { settled: false, bodies: [] };
      // A returned update is the floor; one only tried may or may not have landed.
      known.bodies.set(chain!, state === 'ok' ? { settled: true, bodies: [body] } : { settled: now.settled, bodies: [...now.bodies, body] });
    }
  }
}

async function check(workspace: string, known: Expectations, where: string): Promise<void> {
  // `create`: a kill before the first write left no ledger at all, which is fine.
  const session = await LedgerSession.open({ cwd: workspace, create: true });
  try {
    await session.refresh();
    const latest = await session.read((s) => s.latestArtifacts());
    const byChain = new Map(latest.map((a) => [a.chainId, a]));
    for (const chain of known.added) assert.ok(byChain.has(chain), `${where}: add of ${chain} lost`);
    for (const id of known.imported) assert.ok(latest.some((a) => a.chainId === id), `${where}: import of ${id} lost`);
    for (const [chain, { settled, bodies }] of known.bodies) {
      const now = byChain.get(chain)?.body ?? '(no artifact)';
      if (settled) assert.ok(bodies.includes(now), `${where}: ${chain} has "${now}", expected one of ${bodies.join(' | ')}`);
    }
    const root = path.join(workspace, '.context-ledger', 'artifacts');
    const all = fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
    assert.deepEqual(all.filter((f) => /\.tmp-/.test(f)), [], `${where}: a killed writer's temporary file is left for git to commit`);
    const files = all.filter((f) => f.endsWith('.md'));
    const fileOf = new Map<string, string>();
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const input = parseMirrorFile(file, text);
      const chain = input.chainId ?? input.id;
      if (chain === undefined) {
        // A teammate's file the kill left before it got its id: the next write or refresh gives it one.
        continue;
      }
      assert.ok(!fileOf.has(chain), `${where}: ${chain} is in ${fileOf.get(chain)} and ${file}`);
      fileOf.set(chain, file);
      assert.equal(byChain.get(chain)?.body, input.body, `${where}: the index and ${file} disagree`);
    }
    for (const a of latest) assert.ok(fileOf.has(a.chainId), `${where}: ${a.chainId} has no file`);
    for (const title of known.teammate) {
      const count = latest.filter((a) => a.title === title).length;
      if (fs.existsSync(path.join(root, 'learning', `teammate-${title.replace('Teammate ', '')}.md`))) assert.equal(count, 1, `${where}: ${title} imported ${count} times`);
    }
  } finally {
    session.close();
  }
}

describe('kill -9 anywhere in a write', () => {
  it(`${TRIALS} kills at random points of add, update, import and refresh: 0 lost, 0 duplicate files, every file parses`, { timeout: 900_000 }, async () => {
    let workspace = '';
    let known: Expectations | undefined;
    let seed = 4242;
    for (let trial = 0; trial < TRIALS; trial++) {
      if (trial % TRIALS_PER_LEDGER === 0) {
        workspace = tempDir('ledger-kill-');
        known = { added: new Set(), imported: new Set(), teammate: new Set(), bodies: new Map() };
      }
      seed = (seed * 48271) % 2147483647;
      const lines = await runAndKill(workspace, seed, seed % 250);
      learn(lines, known!);
      await check(workspace, known!, `trial ${trial} (seed ${seed}, last: ${lines.at(-1)})`);
    }
  });
});
