import * as vscode from 'vscode';
import { guarded } from '../errors';
import { COMMANDS, INSPECTOR_VIEW_TYPE } from '../ids';
import { lazily } from '../lazy';
import type { Services } from '../services';

/**
 * The Context Inspector: the command that opens it (also the status-bar meter's click and
 * the "Show details" of "Build agent context") and the serializer that restores it. The
 * panel's code, and the watcher of the agents' own files it shows, load when it first opens.
 */
export function registerInspector(context: vscode.ExtensionContext, services: Services): void {
  const controller = lazily(async () => {
    const [{ AgentFileReader }, { InspectorController }] = await Promise.all([import('./agentFileReader.js'), import('./inspectorPanel.js')]);
    const files = new AgentFileReader();
    const created = new InspectorController(services, files);
    context.subscriptions.push(files, created);
    return created;
  });
  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, { deserializeWebviewPanel: async (panel) => (await controller()).deserializeWebviewPanel(panel) }),
    vscode.commands.registerCommand(COMMANDS.openInspector, guarded(services.logger, 'Opening the Context Inspector', async () => (await controller()).open())),
  );
}
