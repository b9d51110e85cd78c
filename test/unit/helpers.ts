import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LedgerStore, type Clock } from '../../src/core/store';
import { loadSqlJs } from '../../src/node/ledgerFile';

export const ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

// The workspaces' ledger servers the tests' MCP servers and hooks start (src/cli/hookServer.ts) end 10 s after
// their last client instead of 20 minutes: a test run leaves no process behind for long (a test may set its own).
process.env.CONTEXT_LEDGER_HOOK_SERVER_IDLE_MS ??= '10000';

/** The project's package.json, typed as the test needs it. */
export function packageManifest<T>(): T {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as T;
}

/**
 * Every setting the manifest contributes, by full name: `contributes.configuration` is a list
 * of titled sections (the groups of the Settings editor).
 */
export function contributedSettings<T = Record<string, unknown>>(): Record<string, T> {
  const sections = packageManifest<{ contributes: { configuration: { properties: Record<string, T> }[] } }>().contributes.configuration;
  return Object.assign({}, ...sections.map((section) => section.properties)) as Record<string, T>;
}

export function tempDir(prefix = 'ledger-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function fixedClock(iso = '2026-01-01T00:00:00.000Z', stepMs = 1000): Clock {
  let time = Date.parse(iso);
  return { now: () => new Date((time += stepMs)) };
}

export async function memoryStore(clock: Clock = fixedClock()): Promise<LedgerStore> {
  return LedgerStore.open(await loadSqlJs(), undefined, clock);
}

/** An artifact version as the CLI prints it with `--format json` (`add`, `show`, `history`, `list`, `export`). */
export interface ArtifactJson {
  id: string;
  chainId: string;
  version: number;
  title: string;
  body: string;
  status: string;
  pinned: boolean;
  scope: string;
  paths: string[];
  tags: string[];
  source: string;
  createdAt: string;
  // What the ledger records about an artifact (src/core/artifactSchema.ts), each only when set.
  adrStatus?: string;
  author?: string;
  review?: string;
  extra: Record<string, unknown>;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `context-ledger` bundle as a real process. */
export function cli(args: string[], options: { cwd?: string; input?: string } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function cliAsync(args: string[], options: { cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export function jsonOf<T>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\nstderr: ${result.stderr}`);
  }
}

/** A seeded PRNG (mulberry32), the one the meaning model uses: the same sequence for the same seed, for corpora and fuzzing. */
export { seededRandom } from '../../src/core/random';
