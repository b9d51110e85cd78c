/**
 * The language-model tools as thin adapters over src/core/agentTools.ts: their manifest
 * entries, the confirmation a person sees before an agent writes, and the text the
 * model reads back. vscode-free, so it is unit-tested on a real store.
 */
import { AGENT_TOOLS, type AgentTool, type AgentToolEnv, toolJsonSchema } from '../../core/agentTools';
import { type Artifact, UserError, artifactUrn, idFromRef } from '../../core/model';
import { isUnreviewed } from '../../core/review';
import type { LedgerStore } from '../../core/store';
import { TOOL_ICONS, TOOL_REFERENCE_NAMES } from './ids';

const SNAKE_TO_LM = new Map(AGENT_TOOLS.map((t) => [t.name, t.lmName]));
const TOOL_NAME_PATTERN = new RegExp(`\\b(${AGENT_TOOLS.map((t) => t.name).join('|')})\\b`, 'g');

/**
 * The core text names tools by their MCP names; in VS Code the model knows them by their
 * language-model names, so guidance written for the model uses those.
 */
export function lmText(text: string): string {
  return text.replace(TOOL_NAME_PATTERN, (name) => SNAKE_TO_LM.get(name) ?? name);
}

export function isWriteTool(tool: AgentTool): boolean {
  return !tool.annotations.readOnlyHint;
}

/** What `contributes.languageModelTools` must hold for `tool` (a unit test keeps package.json equal to it). */
export function languageModelToolContribution(tool: AgentTool): Record<string, unknown> {
  const write = isWriteTool(tool);
  return {
    name: tool.lmName,
    displayName: `Context Ledger: ${tool.title}`,
    toolReferenceName: TOOL_REFERENCE_NAMES[tool.name],
    canBeReferencedInPrompt: true,
    icon: TOOL_ICONS[tool.name],
    userDescription: write
      ? `${tool.title} in the Context Ledger (asks you first; marked unreviewed).`
      : `${tool.title} from the Context Ledger.`,
    modelDescription: lmText(tool.description),
    tags: ['context-ledger', 'knowledge', write ? 'write' : 'read'],
    inputSchema: JSON.parse(lmText(JSON.stringify(toolJsonSchema(tool)))) as unknown,
  };
}

/** Text the model reads for a result: errors name tools as the model knows them. */
export function resultText(result: { text: string; isError?: boolean }): string {
  if (!result.isError) return result.text;
  return lmText(result.text);
}

/**
 * Runs a tool for a language model. The model's mistakes come back from the core as text;
 * a failure inside the ledger becomes text too, so the model can tell the user rather
 * than retry blindly (the error goes to `onBug` for the log).
 */
export async function runForModel(tool: AgentTool, env: AgentToolEnv, input: unknown, onBug?: (error: unknown) => void): Promise<string> {
  try {
    return resultText(await tool.run(env, input));
  } catch (error) {
    onBug?.(error);
    const message = error instanceof Error ? error.message : String(error);
    return `${tool.lmName} failed inside the Context Ledger: ${message}. Nothing was changed; tell the user, and retry at most once.`;
  }
}

// ------------------------------------------------------------------ what the person sees

export interface Confirmation {
  title: string;
  /** Markdown. Agent-supplied text is quoted in code fences, never rendered. */
  message: string;
}

/** A code fence longer than any backtick run in `text`, so agent text cannot break out of it. */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline text with Markdown's special characters escaped and on one line. */
export function inline(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  const cut = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
  return cut.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

const BODY_SHOWN = 1_500;

function bodyExcerpt(body: string): string {
  const chars = Array.from(body);
  return chars.length > BODY_SHOWN ? `${chars.slice(0, BODY_SHOWN).join('')}\n… (${chars.length - BODY_SHOWN} more characters)` : body;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function describeFields(input: Record<string, unknown>, lines: string[]): void {
  const type = str(input.type);
  const scope = str(input.scope) ?? (list(input.paths).length > 0 ? 'path' : undefined);
  if (str(input.title) !== undefined) lines.push(`**Title:** ${inline(str(input.title)!)}`);
  if (type || scope) lines.push(`**Type:** ${inline(type ?? 'unchanged')} · **Scope:** ${inline(scope ?? 'unchanged')}`);
  const paths = list(input.paths);
  if (paths.length > 0) lines.push(`**Paths:** ${paths.slice(0, 10).map((p) => inline(p, 80)).join(', ')}${paths.length > 10 ? ` and ${paths.length - 10} more` : ''}`);
  const tags = list(input.tags);
  if (tags.length > 0) lines.push(`**Tags:** ${tags.slice(0, 10).map((t) => inline(t, 40)).join(', ')}`);
  if (str(input.reason)) lines.push(`**Why:** ${inline(str(input.reason)!, 300)}`);
  if (str(input.body) !== undefined) lines.push('', fenced(bodyExcerpt(str(input.body)!), 'markdown'));
}

function targetLine(store: LedgerStore | undefined, ref: string, verb: string): string {
  const id = idFromRef(ref);
  let target: Artifact | undefined;
  try {
    target = store?.findArtifact(ref);
  } catch (error) {
    // A title several artifacts share: the tool answers with their ids and writes nothing.
    if (error instanceof UserError) return `${verb} \`${inline(id, 80)}\` (${error.message} The tool will say so and write nothing).`;
    throw error;
  }
  if (!target) return `${verb} \`${inline(id, 80)}\` (not found: the tool will say so and write nothing).`;
  const latest = store!.latestOfChain(target.chainId) ?? target;
  const review = isUnreviewed(latest) ? ', unreviewed' : '';
  return `${verb} ${latest.type} **${inline(latest.title)}** (\`${artifactUrn(latest.id)}\`, version ${latest.version}${review}).`;
}

/**
 * The confirmation for an agent's write, or undefined when nothing will be written
 * (a read-only tool, or arguments the tool will refuse: it then answers the model with
 * the reason and writes nothing, so there is nothing to confirm).
 * `store` (when given) names the artifact a version or supersession targets.
 */
export function confirmationFor(tool: AgentTool, input: unknown, store?: LedgerStore): Confirmation | undefined {
  if (!isWriteTool(tool)) return undefined;
  const parsed = tool.inputSchema.safeParse(input ?? {});
  if (!parsed.success) return undefined;
  const data: Record<string, unknown> = parsed.data;
  const lines: string[] = [];
  let title: string;
  switch (tool.name) {
    case 'create_artifact':
      title = `Record a ${String(data.type)} in the Context Ledger?`;
      lines.push('An agent wants to add this to the project knowledge that later tasks and agents receive.');
      break;
    case 'propose_version':
      title = 'Record a new version in the Context Ledger?';
      lines.push(targetLine(store, String(data.id), 'An agent wants to revise'), 'The earlier versions are kept. Changed fields:');
      break;
    case 'propose_supersession':
      title = 'Replace an artifact in the Context Ledger?';
      lines.push(
        targetLine(store, String(data.supersedes), 'An agent wants to supersede'),
        'The old artifact leaves the context (its history is kept). The replacement:',
      );
      break;
    default:
      title = `${tool.title} in the Context Ledger?`;
  }
  // Outside a chat the workbench shows this as plain text in a dialog, so no emphasis around
  // the note, and the body (a fence) comes last, where nothing can run into it.
  lines.push('It is saved as unreviewed: approve or reject it later in the Needs Review view.', '');
  describeFields(data, lines);
  return { title, message: lines.join('\n') };
}

/** The progress line shown while a tool runs. */
export function invocationMessage(tool: AgentTool, input: unknown): string {
  const data = (input !== null && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const short = (value: unknown, max = 60) => {
    const text = str(value)?.replace(/\s+/g, ' ').trim() ?? '';
    const chars = Array.from(text);
    return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
  };
  switch (tool.name) {
    case 'build_context':
      return short(data.task) ? `Building project context for "${short(data.task)}"` : 'Building project context';
    case 'get_artifact':
      return `Reading ${short(data.id, 80) || 'an artifact'} from the Context Ledger`;
    case 'search_artifacts':
      return short(data.query) ? `Searching the Context Ledger for "${short(data.query)}"` : 'Listing Context Ledger artifacts';
    case 'create_artifact':
      return `Recording "${short(data.title)}" in the Context Ledger`;
    case 'propose_version':
      return `Recording a new version of ${short(data.id, 80)}`;
    case 'propose_supersession':
      return `Replacing ${short(data.supersedes, 80)} in the Context Ledger`;
    default:
      return `${tool.title}`;
  }
}
