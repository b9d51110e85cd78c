/**
 * The ledger's entries in an agent's hook configuration, merged into the text of the file a
 * person keeps: added at the end of each event's list, updated in place when the command
 * changed, taken out on uninstall — never a user's own hook removed or reordered, the rest
 * of the file (comments, formatting, other keys) left as it was. A file that does not parse
 * is refused, unchanged. Claude Code, Gemini CLI and Codex share one shape:
 * `{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}`;
 * Copilot CLI's is flat, without matchers:
 * `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "…", "timeoutSec": 10}]}}`.
 */
import { type ParseError, applyEdits, modify, parse, printParseErrorCode } from 'jsonc-parser';
import { UserError } from '../model';
import type { HookAgent, HookEvent } from './agents';

export interface HookEntry {
  /** The agent's event name (`PreToolUse`). */
  eventName: string;
  matcher?: string;
  event: HookEvent;
  command: string;
  /** Seconds the agent gives the command (the hook's own bound is well under it). */
  timeout: number;
}

export interface ConfigChange {
  eventName: string;
  matcher?: string;
  change: 'added' | 'updated' | 'removed';
  command: string;
}

/** The events each agent's configuration gets, with the agent's names and matchers (docs/hooks.md). */
export const INSTALLED_EVENTS: Readonly<Partial<Record<HookAgent, ReadonlyArray<{ eventName: string; matcher?: string; event: HookEvent }>>>> = {
  'claude-code': [
    { eventName: 'SessionStart', matcher: 'startup|resume|clear', event: 'session-start' },
    { eventName: 'SessionStart', matcher: 'compact', event: 'post-compact' },
    { eventName: 'UserPromptSubmit', event: 'prompt' },
    { eventName: 'PreToolUse', matcher: 'Write|Edit|MultiEdit', event: 'pre-write' },
  ],
  'gemini-cli': [
    { eventName: 'SessionStart', event: 'session-start' },
    { eventName: 'BeforeAgent', event: 'prompt' },
    { eventName: 'AfterTool', matcher: 'write_file|replace', event: 'pre-write' },
  ],
  codex: [
    { eventName: 'SessionStart', event: 'session-start' },
    { eventName: 'UserPromptSubmit', event: 'prompt' },
  ],
  // No matcher: the hook itself tells a write (`create`, `edit`) from the rest (agents.ts, writesFile).
  'copilot-cli': [
    { eventName: 'sessionStart', event: 'session-start' },
    { eventName: 'userPromptSubmitted', event: 'prompt' },
    { eventName: 'preToolUse', event: 'pre-write' },
  ],
};

/** Copilot CLI's shape: each event's list holds the hooks themselves, the command under `bash`. */
const isFlat = (agent: HookAgent): boolean => agent === 'copilot-cli';

/** Whether a configured command is the ledger's hook for `agent` (whatever path or prefix runs the CLI). */
export function isLedgerHook(command: unknown, agent: HookAgent): command is string {
  return typeof command === 'string' && new RegExp(`\\bhook (?:session-start|prompt|pre-write|post-compact) --agent ${agent}\\b`).test(command);
}

function eventOf(command: string): string | undefined {
  return /\bhook (session-start|prompt|pre-write|post-compact)\b/.exec(command)?.[1];
}

interface Group {
  matcher?: unknown;
  hooks?: unknown;
  [key: string]: unknown;
}

function readConfig(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new UserError(`${file} does not parse (${printParseErrorCode(first.error)} at line ${line}); nothing was changed.`, 'Fix the file (or move it aside) and run the command again.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`${file} is not a JSON object; nothing was changed.`);
  const hooks = (value as Record<string, unknown>).hooks;
  if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))) {
    throw new UserError(`"hooks" in ${file} is not an object; nothing was changed.`);
  }
  for (const [name, groups] of Object.entries((hooks ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(groups)) throw new UserError(`"hooks.${name}" in ${file} is not a list; nothing was changed.`);
  }
  return value as Record<string, unknown>;
}

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } } as const;

/**
 * Merges `entries` into the configuration `text` (empty: a new file). Returns the new text
 * and what changed; the same text and no change when it is already installed.
 */
export function installHooks(text: string, file: string, agent: HookAgent, entries: readonly HookEntry[]): { text: string; changes: ConfigChange[] } {
  if (isFlat(agent)) return installFlat(text, file, agent, entries);
  const config = readConfig(text, file);
  const hooks = (config.hooks ?? {}) as Record<string, Group[]>;
  let out = text.trim() === '' ? '{}\n' : text;
  const changes: ConfigChange[] = [];
  const byEvent = new Map<string, Group[]>();
  for (const entry of entries) {
    const groups = byEvent.get(entry.eventName) ?? structuredClone(hooks[entry.eventName] ?? []);
    byEvent.set(entry.eventName, groups);
    let found = false;
    for (const group of groups) {
      if (!Array.isArray(group?.hooks)) continue;
      for (const hook of group.hooks as Array<Record<string, unknown>>) {
        if (!isLedgerHook(hook?.command, agent) || eventOf(hook.command) !== entry.event) continue;
        found = true;
        if (hook.command !== entry.command || group.matcher !== entry.matcher) {
          hook.command = entry.command;
          if (entry.matcher === undefined) delete group.matcher;
          else group.matcher = entry.matcher;
          changes.push({ eventName: entry.eventName, ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}), change: 'updated', command: entry.command });
        }
      }
    }
    if (found) continue;
    groups.push({ ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}), hooks: [{ type: 'command', command: entry.command, timeout: entry.timeout }] });
    changes.push({ eventName: entry.eventName, ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}), change: 'added', command: entry.command });
  }
  if (changes.length === 0) return { text, changes };
  for (const [eventName, groups] of byEvent) out = applyEdits(out, modify(out, ['hooks', eventName], groups, FORMAT));
  return { text: out.endsWith('\n') ? out : `${out}\n`, changes };
}

/** The flat shape's install (Copilot CLI): the ledger's hook of each event updated in place, else added at the end. */
function installFlat(text: string, file: string, agent: HookAgent, entries: readonly HookEntry[]): { text: string; changes: ConfigChange[] } {
  const config = readConfig(text, file);
  const hooks = (config.hooks ?? {}) as Record<string, Array<Record<string, unknown>>>;
  let out = text.trim() === '' ? '{}\n' : text;
  const changes: ConfigChange[] = [];
  for (const entry of entries) {
    const list = structuredClone(hooks[entry.eventName] ?? []);
    const mine = list.find((hook) => isLedgerHook(hook?.bash, agent) && eventOf(hook.bash) === entry.event);
    if (mine?.bash === entry.command) continue;
    if (mine) mine.bash = entry.command;
    else list.push({ type: 'command', bash: entry.command, timeoutSec: entry.timeout });
    changes.push({ eventName: entry.eventName, change: mine ? 'updated' : 'added', command: entry.command });
    out = applyEdits(out, modify(out, ['hooks', entry.eventName], list, FORMAT));
  }
  if (changes.length === 0) return { text, changes };
  if (config.version === undefined) out = applyEdits(out, modify(out, ['version'], 1, FORMAT));
  return { text: out.endsWith('\n') ? out : `${out}\n`, changes };
}

/** Takes the ledger's hooks for `agent` out of `text`; a group left with no hook goes, and an event left with no group. */
export function uninstallHooks(text: string, file: string, agent: HookAgent): { text: string; changes: ConfigChange[] } {
  const config = readConfig(text, file);
  const hooks = (config.hooks ?? {}) as Record<string, Group[]>;
  let out = text;
  const changes: ConfigChange[] = [];
  for (const [eventName, original] of Object.entries(hooks)) {
    const groups: Group[] = [];
    let touched = false;
    for (const group of original) {
      if (isFlat(agent)) {
        if (isLedgerHook(group?.bash, agent)) {
          changes.push({ eventName, change: 'removed', command: group.bash });
          touched = true;
        } else groups.push(group);
        continue;
      }
      if (!Array.isArray(group?.hooks)) {
        groups.push(group);
        continue;
      }
      const kept = (group.hooks as Array<Record<string, unknown>>).filter((hook) => {
        if (!isLedgerHook(hook?.command, agent)) return true;
        changes.push({ eventName, ...(typeof group.matcher === 'string' ? { matcher: group.matcher } : {}), change: 'removed', command: hook.command });
        touched = true;
        return false;
      });
      if (kept.length > 0) groups.push({ ...group, hooks: kept });
      else if ((group.hooks as unknown[]).length === 0) groups.push(group);
    }
    if (!touched) continue;
    out = applyEdits(out, modify(out, ['hooks', eventName], groups.length > 0 ? groups : undefined, FORMAT));
  }
  if (changes.length === 0) return { text, changes };
  const after = readConfig(out, file);
  if (after.hooks !== undefined && Object.keys(after.hooks as object).length === 0) out = applyEdits(out, modify(out, ['hooks'], undefined, FORMAT));
  return { text: out, changes };
}
