/**
 * Putting the ledger's hooks into an agent's project configuration, and taking them out: the
 * one code path behind `context-ledger hooks install|uninstall` (src/cli/hooksCommand.ts) and
 * the VS Code offer (src/extension/agent/hooksOffer.ts). Merges into the file a person keeps
 * (src/core/hooks/hookConfig.ts), never follows a link out of the workspace, keeps the person's
 * own file out of git, and reports what it changed for the caller to say.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type HookAgent, noOutput } from '../../core/hooks/agents';
import { type ConfigChange, INSTALLED_EVENTS, installHooks, isLedgerHook, uninstallHooks } from '../../core/hooks/hookConfig';
import { UserError } from '../../core/model';
import { defaultDatabasePath, writeFileInside } from '../files';
import { excludeFromGit } from '../git';
import { mirrorHasFiles } from '../artifactFolder';

/**
 * How long each agent lets the hook command run, in its own unit (Claude Code and Codex:
 * seconds, Gemini CLI: milliseconds): 10 s, far above the hook's own 4 s bound, so the agent
 * never kills it mid-answer.
 */
const AGENT_TIMEOUT: Readonly<Partial<Record<HookAgent, number>>> = { 'claude-code': 10, codex: 10, 'gemini-cli': 10_000, 'copilot-cli': 10 };

/**
 * Where each agent reads project hooks: the person's own file, and the committed one. Gemini
 * CLI and Codex have one project file for both: yours is it kept out of git; a committed one
 * takes `--shared`.
 */
export const HOOK_CONFIG_FILES: Readonly<Partial<Record<HookAgent, { local: string; shared: string }>>> = {
  'claude-code': { local: '.claude/settings.local.json', shared: '.claude/settings.json' },
  'gemini-cli': { local: '.gemini/settings.json', shared: '.gemini/settings.json' },
  codex: { local: '.codex/hooks.json', shared: '.codex/hooks.json' },
  // Copilot CLI reads every `.github/hooks/*.json`: the ledger's hooks get a file of their own.
  'copilot-cli': { local: '.github/hooks/context-ledger.json', shared: '.github/hooks/context-ledger.json' },
};

/**
 * What the person must still do before the agent runs the hooks. Codex runs a project's hooks
 * only in a project the person trusts, and each hook only once the person has reviewed it (by
 * its hash, so a changed command is reviewed again): neither is the ledger's to decide for them.
 */
export const AFTER_INSTALL: Readonly<Partial<Record<HookAgent, string>>> = {
  codex: "Codex runs them once you trust this project (when Codex asks, or `codex exec --trust` once here) and approve each hook in Codex's /hooks view; until then it skips them.",
  'copilot-cli': 'Copilot CLI runs a repository’s hooks in a folder you trusted when it asked; `copilot -p` runs them only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true.',
};

export const UNSUPPORTED: Readonly<Partial<Record<HookAgent, string>>> = {};

export interface HookChange {
  agent: HookAgent;
  install: boolean;
  shared: boolean;
  /** The command that runs the hook client, before `hook <event> --agent <agent>` (shell words, quoted). */
  runner: string;
  /**
   * A file the runner needs that may go away (the VS Code extension's copy of the hook client,
   * removed with the extension): the command checks it is there first and otherwise does nothing.
   */
  guard?: string;
}

export interface HookChangeReport {
  /** The configuration file, absolute, and as the workspace names it. */
  file: string;
  relative: string;
  changes: ConfigChange[];
  /** The file was listed in `.git/info/exclude` (the person's own settings). */
  excluded: boolean;
  /** Installed where there is no ledger yet: the hooks add nothing until there is one. */
  noLedger: boolean;
}

/** POSIX shell quoting: the agents run hook commands through a shell. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function hookCommandLine(change: HookChange, event: string): string {
  const line = `${change.runner} hook ${event} --agent ${change.agent}`;
  // A teammate without the CLI on PATH: the hook does nothing, silently, instead of an error in every session.
  if (change.shared) return `command -v context-ledger >/dev/null 2>&1 && ${line} || true`;
  if (change.guard === undefined) return line;
  // Without the client the agent still reads its no-op (Gemini CLI parses stdout as JSON).
  const none = noOutput(change.agent);
  return `[ -f ${shellQuote(change.guard)} ] && ${line} || ${none === '' ? 'true' : `printf '%s' ${shellQuote(none)}`}`;
}

/** Refuses to follow a link out of the workspace for the file it writes. */
function refuseLinks(workspace: string, file: string): void {
  for (let at = file; at.startsWith(workspace) && at !== workspace; at = path.dirname(at)) {
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) throw new UserError(`${path.relative(workspace, at)} is a symbolic link; nothing was changed.`, 'Hooks are written only to a real file inside the project.');
  }
}

function configFiles(agent: HookAgent): { local: string; shared: string } {
  const files = HOOK_CONFIG_FILES[agent];
  if (!files || !INSTALLED_EVENTS[agent]) throw new UserError(`Hooks for ${agent} are not installed by this version: ${UNSUPPORTED[agent] ?? 'not supported'}.`, 'docs/hooks.md lists what each agent supports; its MCP server (`context-ledger mcp`) works with every agent.');
  return files;
}

/** Whether the ledger's hooks for `agent` are in the person's own file or the committed one (an unreadable file counts as not). */
export function hooksInstalled(workspace: string, agent: HookAgent): boolean {
  const files = HOOK_CONFIG_FILES[agent];
  if (!files) return false;
  return [files.local, files.shared].some((relative) => {
    try {
      return fs.readFileSync(path.join(workspace, relative), 'utf8').split('\n').some((line) => isLedgerHook(line, agent));
    } catch {
      return false;
    }
  });
}

/** Installs or uninstalls the ledger's hooks for one agent in `workspace`; throws a UserError (nothing changed) on a file it cannot take. */
export function changeAgentHooks(workspace: string, change: HookChange): HookChangeReport {
  const { agent, install, shared } = change;
  const files = configFiles(agent);
  const entries = INSTALLED_EVENTS[agent]!;
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
        entries.map((e) => ({ ...e, command: hookCommandLine(change, e.event), timeout: AGENT_TIMEOUT[agent] ?? 10 })),
      )
    : uninstallHooks(before, relative, agent);
  let excluded = false;
  if (result.changes.length > 0) {
    // Whole or not at all: the agent may read its settings at this moment, and they are the person's own.
    const mode = fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : undefined;
    writeFileInside(workspace, file, result.text, relative, { durable: true, mode });
    // The person's own settings stay out of commits, as the agent itself keeps them (Claude Code ignores settings.local.json in git).
    if (!shared && install) excluded = excludeFromGit(workspace, relative, "the person's own agent settings, not for commits") === 'excluded';
  }
  const ledger = defaultDatabasePath(workspace);
  return { file, relative, changes: result.changes, excluded, noLedger: install && !ledger.found && !mirrorHasFiles(ledger.file) };
}
