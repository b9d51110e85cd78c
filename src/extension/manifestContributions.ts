/**
 * The parts of package.json's `contributes` that are generated from the code that registers
 * them, so the manifest cannot drift from it: `npm run build` (esbuild.config.mjs) writes them
 * into package.json, and a unit test fails if the committed file differs. vscode-free.
 *
 * The language-model tools, each entry (and its `inputSchema`, from the same zod schema the tool
 * validates its input with) as `languageModelToolContribution` makes it; the commands and menus
 * from commandContributions.ts, whose keys are the registered commands.
 */
import { AGENT_TOOLS } from '../core/agentTools';
import { languageModelToolContribution } from './agent/lmToolModel';
import { commandsContribution, menusContribution } from './commandContributions';

export interface GeneratedContributes {
  languageModelTools: Record<string, unknown>[];
  commands: ReturnType<typeof commandsContribution>;
  menus: ReturnType<typeof menusContribution>;
}

export function generatedContributes(): GeneratedContributes {
  return { languageModelTools: AGENT_TOOLS.map(languageModelToolContribution), commands: commandsContribution(), menus: menusContribution() };
}
