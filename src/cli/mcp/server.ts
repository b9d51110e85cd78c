/**
 * The MCP requests this server answers, over the ledger worker: tools, resources, prompts.
 * One factory builds the server for either protocol era (2025-11-25 after `initialize`,
 * 2026-07-28 per request): the SDK's serving entries (stdio, HTTP) call it per connection
 * or per request, and the worker, the ledger and its watch are shared by every instance.
 * Errors thrown here are RpcErrors: their code and plain message are what the client gets.
 */
import {
  CLIENT_INFO_META_KEY,
  type CallToolResult,
  type GetPromptResult,
  ProtocolErrorCode as ErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type AgentToolResult, findAgentTool, MCP_TOOLS, toolJsonSchema } from '../../core/agentTools';
import { artifactUrn, idFromRef, URN_PREFIX } from '../../core/model';
import { RESOURCE_NOT_FOUND, RpcError } from './frames';
import { PROMPTS } from './prompts';
import { mcpOutputSchema, mcpToolResult } from './results';
import type { LedgerWatch } from './watch';
import type { ArtifactSummary, LedgerBackend, LedgerReply, Served } from './calls';
import { errorText, log } from './log';

declare const CONTEXT_LEDGER_VERSION: string | undefined;
const VERSION = typeof CONTEXT_LEDGER_VERSION === 'string' ? CONTEXT_LEDGER_VERSION : 'dev';

const RESOURCE_PAGE = 500;
export const ARTIFACT_TEMPLATE = `${URN_PREFIX}{id}`;

/** The ledger the server serves, once there is one, or why there is none. */
export class ServedLedger {
  served: Served | undefined;
  missing: string;
  private settling: Promise<void> = Promise.resolve();

  constructor(ready: { served?: Served; missing?: string }) {
    this.served = ready.served;
    this.missing = ready.missing ?? '';
  }

  /** Answers wait for a search under way (the client's roots) before saying there is no ledger. */
  settle(search: Promise<void>): void {
    this.settling = this.settling.then(() => search).catch(() => undefined);
  }

  async current(): Promise<Served | undefined> {
    await this.settling;
    return this.served;
  }
}

function instructions(ledger: ServedLedger, asksRoots: boolean): string {
  const base =
    'Project knowledge (decisions, patterns, module notes, conventions) from the Context Ledger. Call build_context at the start of a task; ' +
    'record what you learn with create_artifact. Knowledge written by agents is marked unreviewed until a person approves it. ' +
    `Artifacts are resources at ${ARTIFACT_TEMPLATE}.`;
  if (ledger.served) return base;
  return asksRoots ? `${ledger.missing} (The server looks in the folders the client gives as its roots.) ${base}` : `${ledger.missing} ${base}`;
}

/** Most completion values sent (the protocol's own bound). */
const MAX_COMPLETIONS = 100;

/** What every server instance shares: the ledger's thread, which ledger, and the watch on it. */
export interface McpServices {
  worker: LedgerBackend;
  ledger: ServedLedger;
  watch: LedgerWatch;
}

/** The client's name: from the handshake (2025-11-25) or from the request's own envelope (2026-07-28). */
function clientName(server: Server, ctx: ServerContext): string | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, { name?: unknown } | undefined> | undefined;
  const name = server.getClientVersion()?.name ?? envelope?.[CLIENT_INFO_META_KEY]?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Builds one (unconnected) MCP server instance over the shared services. `asksRoots`: it will
 * ask the client for its roots (a 2025-era connection on stdio), so its instructions say so.
 */
export function createMcpServer({ worker, ledger, watch }: McpServices, asksRoots = false): Server {
  // The low-level Server, so that validation and error text are the tools' own (formatIssues), not the SDK's.
  const server = new Server(
    { name: 'context-ledger', version: VERSION },
    {
      capabilities: { tools: {}, resources: { listChanged: true, subscribe: true }, prompts: {}, completions: {}, logging: {} },
      instructions: instructions(ledger, asksRoots),
    },
  );

  const call = async (
    tool: string,
    args: unknown,
    extra?: { signal: AbortSignal; agent?: string; onProgress?: (done: number, total: number, message: string) => void },
  ): Promise<LedgerReply> => {
    // A cancellation read in the same chunk as its request aborts the signal before this handler runs.
    if (extra?.signal.aborted) return { type: 'result', id: 0, cancelled: true };
    const agent = extra?.agent;
    const pending = worker.request({ type: 'call', tool, args, ...(agent ? { agent } : {}), progress: extra?.onProgress !== undefined }, extra?.onProgress);
    const onAbort = () => worker.cancel(pending.id);
    extra?.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await pending.done;
    } finally {
      extra?.signal.removeEventListener('abort', onAbort);
    }
  };

  /** The worker's answer to a request that is not a tool call; its failure is the client's error. */
  const ask = async <T>(request: Parameters<LedgerBackend['request']>[0]): Promise<T> => {
    const reply = await worker.request(request).done;
    if (reply.error !== undefined) {
      log(`${request.type} failed: ${reply.error}`);
      throw new RpcError(ErrorCode.InternalError, `The ledger could not answer: ${reply.error.split('\n')[0]!.replace(/^Error: /, '')}`);
    }
    return reply.result as T;
  };

  server.setRequestHandler('tools/list', () => ({
    tools: MCP_TOOLS.map((tool) => {
      const outputSchema = mcpOutputSchema(tool);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: toolJsonSchema(tool) as { type: 'object'; [key: string]: unknown },
        ...(outputSchema ? { outputSchema } : {}),
        annotations: { title: tool.title, ...tool.annotations },
      };
    }),
  }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = findAgentTool(name, MCP_TOOLS);
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `There is no tool "${name}". The tools are: ${MCP_TOOLS.map((t) => t.name).join(', ')}.`);
    if (!(await ledger.current())) {
      const nothing = tool.annotations.readOnlyHint ? '' : ' Nothing was written.';
      return { content: [{ type: 'text', text: `${ledger.missing}${nothing}` }], isError: true };
    }
    const token = ctx.mcpReq._meta?.progressToken;
    const onProgress =
      token === undefined
        ? undefined
        : (done: number, total: number, message: string) =>
            void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } }).catch(() => undefined);
    const agent = clientName(server, ctx);
    const reply = await call(tool.name, args ?? {}, { signal: ctx.mcpReq.signal, ...(agent ? { agent } : {}), ...(onProgress ? { onProgress } : {}) });
    if (reply.cancelled) return { content: [{ type: 'text', text: 'Cancelled.' }], isError: true };
    if (reply.error !== undefined) {
      // A bug or a file problem: the agent gets a short error, the details go to stderr, the server keeps running.
      log(`${name} failed: ${reply.error}`);
      const first = reply.error.split('\n')[0]!.replace(/^Error: /, '');
      return { content: [{ type: 'text', text: `${name} failed inside the ledger: ${first}. Nothing was changed; you may retry once.` }], isError: true };
    }
    return mcpToolResult(tool.name, reply.result as AgentToolResult);
  });

  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      {
        uriTemplate: ARTIFACT_TEMPLATE,
        name: 'artifact',
        title: 'Ledger artifact',
        description: 'One artifact of the Context Ledger (a decision, convention, pattern, module note, ...) as Markdown, secrets masked.',
        mimeType: 'text/markdown',
      },
    ],
  }));

  server.setRequestHandler('resources/list', async (request) => {
    const cursor = request.params?.cursor;
    const offset = cursor !== undefined ? Number(cursor) : 0;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RpcError(ErrorCode.InvalidParams, 'Unknown cursor: use the nextCursor of the previous resources/list.');
    if (!(await ledger.current())) return { resources: [] };
    const page = await ask<{ total: number; items: ArtifactSummary[] }>({ type: 'list', offset, limit: RESOURCE_PAGE });
    return {
      resources: page.items.map((a) => ({
        uri: artifactUrn(a.id),
        name: a.id,
        title: a.title,
        description: a.type,
        mimeType: 'text/markdown',
        size: Buffer.byteLength(a.title) + a.chars,
        annotations: { lastModified: a.updatedAt },
      })),
      ...(offset + RESOURCE_PAGE < page.total ? { nextCursor: String(offset + RESOURCE_PAGE) } : {}),
    };
  });

  server.setRequestHandler('resources/read', async (request) => {
    const { uri } = request.params;
    if (!uri.startsWith(URN_PREFIX)) throw new RpcError(ErrorCode.InvalidParams, `Unknown resource ${uri}: this server serves ${ARTIFACT_TEMPLATE}.`);
    if (!(await ledger.current())) throw new RpcError(RESOURCE_NOT_FOUND, ledger.missing);
    const result = await ask<AgentToolResult>({ type: 'resource', ref: idFromRef(uri) });
    if (result.isError) throw new RpcError(RESOURCE_NOT_FOUND, result.text);
    return { contents: [{ uri, mimeType: 'text/markdown', text: result.text }] };
  });

  server.setRequestHandler('prompts/list', () => ({ prompts: PROMPTS.map(({ name, title, description, arguments: a }) => ({ name, title, description, arguments: a })) }));

  server.setRequestHandler('prompts/get', async (request, ctx): Promise<GetPromptResult> => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new RpcError(ErrorCode.InvalidParams, `There is no prompt "${request.params.name}". The prompts are: ${PROMPTS.map((p) => p.name).join(', ')}.`);
    const args = request.params.arguments ?? {};
    for (const a of prompt.arguments) {
      if (a.required && !args[a.name]?.trim()) throw new RpcError(ErrorCode.InvalidParams, `Prompt "${prompt.name}" needs the argument "${a.name}": ${a.description}`);
    }
    const served = await ledger.current();
    const text = await prompt.render(args, async (tool, toolArgs) => {
      // With no ledger the prompt still comes back, saying so where the knowledge would be.
      if (!served) return ledger.missing;
      const agent = clientName(server, ctx);
      const reply = await call(tool, toolArgs, { signal: ctx.mcpReq.signal, ...(agent ? { agent } : {}) });
      const result = reply.result as AgentToolResult | undefined;
      if (!result || result.isError) throw new RpcError(ErrorCode.InvalidParams, result ? result.text : `${tool} failed: ${reply.error?.split('\n')[0] ?? 'cancelled'}`);
      return result.text;
    });
    return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
  });

  server.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params;
    if (!uri.startsWith(URN_PREFIX)) throw new RpcError(ErrorCode.InvalidParams, `Unknown resource ${uri}: this server serves ${ARTIFACT_TEMPLATE}.`);
    await watch.subscribe(uri);
    return {};
  });

  server.setRequestHandler('resources/unsubscribe', (request) => {
    watch.unsubscribe(request.params.uri);
    return {};
  });

  // Artifact ids, for the explain prompt's id and the artifact template's {id}: what an agent or a person types them into.
  server.setRequestHandler('completion/complete', async (request) => {
    const { ref, argument } = request.params;
    const completesIds =
      argument.name === 'id' &&
      ((ref.type === 'ref/prompt' && ref.name === 'explain') || (ref.type === 'ref/resource' && ref.uri === ARTIFACT_TEMPLATE));
    if (!completesIds || !(await ledger.current())) return { completion: { values: [], total: 0, hasMore: false } };
    const found = await ask<{ total: number; values: string[] }>({ type: 'ids', prefix: idFromRef(argument.value), limit: MAX_COMPLETIONS });
    return { completion: { values: found.values, total: found.total, hasMore: found.total > found.values.length } };
  });

  server.onerror = (error) => log(`protocol: ${errorText(error)}`);
  return server;
}
