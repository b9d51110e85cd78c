/**
 * `context-ledger hooks install|uninstall <agent> [--shared]`: puts the ledger's hooks into
 * (or takes them out of) the agent's project configuration, and prints what it changed
 * (src/node/hooks/agentHooks.ts, the same path the VS Code offer takes). By default the
 * person's own, uncommitted settings, with a command that runs this very CLI's hook client by
 * absolute path (nothing needs to be on PATH); `--shared` the committed settings, with a
 * command every teammate's machine can run (docs/hooks.md says why this one).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOK_AGENTS, isHookAgent } from '../core/hooks/agents';
import type { ConfigChange } from '../core/hooks/hookConfig';
import { UserError } from '../core/model';
import { AFTER_INSTALL, HOOK_CONFIG_FILES, changeAgentHooks, shellQuote } from '../node/hooks/agentHooks';
import { type Command, type CommandContext, isJson, printJson, workspaceOf } from './commandContext';

/**
 * The command that runs this CLI's hooks: by absolute path, through the hook client beside the
 * CLI (dist/hook.cjs: the same arguments, a fraction of the start-up; docs/hooks.md), or
 * (`--shared`) the CLI by name.
 */
function runner(shared: boolean): string {
  if (shared) return 'context-ledger';
  const main = require.main?.filename;
  const script = main !== undefined && path.basename(main) === 'cli.js' ? main : process.argv[1];
  if (script === undefined) return 'context-ledger';
  const client = path.join(path.dirname(path.resolve(script)), 'hook.cjs');
  return `${shellQuote(process.execPath)} ${shellQuote(fs.existsSync(client) ? client : path.resolve(script))}`;
}

function describe(change: ConfigChange): string {
  const where = change.matcher !== undefined ? `${change.eventName} (${change.matcher})` : change.eventName;
  return `  ${change.change} ${where}: ${change.command}`;
}

function change(context: CommandContext, install: boolean): void {
  const [, agent] = context.positionals;
  if (agent === undefined || !isHookAgent(agent)) throw new UserError(`Name the agent: one of ${HOOK_AGENTS.join(', ')}.`, 'For example `context-ledger hooks install claude-code`.');
  const shared = context.options.shared === true;
  const report = changeAgentHooks(workspaceOf(context), { agent, install, shared, runner: runner(shared) });
  const { relative, changes } = report;
  if (isJson(context)) return printJson(context, { file: report.file, changes, ...(install ? { ledger: !report.noLedger } : {}) });
  if (changes.length === 0) context.out(install ? `${relative}: the ledger's hooks for ${agent} are in place already; nothing changed.` : `${relative}: no hook of the ledger's for ${agent}; nothing changed.`);
  else context.out([`${relative}:`, ...changes.map(describe)].join('\n'));
  if (report.excluded) context.out(`Listed ${relative} in .git/info/exclude, so git leaves it out.`);
  if (install && !shared && changes.length > 0) context.out(`Yours alone (${relative} is not committed). \`hooks install ${agent} --shared\` writes ${HOOK_CONFIG_FILES[agent]?.shared ?? relative} for the whole team.`);
  if (install && changes.length > 0 && AFTER_INSTALL[agent] !== undefined) context.out(AFTER_INSTALL[agent]);
  if (report.noLedger) context.err(`No ledger here yet: the hooks add nothing until there is one. Bring in the knowledge this project keeps with \`context-ledger import-folder\`.`);
}

export const hooksCommand: Command = {
  name: 'hooks',
  summary: "Install or uninstall the ledger's hooks in an agent's project settings (Claude Code, Gemini CLI, Codex).",
  usage: `context-ledger hooks install|uninstall <${HOOK_AGENTS.join('|')}> [--shared]`,
  positionals: [2, 2],
  options: {
    shared: { type: 'boolean', description: 'The committed settings (e.g. .claude/settings.json), with a command every teammate can run; default: your own uncommitted settings.' },
  },
  details: 'Merges into the settings file: never removes or reorders your own hooks, refuses a file it cannot parse, prints what it changed. Reference: docs/hooks.md.',
  run(context) {
    const [action] = context.positionals;
    if (action !== 'install' && action !== 'uninstall') throw new UserError(`Unknown action "${action ?? ''}".`, 'Use `hooks install <agent>` or `hooks uninstall <agent>`.');
    change(context, action === 'install');
    return Promise.resolve();
  },
};
