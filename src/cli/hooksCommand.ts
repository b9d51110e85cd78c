/**
 * `context-ledger hooks install|uninstall <agent> [--shared]`: puts the ledger's hooks into
 * (or takes them out of) the agent's project configuration, and prints what it changed.
 * By default the person's own, uncommitted settings, with a command that runs this very CLI
 * by absolute path (nothing needs to be on PATH); `--shared` the committed settings, with a
 * command every teammate's machine can run (docs/hooks.md says why this one).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOOK_AGENTS, type HookAgent, isHookAgent } from '../core/hooks/agents';
import { type ConfigChange, INSTALLED_EVENTS, installHooks, uninstallHooks } from '../core/hooks/hookConfig';
import { UserError } from '../core/model';
import { defaultDatabasePath } from '../node/files';
import { excludeFromGit } from '../node/git';
import { mirrorHasFiles } from '../node/artifactFolder';
import { type Command, type CommandContext, isJson, printJson, workspaceOf } from './commandContext';

/**
 * How long each agent lets the hook command run, in its own unit (Claude Code: seconds,
 * Gemini CLI: milliseconds): 10 s, far above the hook's own 4 s bound, so the agent never
 * kills it mid-answer.
 */
const AGENT_TIMEOUT: Readonly<Partial<Record<HookAgent, number>>> = { 'claude-code': 10, 'gemini-cli': 10_000 };

/**
 * Where each agent reads project hooks: the person's own file, and the committed one. Gemini
 * CLI has one project file for both: yours is it kept out of git; a committed one takes `--shared`.
 */
const CONFIG_FILES: Readonly<Partial<Record<HookAgent, { local: string; shared: string }>>> = {
  'claude-code': { local: '.claude/settings.local.json', shared: '.claude/settings.json' },
  'gemini-cli': { local: '.gemini/settings.json', shared: '.gemini/settings.json' },
};

const UNSUPPORTED: Readonly<Partial<Record<HookAgent, string>>> = {
  codex: 'Codex 0.171 runs a project hook only after a person trusts it in its /hooks view, and never in `codex exec`: not verified to reach the model here yet',
  'copilot-cli': "Copilot CLI does not pass a hook's output to the model (only a preToolUse permission decision is read)",
};

/** POSIX shell quoting: the agents run hook commands through a shell. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs this CLI: by absolute path, or (`--shared`) by name, doing nothing where it is not installed. */
function cliCommand(shared: boolean): string {
  if (shared) return 'context-ledger';
  const main = require.main?.filename;
  const script = main !== undefined && path.basename(main) === 'cli.js' ? main : process.argv[1];
  if (script === undefined) return 'context-ledger';
  return `${shellQuote(process.execPath)} ${shellQuote(path.resolve(script))}`;
}

function hookCommandLine(agent: HookAgent, event: string, shared: boolean): string {
  const line = `${cliCommand(shared)} hook ${event} --agent ${agent}`;
  // A teammate without the CLI on PATH: the hook does nothing, silently, instead of an error in every session.
  return shared ? `command -v context-ledger >/dev/null 2>&1 && ${line} || true` : line;
}

function describe(change: ConfigChange): string {
  const where = change.matcher !== undefined ? `${change.eventName} (${change.matcher})` : change.eventName;
  return `  ${change.change} ${where}: ${change.command}`;
}

/** Refuses to follow a link out of the workspace for the file it writes. */
function refuseLinks(workspace: string, file: string): void {
  for (let at = file; at.startsWith(workspace) && at !== workspace; at = path.dirname(at)) {
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) throw new UserError(`${path.relative(workspace, at)} is a symbolic link; nothing was changed.`, 'Hooks are written only to a real file inside the project.');
  }
}

function change(context: CommandContext, install: boolean): void {
  const [, agent] = context.positionals;
  if (agent === undefined || !isHookAgent(agent)) throw new UserError(`Name the agent: one of ${HOOK_AGENTS.join(', ')}.`, 'For example `context-ledger hooks install claude-code`.');
  const files = CONFIG_FILES[agent];
  const entries = INSTALLED_EVENTS[agent];
  if (!files || !entries) throw new UserError(`Hooks for ${agent} are not installed by this version: ${UNSUPPORTED[agent] ?? 'not supported'}.`, 'docs/hooks.md lists what each agent supports; its MCP server (`context-ledger mcp`) works with every agent.');
  const shared = context.options.shared === true;
  const workspace = workspaceOf(context);
  const relative = shared ? files.shared : files.local;
  const file = path.join(workspace, relative);
  refuseLinks(workspace, file);
  // One file for both: a committed one must not get this machine's absolute paths.
  if (install && !shared && files.local === files.shared && fs.existsSync(file) && excludeFromGit(workspace, relative, "the person's own agent settings, not for commits") === 'tracked') {
    throw new UserError(`${relative} is committed: your own hooks would carry this machine's paths to the team; nothing was changed.`, `Run \`context-ledger hooks install ${agent} --shared\` to change the committed file for everyone.`);
  }
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const result = install
    ? installHooks(
        before,
        relative,
        agent,
        entries.map((e) => ({ ...e, command: hookCommandLine(agent, e.event, shared), timeout: AGENT_TIMEOUT[agent] ?? 10 })),
      )
    : uninstallHooks(before, relative, agent);
  let hidden: string | undefined;
  if (result.changes.length > 0) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, result.text);
    // The person's own settings stay out of commits, as the agent itself keeps them (Claude Code ignores settings.local.json in git).
    if (!shared && install && excludeFromGit(workspace, relative, "the person's own agent settings, not for commits") === 'excluded') hidden = relative;
  }
  const ledger = defaultDatabasePath(workspace);
  const noLedger = install && !ledger.found && !mirrorHasFiles(ledger.file);
  if (isJson(context)) return printJson(context, { file, changes: result.changes, ...(install ? { ledger: !noLedger } : {}) });
  if (result.changes.length === 0) context.out(install ? `${relative}: the ledger's hooks for ${agent} are in place already; nothing changed.` : `${relative}: no hook of the ledger's for ${agent}; nothing changed.`);
  else context.out([`${relative}:`, ...result.changes.map(describe)].join('\n'));
  if (hidden !== undefined) context.out(`Listed ${hidden} in .git/info/exclude, so git leaves it out.`);
  if (install && !shared && result.changes.length > 0) context.out(`Yours alone (${relative} is not committed). \`hooks install ${agent} --shared\` writes ${files.shared} for the whole team.`);
  if (noLedger) context.err(`No ledger here yet: the hooks add nothing until there is one. Bring in the knowledge this project keeps with \`context-ledger import-folder\`.`);
}

export const hooksCommand: Command = {
  name: 'hooks',
  summary: "Install or uninstall the ledger's hooks in an agent's project settings (Claude Code, Gemini CLI).",
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
