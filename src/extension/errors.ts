import * as vscode from 'vscode';
import { UserError } from '../core/model';
import type { Logger } from './logger';

export interface ErrorAction {
  title: string;
  run(): unknown;
}

/**
 * Logs an error and shows it: a UserError as its message and hint (the user can fix
 * it), anything else as "<what> failed" with a button to the log.
 */
export async function showError(logger: Logger, what: string, error: unknown, actions: ErrorAction[] = []): Promise<void> {
  logger.error(what, error);
  const message =
    error instanceof UserError
      ? `${error.message}${error.hint ? ` ${error.hint}` : ''}`
      : `${what} failed: ${error instanceof Error ? error.message : String(error)}`;
  const showLog: ErrorAction = { title: 'Show Log', run: () => logger.show() };
  const all = [...actions, showLog];
  const picked = await vscode.window.showErrorMessage(message, ...all.map((a) => a.title));
  await all.find((a) => a.title === picked)?.run();
}

/** Wraps a command handler: errors are caught, logged and shown, never thrown at the workbench. */
export function guarded<A extends unknown[]>(logger: Logger, what: string, fn: (...args: A) => unknown): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (error) {
      if (error instanceof vscode.CancellationError) return;
      await showError(logger, what, error);
    }
  };
}
