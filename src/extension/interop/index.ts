import type * as vscode from 'vscode';
import type { Services } from '../services';

/**
 * Entry point for the import/export interop features (owned by the interop engineer).
 * Called once from activate(); push every disposable onto `context.subscriptions`.
 */
export function registerInteropFeatures(_context: vscode.ExtensionContext, _services: Services): void {
  // Intentionally empty until the interop features land.
}
