/**
 * JSON-RPC at the edge: every frame a client sends is checked here before the SDK sees it,
 * so that every request with an id gets an answer (JSON-RPC 2.0 §5), with the code the
 * specification gives and a message a client author can act on, never a schema dump.
 */
import { type JSONRPCMessage, ProtocolErrorCode as ErrorCode, specTypeSchemas } from '@modelcontextprotocol/server';
import { MCP_TOOLS } from '../../core/agentTools';

/**
 * An error answered as it is: the SDK sends `code` and `message` of what a handler throws.
 * (The SDK's own McpError writes "MCP error <code>:" into its message, and clients add that
 * prefix again when they show it.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** MCP's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

type RequestId = string | number;

export interface ErrorReply {
  jsonrpc: '2.0';
  /** Absent when the frame's id could not be read (MCP 2025-11-25 leaves it out rather than null). */
  id?: RequestId;
  error: { code: number; message: string };
}

export function errorReply(id: RequestId | undefined, code: number, message: string): ErrorReply {
  return { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } };
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/** What is used of a spec schema (the SDK's zod schemas, typed as Standard Schemas). */
type ParamSchema = { safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ path: PropertyKey[]; code: string; expected?: unknown; message: string }> } } };

/** Request schemas of the methods this server serves: their params are checked here, in words. */
const PARAM_SCHEMAS = {
  initialize: specTypeSchemas.InitializeRequest,
  'server/discover': specTypeSchemas.DiscoverRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
  'resources/subscribe': specTypeSchemas.SubscribeRequest,
  'resources/unsubscribe': specTypeSchemas.UnsubscribeRequest,
  'subscriptions/listen': specTypeSchemas.SubscriptionsListenRequest,
  'prompts/list': specTypeSchemas.ListPromptsRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'completion/complete': specTypeSchemas.CompleteRequest,
  'logging/setLevel': specTypeSchemas.SetLevelRequest,
} as unknown as Record<string, ParamSchema>;

/** The first problem with a request's params, as one sentence naming the field. */
function paramsProblem(method: string, params: unknown): string | undefined {
  if (method === 'tools/call') return malformedToolCall(params);
  const schema = PARAM_SCHEMAS[method];
  if (!schema) return undefined;
  const parsed = schema.safeParse({ method, ...(params !== undefined ? { params } : {}) });
  if (parsed.success) return undefined;
  const issue = parsed.error!.issues[0]!;
  const field = issue.path.map(String).join('.');
  let value: unknown = { params };
  for (const key of issue.path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (issue.code === 'invalid_type' && value === undefined) {
    return `${method} needs "${field}"${typeof issue.expected === 'string' ? ` (${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`})` : ''}.`;
  }
  if (issue.code === 'invalid_type' && typeof issue.expected === 'string') return `"${field}" of ${method} must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}, not ${kindOf(value)}.`;
  return `"${field}" of ${method} is not valid: ${issue.message.replace(/^Invalid input: /, '')}.`;
}

/** A malformed tools/call (no name, arguments that are not an object) in words a client author can act on. */
function malformedToolCall(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'tools/call needs "params": {"name": <tool name>, "arguments": {...}}.';
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return `tools/call needs "params.name", the tool's name (one of ${MCP_TOOLS.map((t) => t.name).join(', ')}).`;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return `"params.arguments" of tools/call must be an object of named arguments, not ${kindOf(args)}.`;
  }
  return undefined;
}

/** What to do with one frame: hand the message on, answer an error, or (a bad notification) only log it. */
export type FrameVerdict = { message: JSONRPCMessage } | { reply: ErrorReply } | { ignore: string };

/** Checks one parsed frame (the JSON value of one line). */
export function checkFrame(frame: unknown): FrameVerdict {
  if (Array.isArray(frame)) {
    return { reply: errorReply(undefined, ErrorCode.InvalidRequest, 'Batches (a JSON list of messages) are not part of MCP since 2025-06-18: send one message per line.') };
  }
  if (typeof frame !== 'object' || frame === null) {
    return { reply: errorReply(undefined, ErrorCode.InvalidRequest, `A message must be a JSON object, not ${kindOf(frame)}.`) };
  }
  const m = frame as Record<string, unknown>;
  const hasId = 'id' in m && m.id !== undefined;
  const id = isId(m.id) ? m.id : undefined;
  const invalid = (message: string): FrameVerdict => (hasId || 'method' in m === false ? { reply: errorReply(id, ErrorCode.InvalidRequest, message) } : { ignore: message });
  if (m.jsonrpc !== '2.0') return invalid(`Every message needs "jsonrpc": "2.0", not ${m.jsonrpc === undefined ? 'nothing' : JSON.stringify(m.jsonrpc)}.`);
  if (hasId && id === undefined) return invalid(`"id" must be a string or a number, not ${kindOf(m.id)}.`);
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return invalid(`"method" must be a method name (a string), not ${kindOf(m.method)}.`);
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) {
      return invalid(`"params" of ${m.method} must be an object of named parameters, not ${kindOf(m.params)}.`);
    }
    if (id !== undefined) {
      const problem = paramsProblem(m.method, m.params);
      if (problem !== undefined) return { reply: errorReply(id, ErrorCode.InvalidParams, problem) };
    }
  } else if (!('result' in m) && !('error' in m)) {
    return invalid('A message needs a "method" (a request or a notification), or a "result" or an "error" (a response).');
  }
  const parsed = (specTypeSchemas.JSONRPCMessage as unknown as ParamSchema).safeParse(frame);
  if (!parsed.success) return invalid('The message is not a JSON-RPC 2.0 request, notification or response MCP knows.');
  // The frame itself: the 2026-07-28 fields (_meta envelope, inputResponses) are the SDK's to read.
  return { message: frame as JSONRPCMessage };
}

/**
 * The top-level "id" of a JSON object from the first part of its text (a frame too large
 * to parse is answered with its own id when it can be read): strings, depth and escapes are
 * followed, so an "id" inside params is not taken for it.
 */
export function sniffId(head: string): RequestId | undefined {
  let depth = 0;
  let i = 0;
  const readString = (): string | undefined => {
    let out = '';
    for (i++; i < head.length; i++) {
      const c = head[i]!;
      if (c === '\\') {
        out += head[i + 1] ?? '';
        i++;
      } else if (c === '"') {
        i++;
        return out;
      } else out += c;
    }
    return undefined;
  };
  for (; i < head.length; ) {
    const c = head[i]!;
    if (c === '{' || c === '[') {
      depth++;
      i++;
    } else if (c === '}' || c === ']') {
      depth--;
      i++;
    } else if (c === '"') {
      const text = readString();
      if (text === undefined) return undefined;
      const rest = /^\s*:\s*/.exec(head.slice(i));
      if (depth === 1 && text === 'id' && rest) {
        const after = head.slice(i + rest[0].length);
        const num = /^-?\d+(?:\.\d+)?(?=\s*[,}])/.exec(after);
        if (num) return Number(num[0]);
        if (after.startsWith('"')) {
          i += rest[0].length;
          return readString();
        }
        return undefined;
      }
    } else i++;
  }
  return undefined;
}
