import * as vscode from 'vscode';
import type { LogInput } from '../../core/sources';

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
  private readonly outputs = new Map<vscode.TerminalShellExecution, Promise<string>>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a command failed: the context may have something new to say. */
  readonly onDidRecordFailure = this.changed.event;

  constructor() {
    // Feature-detected: a host without the API (or a web host without terminals) has no events.
    const window = vscode.window as Partial<typeof vscode.window>;
    if (typeof window.onDidStartTerminalShellExecution === 'function') {
      this.disposables.push(window.onDidStartTerminalShellExecution((event) => this.outputs.set(event.execution, readOutput(event.execution))));
    }
    if (typeof window.onDidEndTerminalShellExecution === 'function') {
      this.disposables.push(window.onDidEndTerminalShellExecution((event) => void this.ended(event)));
    }
    this.disposables.push(this.changed);
  }

  /** Recent failures of commands run in `folder` (or whose folder the shell did not report), newest first. */
  recent(folder: vscode.WorkspaceFolder, now = Date.now()): LogInput[] {
    const inside = (uri: vscode.Uri | undefined): boolean => {
      if (!uri) return true;
      const base = folder.uri.path.endsWith('/') ? folder.uri.path : `${folder.uri.path}/`;
      return uri.scheme === folder.uri.scheme && (uri.path === folder.uri.path || uri.path.startsWith(base));
    };
    return this.failures
      .filter((f) => inside(f.cwd) && now - Date.parse(f.endedAt ?? '') <= MAX_AGE_MS)
      .map(({ cwd: _cwd, ...input }) => input)
      .reverse();
  }

  private async ended(event: vscode.TerminalShellExecutionEndEvent): Promise<void> {
    const pending = this.outputs.get(event.execution);
    this.outputs.delete(event.execution);
    // Undefined means the shell did not report one: not evidence of a failure.
    if (event.exitCode === undefined || event.exitCode === 0) return;
    const text = pending ? await pending : '';
    this.failures.push({
      origin: 'terminal',
      label: event.execution.commandLine.value,
      text,
      exitCode: event.exitCode,
      endedAt: new Date().toISOString(),
      ...(event.execution.cwd ? { cwd: event.execution.cwd } : {}),
    });
    if (this.failures.length > MAX_FAILURES) this.failures.splice(0, this.failures.length - MAX_FAILURES);
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.outputs.clear();
    this.failures.length = 0;
  }
}

/** A command's output as it streams, kept from its end; resolves when the command ends. */
async function readOutput(execution: vscode.TerminalShellExecution): Promise<string> {
  let text = '';
  try {
    for await (const data of execution.read()) {
      text += data;
      if (text.length > 2 * MAX_OUTPUT_CHARS) text = text.slice(text.length - MAX_OUTPUT_CHARS);
    }
  } catch {
    // The terminal went away mid-read: what was read stands.
  }
  return text.length > MAX_OUTPUT_CHARS ? text.slice(text.length - MAX_OUTPUT_CHARS) : text;
}
