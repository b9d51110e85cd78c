import * as vscode from 'vscode';
import type { LogInput } from '../../core/sources';
import type { Logger } from '../logger';

/** Failed commands kept per window: the freshest evidence, not a history. */
const MAX_FAILURES = 10;
/** Output kept per command, from its end (where the error is). */
const MAX_OUTPUT_CHARS = 256 * 1024;
/** A failure older than this is no longer "what just failed". */
const MAX_AGE_MS = 4 * 60 * 60 * 1000;

interface Failure extends LogInput {
  /** The folder the command ran in, when the shell said. */
  cwd?: vscode.Uri;
}

/**
 * Commands that failed in this window's integrated terminals, read through the shell
 * integration API (VS Code 1.93+): each command's line, exit code and output. Only the
 * terminals of this window are read, and only while the extension runs; nothing is stored.
 * Without shell integration (a shell VS Code cannot instrument) there is simply nothing here.
 */
export class TerminalFailures implements vscode.Disposable {
  private readonly failures: Failure[] = [];
  private readonly outputs = new Map<vscode.TerminalShellExecution, OutputReader>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a command failed: the context may have something new to say. */
  readonly onDidRecordFailure = this.changed.event;

  constructor(private readonly logger?: Logger) {
    // Feature-detected: a host without the API (or a web host without terminals) has no events.
    const window = vscode.window as Partial<typeof vscode.window>;
    if (typeof window.onDidStartTerminalShellExecution === 'function') {
      this.disposables.push(window.onDidStartTerminalShellExecution((event) => this.outputs.set(event.execution, new OutputReader(event.execution))));
    }
    if (typeof window.onDidEndTerminalShellExecution === 'function') {
      this.disposables.push(window.onDidEndTerminalShellExecution((event) => void this.ended(event)));
    }
    this.disposables.push(this.changed);
  }

  /**
   * Recent failures for `folder`, newest first: commands whose working folder is inside it,
   * and commands run elsewhere or where the shell did not say (they are still this window's).
   * Paths are compared without the scheme: a remote host may report `vscode-remote:` folders.
   */
  recent(folder: vscode.WorkspaceFolder, now = Date.now()): LogInput[] {
    const folders = (vscode.workspace.workspaceFolders ?? [folder]).map((f) => withSlash(f.uri.path));
    const own = withSlash(folder.uri.path);
    const belongs = (cwd: vscode.Uri | undefined): boolean => {
      if (!cwd) return true;
      const at = withSlash(cwd.path);
      const home = folders.filter((f) => at.startsWith(f)).sort((a, b) => b.length - a.length)[0];
      return home === undefined || home === own;
    };
    return this.failures
      .filter((f) => belongs(f.cwd) && now - Date.parse(f.endedAt ?? '') <= MAX_AGE_MS)
      .map(({ cwd: _cwd, ...input }) => input)
      .reverse();
  }

  private async ended(event: vscode.TerminalShellExecutionEndEvent): Promise<void> {
    const reader = this.outputs.get(event.execution);
    this.outputs.delete(event.execution);
    // Undefined means the shell did not report one: not evidence of a failure.
    if (event.exitCode === undefined || event.exitCode === 0) return;
    const text = reader ? await reader.settled(OUTPUT_SETTLE_MS) : '';
    this.failures.push({
      origin: 'terminal',
      label: event.execution.commandLine.value,
      text,
      exitCode: event.exitCode,
      endedAt: new Date().toISOString(),
      ...(event.execution.cwd ? { cwd: event.execution.cwd } : {}),
    });
    if (this.failures.length > MAX_FAILURES) this.failures.splice(0, this.failures.length - MAX_FAILURES);
    this.logger?.info(`Recorded a failed terminal command (exit ${event.exitCode}, ${text.length} characters of output) for the logs source.`);
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.outputs.clear();
    this.failures.length = 0;
  }
}

function withSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

/** How long after a command ends its output may still be arriving: the stream can close after the end event. */
const OUTPUT_SETTLE_MS = 1000;

/** A command's output as it streams, kept from its end. */
class OutputReader {
  private text = '';
  private readonly done: Promise<void>;

  constructor(execution: vscode.TerminalShellExecution) {
    this.done = this.read(execution);
  }

  private async read(execution: vscode.TerminalShellExecution): Promise<void> {
    try {
      for await (const data of execution.read()) {
        this.text += data;
        if (this.text.length > 2 * MAX_OUTPUT_CHARS) this.text = this.text.slice(this.text.length - MAX_OUTPUT_CHARS);
      }
    } catch {
      // The terminal went away mid-read: what was read stands.
    }
  }

  /** The output once the stream has closed, or what arrived within `waitMs` if it has not. */
  async settled(waitMs: number): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return this.text.length > MAX_OUTPUT_CHARS ? this.text.slice(this.text.length - MAX_OUTPUT_CHARS) : this.text;
  }
}
