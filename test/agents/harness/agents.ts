/**
 * Runs the real agent CLIs that scripts/setup-agents.sh installs under .agents-test/, in a
 * temporary workspace, against a scripted model (modelServer.ts): no network, no API key, and a
 * HOME of its own so a developer's ~/.claude is never read or written.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Keep in step with CLAUDE_CODE_VERSION in scripts/setup-agents.sh. */
export const CLAUDE_CODE_VERSION = '2.1.332';

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'setup-agents.sh'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`agents harness: cannot find the repository root above ${start}`);
    dir = parent;
  }
}

/** The repository root (works from test/agents/harness/*.ts and from out/test/agents/harness/*.js). */
export const REPO_ROOT: string = findRepoRoot(__dirname);
/** The product's CLI as built by `npm run build`. */
export const CLI_PATH: string = path.join(REPO_ROOT, 'dist', 'cli.js');

const PLATFORM = `${process.platform}-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;

/** The Claude Code binary installed by scripts/setup-agents.sh; a clear error when it is missing. */
export function claudeBinary(): string {
  const bin = path.join(REPO_ROOT, '.agents-test', `claude-code-${CLAUDE_CODE_VERSION}`, 'node_modules', '@anthropic-ai', `claude-code-${PLATFORM}`, 'claude');
  if (!fs.existsSync(bin)) throw new Error(`Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${bin}: run \`bash scripts/setup-agents.sh\``);
  return bin;
}

export interface Workspace {
  /** The project folder the agent runs in. */
  readonly dir: string;
  /** The agent's HOME (its ~/.claude lives here, never the user's). */
  readonly home: string;
  /** Removes both. */
  dispose(): void;
}

export interface WorkspaceOptions {
  /** Files to write, by workspace-relative path (folders are made). */
  files?: Record<string, string>;
  /** A folder whose contents are copied in first (symbolic links are kept as links). */
  copyFrom?: string;
  /** Run `git init` and commit the files, as a real project would be (default false). */
  git?: boolean;
}

/** A fresh project folder and HOME under the system temp folder. */
export function createWorkspace(options: WorkspaceOptions = {}): Workspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-agents-'));
  const dir = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(dir);
  fs.mkdirSync(home);
  if (options.copyFrom) fs.cpSync(options.copyFrom, dir, { recursive: true, verbatimSymlinks: true });
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    const full = path.join(dir, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  if (options.git) {
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
      if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    };
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '--no-gpg-sign', '-m', 'fixture');
  }
  return { dir, home, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export interface AgentRun {
  /** The exit code (null when killed). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the run was killed at its timeout. */
  timedOut: boolean;
  ms: number;
}

export interface ClaudeOptions {
  workspace: Workspace;
  /** The scripted model's base URL (ScriptedModel.url). */
  baseUrl: string;
  prompt: string;
  /** Default 120 s: the agent is killed after it, and the run says so. */
  timeoutMs?: number;
  /** More arguments after `-p <prompt> --permission-mode acceptEdits`. */
  args?: string[];
  /** More environment variables (e.g. for a hook under test). */
  env?: Record<string, string>;
}

/**
 * `claude -p <prompt> --permission-mode acceptEdits` in the workspace, against the scripted model.
 * The environment is built from scratch (PATH, a fake key, the base URL, telemetry and
 * non-essential traffic off), so nothing of the caller's Anthropic settings leaks in.
 */
export function runClaude(options: ClaudeOptions): Promise<AgentRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.workspace.home,
    LANG: 'C.UTF-8',
    TMPDIR: process.env.TMPDIR ?? os.tmpdir(),
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-model-not-a-key',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...options.env,
  };
  const args = ['-p', options.prompt, '--permission-mode', 'acceptEdits', ...(options.args ?? [])];
  return runProcess(claudeBinary(), args, options.workspace.dir, env, options.timeoutMs ?? 120_000);
}

function runProcess(bin: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<AgentRun> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the scripted model answers from this same process.
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - t0 });
    });
  });
}
