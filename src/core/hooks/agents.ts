/**
 * The agents whose hooks the ledger serves, read as each one speaks: the payload it sends a
 * hook on stdin, the output it reads back on stdout, the hook events its configuration names,
 * and the most context one hook answer may carry before the agent cuts it.
 * Sources and what was verified against each real binary: docs/hooks.md.
 */

export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini-cli', 'copilot-cli'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/**
 * The moments of an agent's loop the ledger speaks at:
 * - `session-start`: the standing knowledge and the files already in play;
 * - `prompt`: the context for the prompt, minus what the session already received;
 * - `pre-write`: before a file is written or edited, the rules and notes scoped to it;
 * - `post-compact`: after the conversation was compacted, what still applies.
 */
export const HOOK_EVENTS = ['session-start', 'prompt', 'pre-write', 'post-compact'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export function isHookAgent(value: string): value is HookAgent {
  return (HOOK_AGENTS as readonly string[]).includes(value);
}

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

/** What the ledger needs of a hook payload, whatever agent sent it. */
export interface HookPayload {
  sessionId?: string;
  /** The agent's working folder (absolute). */
  cwd?: string;
  prompt?: string;
  /** The file a write or edit is about to change, as the agent named it (absolute or relative to `cwd`). */
  filePath?: string;
  toolName?: string;
  /** Why a session started: `startup`, `resume`, `clear` or `compact` (Claude Code's `source`, Gemini's `trigger`). */
  source?: string;
}

function text(value: unknown, max = 200_000): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The payload's fields, read tolerantly: a field of the wrong type is absent. Claude Code,
 * Codex and Gemini CLI send snake_case (`session_id`, `tool_input.file_path`); Copilot CLI
 * sends camelCase (`sessionId`, `toolArgs`, a JSON string or an object).
 */
export function readPayload(raw: unknown): HookPayload {
  const p = record(raw);
  let toolInput = record(p.tool_input ?? p.toolInput);
  const args = p.toolArgs ?? p.tool_args;
  if (Object.keys(toolInput).length === 0 && typeof args === 'string') {
    try {
      toolInput = record(JSON.parse(args));
    } catch {
      // Not JSON: no file to read from it.
    }
  } else if (Object.keys(toolInput).length === 0) toolInput = record(args);
  const out: HookPayload = {};
  const sessionId = text(p.session_id ?? p.sessionId, 300);
  if (sessionId) out.sessionId = sessionId;
  const cwd = text(p.cwd, 4096);
  if (cwd) out.cwd = cwd;
  const prompt = text(p.prompt ?? p.user_prompt);
  if (prompt) out.prompt = prompt;
  const filePath = text(toolInput.file_path ?? toolInput.path ?? toolInput.filePath ?? toolInput.absolute_path, 4096);
  if (filePath) out.filePath = filePath;
  const toolName = text(p.tool_name ?? p.toolName, 200);
  if (toolName) out.toolName = toolName;
  const source = text(p.source ?? p.trigger, 100);
  if (source) out.source = source;
  return out;
}

/**
 * The agent's name for each event the ledger handles (absent: the agent has no such hook that
 * carries context). Gemini CLI's `BeforeTool` cannot add context (verified with 0.61.0): its
 * `AfterTool` appends it to the write's result, so Gemini hears a file's rules just after the
 * write, in time for the next edit.
 */
export const AGENT_EVENT_NAMES: Readonly<Record<HookAgent, Partial<Record<HookEvent, string>>>> = {
  'claude-code': { 'session-start': 'SessionStart', prompt: 'UserPromptSubmit', 'pre-write': 'PreToolUse', 'post-compact': 'SessionStart' },
  codex: { 'session-start': 'SessionStart', prompt: 'UserPromptSubmit' },
  'gemini-cli': { 'session-start': 'SessionStart', prompt: 'BeforeAgent', 'pre-write': 'AfterTool' },
  'copilot-cli': { 'session-start': 'sessionStart', prompt: 'userPromptSubmitted', 'pre-write': 'preToolUse' },
};

/**
 * The tools that write a file, for an agent whose hook configuration cannot name them: Copilot
 * CLI's `preToolUse` has no matcher and runs before every tool (reading a file included), and
 * its file tools are `create` and `edit` (its hooks reference). The others' matchers pick the tools.
 */
const WRITE_TOOLS: Readonly<Partial<Record<HookAgent, readonly string[]>>> = { 'copilot-cli': ['create', 'edit'] };

/** Whether a `pre-write` hook of `agent` for `toolName` is about a file being written. */
export function writesFile(agent: HookAgent, toolName: string | undefined): boolean {
  const tools = WRITE_TOOLS[agent];
  return tools === undefined || (toolName !== undefined && tools.includes(toolName));
}

/** Whether the agent hears of a written file's rules before the write, or just after it. */
export function writeMoment(agent: HookAgent): 'before' | 'after' {
  return agent === 'gemini-cli' ? 'after' : 'before';
}

/**
 * Events whose context the agent keeps for one turn only: Gemini CLI appends `BeforeAgent`'s
 * context "to the prompt for this turn only" (its hooks reference), so what a prompt got is not
 * in the conversation at the next prompt and may be given again.
 */
export function forgetsAtNextPrompt(agent: HookAgent): readonly HookEvent[] {
  return agent === 'gemini-cli' ? ['prompt'] : [];
}

/**
 * The most characters of context one hook answer may carry. Claude Code saves an
 * `additionalContext` over 10,000 characters to a file and hands the model a 2 KB preview
 * (measured with 2.1.328, /work/shared/agents/NOTES.md); the others are held to the same
 * bound until measured otherwise.
 */
export const CONTEXT_CHAR_LIMIT: Readonly<Record<HookAgent, number>> = {
  'claude-code': 10_000,
  codex: 10_000,
  'gemini-cli': 10_000,
  'copilot-cli': 10_000,
};

/** What the agent reads as "nothing to add". */
export function noOutput(agent: HookAgent): string {
  // Gemini CLI parses stdout as JSON on exit 0; the others take an empty stdout as no output.
  return agent === 'gemini-cli' ? '{}' : '';
}

/** The agent's hook output carrying `context` for `event` (its no-op when there is nothing to add). */
export function hookOutput(agent: HookAgent, event: HookEvent, context: string): string {
  const eventName = AGENT_EVENT_NAMES[agent][event];
  if (context === '' || eventName === undefined) return noOutput(agent);
  // Copilot CLI reads `additionalContext` at the top (checked with 1.0.102: its `hookSpecificOutput` is not read).
  if (agent === 'copilot-cli') return JSON.stringify({ additionalContext: context });
  // Only context: a PreToolUse answer without `permissionDecision` leaves the write to the agent's own permission rules.
  return JSON.stringify({ hookSpecificOutput: { hookEventName: eventName, additionalContext: context } });
}
