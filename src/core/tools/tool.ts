/** The agent tools' common ground: what a surface supplies, the limits, the schema pieces and `defineTool`. */
import { z } from 'zod';
import { type PartialOptions, redactOutgoing, type RedactionPolicy } from '../assemble';
import { ARTIFACT_TYPES, type Artifact, type ArtifactInput, type ArtifactType, SCOPES, type TokenizerName, UserError, URN_PREFIX } from '../model';
import { type AgentChannel } from '../review';
import { type LedgerStore } from '../store';
import type { LiveSourcesRequest } from '../sources/report';

// ------------------------------------------------------------------ environment

/** Store access as the surface provides it: always the freshest state, writes under the lock. */
export interface LedgerAccess {
  /** Runs `fn` on the freshest data; `fn` must not write. */
  read<T>(fn: (store: LedgerStore) => T | Promise<T>): Promise<T>;
  /** Runs synchronous `fn` under the write lock on the freshest data and persists the result. */
  write<T>(fn: (store: LedgerStore) => T): Promise<T>;
}

export interface AgentToolEnv {
  ledger: LedgerAccess;
  /** How the agent reached us; recorded on what it writes and in the assembly log. */
  channel: AgentChannel;
  /** Who is calling, when the surface knows (MCP clientInfo.name, the chat model id). */
  agent?: string;
  /** Absolute workspace folder (forward slashes), so absolute paths an agent sends can be made relative. */
  workspaceRoot?: string;
  defaultBudget?: number;
  tokenizer?: TokenizerName;
  assembleOptions?: PartialOptions;
  /** Paths the editor knows are in play (open editors, recent edits); added to the agent's own. */
  activePaths?(): string[] | Promise<string[]>;
  /** Secrets matching these are never masked (the `redactAllow` setting). */
  redactAllow?: readonly string[];
  /** Live sources for the task (the editor's code, diagnostics, chat, ...), when the surface has them and they are on. */
  liveSources?(task: { title: string; description: string; labels: readonly string[] }): Promise<LiveSourcesRequest | undefined>;
  /** Which rule files and artifacts apply to a workspace-relative file (reads the workspace, so only surfaces with files offer it). */
  which?(path: string, artifacts: readonly Artifact[]): Promise<string> | string;
  /** Reports how far a long call got (MCP progress notifications). */
  progress?(done: number, total: number, message: string): void;
  /** True once the caller gave up on this call: stop before doing more work, write nothing. */
  cancelled?(): boolean;
  /**
   * The answer as this surface hands it over, when more than its text reaches the model
   * (MCP: the serialized tool result): build_context fits all of it within the budget.
   */
  delivered?: (result: AgentToolResult) => string;
}

export interface AgentToolResult {
  /** What the model reads. */
  text: string;
  /** The call failed; `text` says why and how to call again. */
  isError?: boolean;
  /** Machine-readable detail (MCP structuredContent, chat references): matches the tool's outputSchema. */
  data?: Record<string, unknown>;
}

export interface AgentToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface AgentTool {
  /** MCP tool name (snake_case). */
  name: string;
  /** VS Code language-model tool name (`contributes.languageModelTools[].name`). */
  lmName: string;
  title: string;
  /** Model-facing: when to call it and what comes back. */
  description: string;
  inputSchema: z.ZodObject;
  /** What `data` holds when the call succeeds (MCP outputSchema). */
  outputSchema: z.ZodObject;
  annotations: AgentToolAnnotations;
  /** Validates `input` (anything the model sent) and runs the tool; never throws for the model's mistakes. */
  run(env: AgentToolEnv, input: unknown): Promise<AgentToolResult>;
}

// ------------------------------------------------------------------ limits

/** An artifact longer than the default budget can never be injected whole; agents should split. */
export const MAX_AGENT_BODY_CHARS = 32_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_SUMMARY_CHARS = 600;
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 60;
export const MAX_PATHS = 50;
export const MAX_PATH_CHARS = 300;
export const MAX_TASK_CHARS = 20_000;
export const MIN_BUDGET = 100;

/** Agents may write every type but `constitution`: rules are injected into every context, so only a person adds them. */
export const AGENT_ARTIFACT_TYPES = ARTIFACT_TYPES.filter((t) => t !== 'constitution') as [ArtifactType, ...ArtifactType[]];

// ------------------------------------------------------------------ schema pieces

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `a ${typeof value}`;
}

export function text(what: string, max: number, options: { min?: number } = {}) {
  const min = options.min ?? 0;
  return z
    .string({ error: (issue) => (issue.input === undefined ? `required: ${what}.` : `must be text (${what}), not ${describeValue(issue.input)}.`) })
    .refine((value) => value.trim().length >= min, { error: `must not be empty: ${what}.` })
    .refine((value) => value.length <= max, {
      error: (issue) =>
        `is ${String((issue.input as string).length)} characters; the limit is ${max}. ${max >= 10_000 ? 'Record one fact per artifact: split it, or summarise and name the files instead of pasting them.' : 'Shorten it.'}`,
    });
}

export function stringList(what: string, maxItems: number, maxChars: number) {
  return z
    .array(
      z
        .string({ error: (issue) => `must be text (${what}), not ${describeValue(issue.input)}.` })
        .max(maxChars, { error: `is longer than ${maxChars} characters.` }),
      { error: (issue) => `must be a list of strings (${what}), not ${describeValue(issue.input)}.` },
    )
    .max(maxItems, { error: `has more than ${maxItems} entries.` });
}

export const typeSchema = z.enum(AGENT_ARTIFACT_TYPES, {
  error: (issue) =>
    issue.input === 'constitution'
      ? 'cannot be "constitution": rules are injected into every context, so only a person adds them. Record it as a convention or decision and ask the user to promote it.'
      : `${issue.input === undefined ? 'is required' : `${describeValue(issue.input)} is not a type`}. Use one of: ${AGENT_ARTIFACT_TYPES.join(', ')}.`,
});

export const scopeSchema = z.enum(SCOPES, {
  error: (issue) => `${describeValue(issue.input)} is not a scope. Use global (applies everywhere), path (applies to the files in "paths") or task (the active task only).`,
});

// A whole item's heading in build_context's text carries no id (render.ts fullBlock): its title is a reference too.
export const refSchema = text(`an artifact id, its URN ${URN_PREFIX}<id>, or its title as build_context shows it`, 400, { min: 1 });

export const agentSchema = text('your name, e.g. claude-code or copilot; recorded as the source', 80).optional();

export const pathsDescription =
  'Workspace-relative files or globs this knowledge is about, e.g. ["src/api/**", "package.json"]. With paths and no scope, the scope is "path": it is offered when those files are in play.';

export const artifactFields = {
  title: text('a short, specific title on one line', MAX_TITLE_CHARS, { min: 1 }).describe(
    'A short, specific title on one line, e.g. "Retry uploads with exponential backoff, max 5 tries".',
  ),
  body: text('the Markdown body', MAX_AGENT_BODY_CHARS, { min: 1 }).describe(
    `Markdown. One fact, decision or pattern per artifact, with the why. At most ${MAX_AGENT_BODY_CHARS} characters.`,
  ),
  scope: scopeSchema.optional().describe('global (default), path (needs "paths") or task (the active task).'),
  paths: stringList('workspace-relative globs', MAX_PATHS, MAX_PATH_CHARS).optional().describe(pathsDescription),
  tags: stringList('short keywords', MAX_TAGS, MAX_TAG_CHARS).optional().describe('A few keywords, e.g. ["uploads", "retries"].'),
  summary: text('a one-paragraph summary', MAX_SUMMARY_CHARS).optional().describe('Optional short form, used when the budget only allows a preview.'),
  agent: agentSchema.describe('Your name (e.g. claude-code, copilot); recorded as the source.'),
  // Artifact fields by the artifact schema's names (src/core/artifactSchema.ts); `agent` becomes `source` and `proposedBy`.
} satisfies Partial<Record<keyof ArtifactInput, z.ZodType>> & { agent: z.ZodType };

// ------------------------------------------------------------------ validation and errors

export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  return out;
}

/** The zod issues as a short list a model can act on. */
export function formatIssues(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issuePath(issue.path);
    return `- ${where === '' ? 'arguments' : where}: ${issue.message}`;
  });
  return [`Invalid arguments for ${toolName}:`, ...lines, `Fix ${error.issues.length === 1 ? 'it' : 'them'} and call ${toolName} again.`].join('\n');
}

/**
 * A tool's arguments: unknown keys are refused, not dropped. A model that sends `path`
 * for `paths` would otherwise get an answer that silently ignored what it meant.
 */
export function args<T extends z.core.$ZodLooseShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; this tool takes: ${known.join(', ')}.`
        : issue.code === 'invalid_type'
          ? `must be an object of named arguments, not ${describeValue(issue.input)}.`
          : undefined,
  });
}

export function errorResult(message: string): AgentToolResult {
  return { text: message, isError: true };
}

export function defineTool<S extends z.ZodObject>(spec: {
  name: string;
  lmName: string;
  title: string;
  description: string;
  inputSchema: S;
  outputSchema: z.ZodObject;
  annotations: AgentToolAnnotations;
  handler(env: AgentToolEnv, input: z.output<S>): Promise<AgentToolResult>;
}): AgentTool {
  return {
    name: spec.name,
    lmName: spec.lmName,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema,
    annotations: spec.annotations,
    async run(env, input) {
      const parsed = spec.inputSchema.safeParse(input ?? {});
      if (!parsed.success) return redactOutgoing(errorResult(formatIssues(spec.name, parsed.error)), redaction(env));
      try {
        // Every answer leaves through here: its text and structured data are masked as a whole.
        return redactOutgoing(await spec.handler(env, parsed.data), redaction(env));
      } catch (error) {
        // The model's mistakes (unknown id, bad glob) come back as text it can act on; bugs keep propagating.
        if (error instanceof UserError) return redactOutgoing(errorResult(error.hint ? `${error.message} ${error.hint}` : error.message), redaction(env));
        throw error;
      }
    },
  };
}

/** The surface's redaction settings: the tools' answers are masked as its builds are. */
export function redaction(env: AgentToolEnv): RedactionPolicy {
  return { redact: env.assembleOptions?.redact, redactAllow: env.redactAllow ?? env.assembleOptions?.redactAllow ?? [] };
}
