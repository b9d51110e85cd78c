import type * as vscode from 'vscode';
import type { Services } from '../services';

/**
 * Entry point for the agent-loop features (owned by the agent-loop engineer).
 * Called once from activate(); push every disposable onto `context.subscriptions`.
 */
export function registerAgentFeatures(_context: vscode.ExtensionContext, _services: Services): void {
  // Intentionally empty until the agent-loop features land.
}
