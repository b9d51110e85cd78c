import * as vscode from 'vscode';
import { UserError } from '../core/model';

/** The "Context Ledger" output channel (a LogOutputChannel, so the user picks the level). */
export class Logger implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;

  constructor(name = 'Context Ledger') {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  trace(message: string): void {
    this.channel.trace(message);
  }

  debug(message: string): void {
    this.channel.debug(message);
  }

  info(message: string): void {
    this.channel.info(message);
  }

  warn(message: string): void {
    this.channel.warn(message);
  }

  /** Logs an error: a UserError as its message, anything else with its stack. */
  error(what: string, error: unknown): void {
    if (error instanceof UserError) this.channel.warn(`${what}: ${error.message}${error.hint ? ` (${error.hint})` : ''}`);
    else if (error instanceof Error) this.channel.error(`${what}: ${error.stack ?? error.message}`);
    else this.channel.error(`${what}: ${String(error)}`);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
