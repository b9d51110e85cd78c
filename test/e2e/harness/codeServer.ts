import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { CODE_SERVER_ENTRY, CODE_SERVER_NODE, DEFAULT_SETTINGS, OUTPUT_DIR, TIMEOUTS, VSCODE_FLAVOUR } from './paths';
import { sleep } from './util';

// ---------------------------------------------------------------------------
// code-server
// ---------------------------------------------------------------------------

export interface CodeServerOptions {
  /** Folder opened in the workbench. */
  workspace: string;
  /** --extensions-dir: unpacked extensions (folders named publisher.name-version) or where a .vsix is installed. */
  extensionsDir: string;
  /** --user-data-dir: user settings live in <userDataDir>/User/settings.json. */
  userDataDir: string;
  /** A packaged extension to install (`--install-extension`) before the server starts. */
  vsixPath?: string;
  /** Extra user settings, merged over DEFAULT_SETTINGS. */
  settings?: Record<string, unknown>;
  /** Where the server log is written; defaults to OUTPUT_DIR/code-server-<port>.log. */
  logFile?: string;
  /** Extra environment for the server (and so for the extension host). */
  env?: NodeJS.ProcessEnv;
  /**
   * false: open the workspace untrusted (Restricted Mode). Workspace trust is then on, with
   * no startup prompt, so the folder stays untrusted for the whole session. Default true
   * (trust off: everything runs as in a trusted workspace).
   */
  trusted?: boolean;
}

export interface CodeServer {
  url: string;
  port: number;
  /** The server's process id, also its process group: the extension host and the processes it starts are in the group. */
  pid: number;
  logFile: string;
  /** The last lines the server printed (for error messages). */
  recentOutput(): string;
  stop(): Promise<void>;
}

function assertInstalled(): void {
  for (const file of [CODE_SERVER_ENTRY, CODE_SERVER_NODE]) {
    if (!fs.existsSync(file)) {
      throw new Error(`code-server (${VSCODE_FLAVOUR}) is not installed: ${file} is missing; run: E2E_VSCODE=${VSCODE_FLAVOUR} bash scripts/setup-e2e.sh`);
    }
  }
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Installs a .vsix into extensionsDir with code-server's own CLI. */
export async function installVsix(vsixPath: string, extensionsDir: string, userDataDir: string): Promise<string> {
  assertInstalled();
  if (!fs.existsSync(vsixPath)) {
    throw new Error(`installVsix: no such file ${vsixPath}`);
  }
  const args = [
    CODE_SERVER_ENTRY,
    '--extensions-dir', extensionsDir,
    '--user-data-dir', userDataDir,
    '--install-extension', path.resolve(vsixPath),
    '--force',
  ];
  return new Promise((resolve, reject) => {
    execFile(CODE_SERVER_NODE, args, { timeout: TIMEOUTS.serverStart, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      if (err || !/successfully installed/i.test(out)) {
        reject(new Error(`installing ${vsixPath} failed: ${err ? err.message : ''}\n${out}`));
      } else {
        resolve(out.trim());
      }
    });
  });
}

/** Settings that turn workspace trust on without asking, so a fresh folder opens in Restricted Mode. */
export const RESTRICTED_MODE_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'always',
  'security.workspace.trust.emptyWindow': false,
};

/** Writes <userDataDir>/User/settings.json: DEFAULT_SETTINGS plus `settings`. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): string {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
  return file;
}

/**
 * A key that toggles the light and the dark theme (`workbench.preferred{Dark,Light}ColorTheme`,
 * Default Dark/Light Modern). A key, not the palette nor the settings file: it works while a
 * quick pick is open and leaves it open (the palette would close it; code-server did not apply an
 * edit of settings.json made behind its back within 30 s).
 */
export const THEME_TOGGLE_KEY = 'Control+Alt+Shift+F9';

/** Writes <userDataDir>/User/keybindings.json: THEME_TOGGLE_KEY. */
function writeUserKeybindings(userDataDir: string): void {
  const file = path.join(userDataDir, 'User', 'keybindings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify([{ key: 'ctrl+alt+shift+f9', command: 'workbench.action.toggleLightDarkThemes' }], null, 2));
}

/**
 * Starts code-server on a free 127.0.0.1 port (no auth) and resolves when it answers HTTP.
 * The server runs in its own process group; stop() ends the whole group (extension host included).
 */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  assertInstalled();
  for (const dir of [options.workspace, options.extensionsDir, options.userDataDir, OUTPUT_DIR]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  if (options.vsixPath) {
    await installVsix(options.vsixPath, options.extensionsDir, options.userDataDir);
  }
  writeUserKeybindings(options.userDataDir);
  writeUserSettings(options.userDataDir, options.trusted === false ? { ...RESTRICTED_MODE_SETTINGS, ...options.settings } : options.settings);

  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    try {
      return await launch(options, port);
    } catch (err) {
      lastError = err instanceof Error ? err : new Error(String(err));
      // Only a lost race for the port is worth another try.
      if (!/EADDRINUSE/.test(lastError.message)) {
        throw lastError;
      }
    }
  }
  throw lastError ?? new Error('startCodeServer failed');
}

export async function launch(options: CodeServerOptions, port: number): Promise<CodeServer> {
  const logFile = options.logFile ?? path.join(OUTPUT_DIR, `code-server-${port}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.createWriteStream(logFile);
  const recent: string[] = [];
  const remember = (chunk: Buffer): void => {
    log.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) {
        recent.push(line);
      }
    }
    if (recent.length > 80) {
      recent.splice(0, recent.length - 80);
    }
  };
  const recentOutput = (): string => recent.join('\n');

  const args = [
    CODE_SERVER_ENTRY,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    // Without the flag code-server follows security.workspace.trust.* (see RESTRICTED_MODE_SETTINGS).
    ...(options.trusted === false ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--extensions-dir', options.extensionsDir,
    '--user-data-dir', options.userDataDir,
    options.workspace,
  ];
  const child: ChildProcess = spawn(CODE_SERVER_NODE, args, {
    cwd: options.workspace,
    detached: true, // own process group, so stop() can end the extension host and pty host too
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // A private config file: code-server otherwise writes ~/.config/code-server/config.yaml.
      XDG_CONFIG_HOME: path.join(options.userDataDir, 'xdg-config'),
      ...options.env,
    },
  });
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);

  let exited: string | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exited = `code-server exited (code ${String(code)}, signal ${String(signal)})`;
      resolve();
    });
  });

  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) {
      return;
    }
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) {
      return;
    }
    stopped = true;
    if (exited === undefined) {
      killGroup('SIGTERM');
      const done = await Promise.race([exitPromise.then(() => true), sleep(5_000).then(() => false)]);
      if (!done) {
        killGroup('SIGKILL');
        await Promise.race([exitPromise, sleep(2_000)]);
      }
    }
    // Stragglers (extension host) may outlive the parent for a moment.
    killGroup('SIGKILL');
    await new Promise<void>((resolve) => log.end(resolve));
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + TIMEOUTS.serverStart;
  for (;;) {
    if (exited !== undefined) {
      await stop();
      throw new Error(`${exited} before answering HTTP on ${url}. Log ${logFile}:\n${recentOutput()}`);
    }
    const status = await httpStatus(`${url}/healthz`);
    if (status >= 200 && status < 500) {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${url} within ${TIMEOUTS.serverStart} ms. Log ${logFile}:\n${recentOutput()}`);
    }
    await sleep(250);
  }
  return { url, port, pid: child.pid ?? 0, logFile, recentOutput, stop };
}

