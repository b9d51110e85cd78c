/**
 * Runs the real agent CLIs that scripts/setup-agents.sh installs under .agents-test/, in a
 * temporary workspace, against a scripted model (modelServer.ts): no network, no API key, and a
 * HOME of its own so a developer's ~/.claude is never read or written.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Keep in step with the versions in scripts/setup-agents.sh. */
export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
export const GEMINI_CLI_VERSION = '0.61.0';
export const COPILOT_CLI_VERSION = '1.0.102';

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
const CODEX_TRIPLE = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-unknown-linux-musl`;

function installed(what: string, folder: string, rel: string): string {
  const bin = path.join(REPO_ROOT, '.agents-test', folder, rel);
  if (!fs.existsSync(bin)) throw new Error(`${what} is not installed at ${bin}: run \`bash scripts/setup-agents.sh\``);
  return bin;
}

/** The Claude Code binary installed by scripts/setup-agents.sh (a native executable). */
export function claudeBinary(): string {
  return installed(`Claude Code ${CLAUDE_CODE_VERSION}`, `claude-code-${CLAUDE_CODE_VERSION}`, `node_modules/@anthropic-ai/claude-code-${PLATFORM}/claude`);
}
/** The Codex binary installed by scripts/setup-agents.sh (a native executable). */
export function codexBinary(): string {
  return installed(`Codex ${CODEX_VERSION}`, `codex-${CODEX_VERSION}`, `node_modules/@openai/codex-${PLATFORM}/vendor/${CODEX_TRIPLE}/bin/codex`);
}
/** Gemini CLI's entry script installed by scripts/setup-agents.sh (runs on the machine's Node). */
export function geminiScript(): string {
  return installed(`Gemini CLI ${GEMINI_CLI_VERSION}`, `gemini-cli-${GEMINI_CLI_VERSION}`, 'node_modules/@google/gemini-cli/bundle/gemini.js');
}

/** The Copilot CLI binary installed by scripts/setup-agents.sh (its platform package's native executable). */
export function copilotBinary(): string {
  return installed(`Copilot CLI ${COPILOT_CLI_VERSION}`, `copilot-cli-${COPILOT_CLI_VERSION}`, `node_modules/@github/copilot-${PLATFORM}/copilot`);
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
  if (options.copyFrom) {
    fs.cpSync(options.copyFrom, dir, { recursive: true, verbatimSymlinks: true });
    makeWritable(dir); // a read-only fixture tree stays read-only in the copy otherwise
  }
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    const full = path.join(dir, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  const workspace = { dir, home, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
  if (options.git) commitAll(workspace);
  return workspace;
}

function makeWritable(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    fs.chmodSync(full, fs.statSync(full).mode | 0o200);
    if (entry.isDirectory()) makeWritable(full);
  }
}

/** Makes the workspace a git repository (if it is not one yet) and commits every file in it, as a clone would be. */
export function commitAll(workspace: Workspace): void {
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: workspace.dir, encoding: 'utf8', env: { ...process.env, HOME: workspace.home, GIT_CONFIG_NOSYSTEM: '1' } });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  };
  if (!fs.existsSync(path.join(workspace.dir, '.git'))) git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '--no-gpg-sign', '--allow-empty', '-m', 'fixture');
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

export interface AgentOptions {
  workspace: Workspace;
  /** The scripted model's base URL (ScriptedModel.url). */
  baseUrl: string;
  prompt: string;
  /** Default 120 s: the agent is killed after it, and the run says so. */
  timeoutMs?: number;
  /** More arguments for the agent (before Codex's prompt, after the others'). */
  args?: string[];
  /** More environment variables (e.g. for a hook under test). */
  env?: Record<string, string>;
}

/** What every agent gets: a PATH, the isolated HOME, a locale; nothing of the caller's agent settings. */
function baseEnv(workspace: Workspace): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workspace.home, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? os.tmpdir() };
}

/**
 * `claude -p <prompt> --permission-mode acceptEdits` in the workspace, against the scripted model,
 * with a fake key and telemetry and non-essential traffic off.
 */
export function runClaude(options: AgentOptions): Promise<AgentRun> {
  const env: Record<string, string> = {
    ...baseEnv(options.workspace),
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

/**
 * `codex exec <prompt>` in the workspace with a model provider `scripted` whose base_url is the
 * scripted model (OpenAI Responses API), a fake key, CODEX_HOME in the isolated HOME, and the
 * workspace-write sandbox so a scripted shell command can write files.
 */
export function runCodex(options: AgentOptions): Promise<AgentRun> {
  const codexHome = path.join(options.workspace.home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  const env: Record<string, string> = { ...baseEnv(options.workspace), CODEX_HOME: codexHome, SCRIPTED_MODEL_KEY: 'scripted-model-not-a-key', ...options.env };
  const provider = `{name="scripted",base_url="${options.baseUrl}/v1",env_key="SCRIPTED_MODEL_KEY",wire_api="responses"}`;
  const args = ['exec', '--skip-git-repo-check', '-s', 'workspace-write', '-m', 'gpt-5.2-codex', '-c', 'model_provider="scripted"', '-c', `model_providers.scripted=${provider}`, ...(options.args ?? []), options.prompt];
  return runProcess(codexBinary(), args, options.workspace.dir, env, options.timeoutMs ?? 120_000);
}

/**
 * `copilot -p <prompt> --allow-all-tools` in the workspace with its own-model mode (BYOK) at the
 * scripted model: the OpenAI provider type over the Responses API, a fake key, and
 * COPILOT_OFFLINE=true (no GitHub sign-in, no other traffic). Its config folder is in the isolated HOME.
 */
export function runCopilot(options: AgentOptions): Promise<AgentRun> {
  const env: Record<string, string> = {
    ...baseEnv(options.workspace),
    XDG_CONFIG_HOME: path.join(options.workspace.home, '.config'),
    XDG_STATE_HOME: path.join(options.workspace.home, '.local', 'state'),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_PROVIDER_BASE_URL: `${options.baseUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: 'scripted-model-not-a-key',
    COPILOT_MODEL: 'scripted-model',
    ...options.env,
  };
  const args = ['-p', options.prompt, '--allow-all-tools', ...(options.args ?? [])];
  return runProcess(copilotBinary(), args, options.workspace.dir, env, options.timeoutMs ?? 120_000);
}

/**
 * `gemini -p <prompt> --approval-mode auto_edit` in the workspace with GOOGLE_GEMINI_BASE_URL at the
 * scripted model, a fake GEMINI_API_KEY, the workspace trusted, a fixed model (no router requests),
 * and usage statistics, telemetry and update checks off in the isolated HOME's settings.
 */
export function runGemini(options: AgentOptions): Promise<AgentRun> {
  const settingsFile = path.join(options.workspace.home, '.gemini', 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    const settings = {
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    };
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  }
  const env: Record<string, string> = {
    ...baseEnv(options.workspace),
    GEMINI_API_KEY: 'scripted-model-not-a-key',
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...options.env,
  };
  const args = [geminiScript(), '-p', options.prompt, '--approval-mode', 'auto_edit', '-m', 'gemini-2.5-flash', ...(options.args ?? [])];
  return runProcess(process.execPath, args, options.workspace.dir, env, options.timeoutMs ?? 120_000);
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
