import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './paths';

// ---------------------------------------------------------------------------
// The packaged extension and the sample workspace
// ---------------------------------------------------------------------------

/** Where packageExtension() writes the .vsix (the same file `npm run package` writes). */
export const VSIX_PATH: string = path.join(REPO_ROOT, 'test-output', 'context-ledger.vsix');
/** The bundled CLI (built by packageExtension()). */
export const CLI_PATH: string = path.join(REPO_ROOT, 'dist', 'cli.js');

/** Everything that goes into the .vsix; a change to any of it means packaging again. */
const PACKAGE_INPUTS = ['src', 'media', 'package.json', 'package-lock.json', 'esbuild.config.mjs', '.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE'];

function hashInputs(): string {
  const hash = createHash('sha256');
  const visit = (rel: string): void => {
    const abs = path.join(REPO_ROOT, rel);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) visit(path.join(rel, name));
    } else {
      hash.update(`${rel}\0`).update(fs.readFileSync(abs)).update('\0');
    }
  };
  for (const input of PACKAGE_INPUTS) visit(input);
  return hash.digest('hex');
}

function runNode(args: string[], cwd: string = REPO_ROOT): string {
  return execFileSync(process.execPath, args, { cwd, stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

let packaged: string | undefined;

/**
 * Builds the production bundle and the .vsix exactly as `npm run package` does, once:
 * every test file runs in its own process, so the result is cached on disk, keyed by a
 * hash of everything that goes into the package (a stamp file next to the .vsix). The
 * first test file of a run packages; the others reuse it while nothing changed.
 */
export function packageExtension(): string {
  if (packaged) return packaged;
  const stamp = `${VSIX_PATH}.inputs`;
  const inputs = hashInputs();
  const fresh =
    fs.existsSync(VSIX_PATH) &&
    fs.existsSync(CLI_PATH) &&
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, 'utf8') === inputs &&
    // `npm run build` (development) rewrites dist/: the CLI the tests call must still be the packaged one.
    fs.statSync(CLI_PATH).mtimeMs <= fs.statSync(VSIX_PATH).mtimeMs;
  if (!fresh) {
    const t0 = Date.now();
    fs.rmSync(stamp, { force: true });
    runNode(['esbuild.config.mjs', '--production']);
    fs.mkdirSync(path.dirname(VSIX_PATH), { recursive: true });
    runNode([path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--out', VSIX_PATH]);
    fs.writeFileSync(stamp, inputs);
    console.log(`packaged ${path.relative(REPO_ROOT, VSIX_PATH)} in ${Date.now() - t0} ms`);
  }
  packaged = VSIX_PATH;
  return packaged;
}

/** Runs the bundled CLI (`dist/cli.js`) with `args`; returns its standard output. */
export function runCli(args: string[], cwd: string = REPO_ROOT): string {
  return runNode([CLI_PATH, ...args], cwd);
}

export interface SampleWorkspace {
  /** The workspace folder (a copy of sample/workspace). */
  workspace: string;
  /** Its ledger database. */
  db: string;
}

/**
 * Copies sample/workspace to `<dir>/workspace` without its ledger or generated files, and
 * seeds a fresh ledger with sample/knowledge.jsonl through the CLI. Call packageExtension()
 * first: it builds the CLI.
 */
export function seedSampleWorkspace(dir: string): SampleWorkspace {
  const workspace = path.join(dir, 'workspace');
  fs.cpSync(path.join(REPO_ROOT, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  const db = path.join(workspace, '.context-ledger', 'ledger.db');
  const imported = runCli(['import', path.join('sample', 'knowledge.jsonl'), '--db', db]);
  if (!/[1-9]\d* added/.test(imported)) throw new Error(`seeding the sample ledger failed: ${imported}`);
  return { workspace, db };
}

/**
 * The lines of the extension's "Context Ledger" log (its LogOutputChannel), which the
 * extension host writes under `<userDataDir>/logs/<session>/exthost*`. Empty until written.
 */
export function extensionLogLines(userDataDir: string, channel = 'Context Ledger'): string[] {
  const logs = path.join(userDataDir, 'logs');
  const found: string[] = [];
  const visit = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(abs);
      else if (entry.name === `${channel}.log`) found.push(abs);
    }
  };
  visit(logs);
  return found.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== ''));
}

