import * as vscode from 'vscode';
import { guarded } from '../errors';
import { COMMANDS } from '../ids';
import type { Services } from '../services';
import { AgentFileReader } from './agentFileReader';
import { InspectorController } from './inspectorPanel';

/**
 * The Context Inspector: the command that opens it (also the status-bar meter's click and
 * the "Show details" of "Build agent context") and the serializer that restores it.
 */
export function registerInspector(context: vscode.ExtensionContext, services: Services): void {
  const files = new AgentFileReader();
  const controller = new InspectorController(services, files);
  context.subscriptions.push(
    files,
    controller,
    vscode.commands.registerCommand(COMMANDS.openInspector, guarded(services.logger, 'Opening the Context Inspector', () => controller.open())),
  );
}
