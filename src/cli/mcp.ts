/**
 * `context-ledger mcp`: the agent tools (src/core/agentTools.ts) as a Model Context
 * Protocol server on stdio, for agents outside VS Code (Claude Code, Cline, Cursor, ...).
 *
 * Two threads. The main thread speaks the protocol and nothing else, so a `ping`, a
 * cancellation or a second request is read at once however long a build takes. A worker
 * thread (this same command, started again in a worker) owns the ledger: it keeps the
 * store and its search index warm between calls and runs every tool, one call at a time.
 *
 * Standard output carries protocol messages only: everything else goes to stderr.
 * Reads see the freshest files on disk; writes go through the ledger session's one write
 * path (locked, atomic), and everything an agent writes is stamped unreviewed (channel "mcp").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type AgentToolEnv,
  type AgentToolResult,
  CancelledError,
  findAgentTool,
  type LedgerAccess,
  MCP_TOOLS,
  toolJsonSchema,
  toolOutputJsonSchema,
} from '../core/agentTools';
import { renderWhichReport } from '../core/formats/ruleSimulator';
import { artifactUrn, idFromRef, URN_PREFIX, UserError } from '../core/model';
import { LedgerSession } from '../node/session';
import { whichRules } from '../node/whichRules';
import { readWorkspaceSetting } from '../node/workspaceSettings';
import { stringOption } from './args';
import { type Command, type CommandContext, databasePath, workspaceOf } from './commands';

declare const CONTEXT_LEDGER_VERSION: string | undefined;
const VERSION = typeof CONTEXT_LEDGER_VERSION === 'string' ? CONTEXT_LEDGER_VERSION : 'dev';

function log(text: string): void {
  process.stderr.write(`context-ledger mcp: ${text}\n`);
}

/**
 * The worker's ledger: one session (src/node/session.ts), as every front end opens it. It
 * follows the files before every answer — a fresh clone's artifact files, a pull, a
 * teammate's edit, another process's write — and an agent's write reaches the artifact
 * files like any CLI write, so a commit carries it.
 */
export async function openLedgerAccess(context: CommandContext): Promise<{ session: LedgerSession; access: LedgerAccess }> {
  const session = await LedgerSession.open({ cwd: context.cwd, dbFile: stringOption(context.options, 'db'), create: true, say: log });
  return { session, access: { read: (fn) => session.read(fn), write: (fn) => session.write(fn) } };
}

/**
 * Whether build_context includes or holds agent-written knowledge nobody approved: the
 * flag, else the workspace's own VS Code setting (so Claude Code in a repository set to
 * "hold" is held back too, exactly like Copilot in the editor), else include.
 */
export function unreviewedPolicy(flag: string | undefined, workspace: string): { policy: 'include' | 'hold'; from: string } {
  if (flag !== undefined) {
    if (flag !== 'include' && flag !== 'hold') throw new UserError(`--unreviewed must be "include" or "hold", not "${flag}".`, 'For example --unreviewed hold.');
    return { policy: flag, from: '--unreviewed' };
  }
  const setting = readWorkspaceSetting(workspace, 'contextLedger.agent.unreviewed');
  if (setting === 'include' || setting === 'hold') return { policy: setting, from: path.join(workspace, '.vscode', 'settings.json') };
  return { policy: 'include', from: 'default' };
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Refuses to serve a file that is not a ledger, before anything opens it: opening moves a
 * corrupt file aside, which a long-running server started by an agent tool must not do
 * behind the user's back. A Git LFS pointer (a clone without `git lfs pull`) says so.
 */
export function assertLedgerFile(file: string): void {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(200);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return; // Missing or unreadable: opening says what is wrong.
  }
  if (head.length === 0) return;
  const text = head.toString('latin1');
  if (text.startsWith('version https://git-lfs')) {
    throw new UserError(
      `${file} is a Git LFS pointer, not the ledger database: the repository was cloned without its LFS files. The MCP server did not start and changed nothing.`,
      'Run `git lfs pull` in the repository, then start the server again.',
    );
  }
  if (!text.startsWith(SQLITE_HEADER)) {
    throw new UserError(
      `${file} is not a ledger database (it does not start with the SQLite header). The MCP server did not start and left the file as it is.`,
      `If it was damaged, \`context-ledger restore --db ${file}\` brings back the last good copy; check it with \`context-ledger doctor --db ${file}\` if your version has it.`,
    );
  }
}

/**
 * A `--db` still holding a client's variable (`${workspaceFolder}`: the client did not fill
 * it in) names no real place: refused, instead of a new ledger made under a folder of that name.
 */
function assertExpandedDb(db: string | undefined): void {
  const variable = db === undefined ? null : /\$\{[^}]*\}/.exec(db);
  if (!variable) return;
  throw new UserError(
    `--db ${db} still holds ${variable[0]}: the MCP client did not fill it in. The server did not start and created nothing.`,
    'Give the absolute path of the ledger (…/.context-ledger/ledger.db) in the client\'s configuration; docs/mcp.md shows each client\'s.',
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

// ------------------------------------------------------------------ the worker: the ledger and the tools

/** Cancelled call ids, shared with the worker: it can read them in the middle of a synchronous build. */
const CANCEL_SLOTS = 64;

interface WorkerSetup {
  mcpWorker: true;
  cancelled: SharedArrayBuffer;
}

type ToWorker =
  | { type: 'call'; id: number; tool: string; args: unknown; agent?: string; progress: boolean }
  | { type: 'refresh'; id: number }
  | { type: 'list'; id: number; offset: number; limit: number }
  | { type: 'close' };

type FromWorker =
  | { type: 'ready'; file: string; policy: string; from: string; workspace: string }
  | { type: 'startError'; message: string }
  | { type: 'progress'; id: number; done: number; total: number; message: string }
  | { type: 'result'; id: number; result?: unknown; error?: string; cancelled?: boolean };

/** A request to the worker before it gets its id. */
type WorkerRequest = ToWorker extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

function isCancelled(shared: Int32Array, id: number): boolean {
  for (let i = 1; i <= CANCEL_SLOTS; i++) if (Atomics.load(shared, i) === id) return true;
  return false;
}

async function runWorker(context: CommandContext, setup: WorkerSetup): Promise<number> {
  const port = parentPort!;
  const post = (message: FromWorker) => port.postMessage(message);
  const shared = new Int32Array(setup.cancelled);
  let ledger: LedgerSession;
  let env: AgentToolEnv;
  try {
    // The workspace is where the ledger is, not where the server was started.
    const workspace = workspaceOf(context);
    const unreviewed = unreviewedPolicy(stringOption(context.options, 'unreviewed'), workspace);
    const opened = await openLedgerAccess(context);
    ledger = opened.session;
    const root = path.resolve(workspace);
    env = {
      ledger: opened.access,
      channel: 'mcp',
      workspaceRoot: root.replace(/\\/g, '/'),
      assembleOptions: { unreviewed: unreviewed.policy },
      which: (file, artifacts) => renderWhichReport(whichRules(root, path.join(root, file), artifacts)),
    };
    post({ type: 'ready', file: ledger.dbFile, policy: unreviewed.policy, from: unreviewed.from, workspace: root });
  } catch (error) {
    post({ type: 'startError', message: error instanceof UserError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : errorText(error) });
    return 1;
  }
  // One call at a time, in arrival order: a later call waits for the one before it.
  let queue = Promise.resolve();
  const handle = async (message: ToWorker): Promise<void> => {
    if (message.type === 'close') {
      ledger.close();
      port.close();
      return;
    }
    if (message.type === 'refresh') {
      post({ type: 'result', id: message.id, result: await ledger.refresh() });
      return;
    }
    if (message.type === 'list') {
      const page = await env.ledger.read((store) => {
        const active = store.latestArtifacts().filter((a) => a.status === 'active');
        return {
          total: active.length,
          items: active.slice(message.offset, message.offset + message.limit).map((a) => ({ id: a.id, title: a.title, type: a.type, updatedAt: a.updatedAt })),
        };
      });
      post({ type: 'result', id: message.id, result: page });
      return;
    }
    const { id } = message;
    if (isCancelled(shared, id)) {
      post({ type: 'result', id, cancelled: true });
      return;
    }
    const tool = findAgentTool(message.tool, MCP_TOOLS)!;
    const callEnv: AgentToolEnv = {
      ...env,
      ...(message.agent ? { agent: message.agent } : {}),
      cancelled: () => isCancelled(shared, id),
      ...(message.progress ? { progress: (done: number, total: number, text: string) => post({ type: 'progress', id, done, total, message: text }) } : {}),
    };
    try {
      post({ type: 'result', id, result: await tool.run(callEnv, message.args) });
    } catch (error) {
      if (error instanceof CancelledError) post({ type: 'result', id, cancelled: true });
      else post({ type: 'result', id, error: errorText(error) });
    }
  };
  port.on('message', (message: ToWorker) => {
    queue = queue.then(() => handle(message)).catch((error: unknown) => log(`worker: ${errorText(error)}`));
  });
  return 0;
}

// ------------------------------------------------------------------ the main thread: the protocol

/** The worker from the main thread's side: calls in, results and progress out. */
class LedgerWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: FromWorker & { type: 'result' }) => void; onProgress?: (done: number, total: number, message: string) => void }>();
  private readonly cancelledIds: Int32Array;
  private nextId = 1;
  private cancelCount = 0;
  readonly ready: Promise<FromWorker & { type: 'ready' }>;

  constructor(argv: readonly string[]) {
    const cancelled = new SharedArrayBuffer(4 * (CANCEL_SLOTS + 1));
    this.cancelledIds = new Int32Array(cancelled);
    const setup: WorkerSetup = { mcpWorker: true, cancelled };
    // The CLI script this process runs, run again as the `mcp` command inside the worker (see `run`).
    this.worker = new Worker(process.argv[1]!, {
      argv: [...argv],
      workerData: setup,
      stdout: true,
    });
    // The worker's standard output is not the protocol's: anything printed there goes to stderr.
    this.worker.stdout.pipe(process.stderr);
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type === 'ready') resolve(message);
        else if (message.type === 'startError') reject(new UserError(message.message));
        else if (message.type === 'progress') this.pending.get(message.id)?.onProgress?.(message.done, message.total, message.message);
        else if (message.type === 'result') {
          const call = this.pending.get(message.id);
          this.pending.delete(message.id);
          call?.resolve(message);
        }
      };
      this.worker.on('message', onMessage);
      this.worker.on('error', (error) => {
        log(`worker failed: ${errorText(error)}`);
        reject(error);
      });
      this.worker.on('exit', (code) => {
        for (const [id, call] of this.pending) call.resolve({ type: 'result', id, error: `the ledger worker stopped (exit code ${code})` });
        this.pending.clear();
      });
    });
  }

  request(message: WorkerRequest, onProgress?: (done: number, total: number, message: string) => void): { id: number; done: Promise<FromWorker & { type: 'result' }> } {
    const id = this.nextId++;
    const done = new Promise<FromWorker & { type: 'result' }>((resolve) => this.pending.set(id, { resolve, ...(onProgress ? { onProgress } : {}) }));
    this.worker.postMessage({ ...message, id });
    return { id, done };
  }

  cancel(id: number): void {
    Atomics.store(this.cancelledIds, 1 + (this.cancelCount++ % CANCEL_SLOTS), id);
  }

  async close(): Promise<void> {
    this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([exited, timeout]);
    await this.worker.terminate();
  }
}

const RESOURCE_PAGE = 500;
const ARTIFACT_TEMPLATE = `${URN_PREFIX}{id}`;

function textOf(result: AgentToolResult): string {
  return result.text;
}

/** A malformed tools/call (no name, arguments that are not an object) in words a client author can act on. */
function malformedToolCall(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'tools/call needs "params": {"name": <tool name>, "arguments": {...}}.';
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return `tools/call needs "params.name", the tool's name (one of ${MCP_TOOLS.map((t) => t.name).join(', ')}).`;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return `"params.arguments" of tools/call must be an object of named arguments, not ${Array.isArray(args) ? 'a list' : args === null ? 'null' : `a ${typeof args}`}.`;
  }
  return undefined;
}

/** Builds the (unconnected) MCP server over the worker. */
function createMcpServer(worker: LedgerWorker): Server {
  // The low-level Server, so that validation and error text are the tools' own (formatIssues), not the SDK's.
  const server = new Server(
    { name: 'context-ledger', version: VERSION },
    {
      capabilities: { tools: {}, resources: { listChanged: true }, prompts: {} },
      instructions:
        'Project knowledge (decisions, patterns, module notes, conventions) from the Context Ledger. Call build_context at the start of a task; ' +
        'record what you learn with create_artifact. Knowledge written by agents is marked unreviewed until a person approves it. ' +
        `Artifacts are resources at ${ARTIFACT_TEMPLATE}.`,
    },
  );

  const call = async (tool: string, args: unknown, extra?: { signal: AbortSignal; onProgress?: (done: number, total: number, message: string) => void }) => {
    // A cancellation read in the same chunk as its request aborts the signal before this handler runs.
    if (extra?.signal.aborted) return { type: 'result' as const, id: 0, cancelled: true };
    const agent = server.getClientVersion()?.name;
    const pending = worker.request({ type: 'call', tool, args, ...(agent ? { agent } : {}), progress: extra?.onProgress !== undefined }, extra?.onProgress);
    const onAbort = () => worker.cancel(pending.id);
    extra?.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await pending.done;
    } finally {
      extra?.signal.removeEventListener('abort', onAbort);
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolJsonSchema(tool) as { type: 'object'; [key: string]: unknown },
      outputSchema: toolOutputJsonSchema(tool) as { type: 'object'; [key: string]: unknown },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = findAgentTool(name, MCP_TOOLS);
    if (!tool) {
      return {
        content: [{ type: 'text', text: `There is no tool "${name}". The tools are: ${MCP_TOOLS.map((t) => t.name).join(', ')}.` }],
        isError: true,
      };
    }
    const token = extra._meta?.progressToken;
    const onProgress =
      token === undefined
        ? undefined
        : (done: number, total: number, message: string) =>
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } }).catch(() => undefined);
    const reply = await call(tool.name, args ?? {}, { signal: extra.signal, ...(onProgress ? { onProgress } : {}) });
    if (reply.cancelled) return { content: [{ type: 'text', text: 'Cancelled.' }], isError: true };
    if (reply.error !== undefined) {
      // A bug or a file problem: the agent gets a short error, the details go to stderr, the server keeps running.
      log(`${name} failed: ${reply.error}`);
      const first = reply.error.split('\n')[0]!.replace(/^Error: /, '');
      return { content: [{ type: 'text', text: `${name} failed inside the ledger: ${first}. Nothing was changed; you may retry once.` }], isError: true };
    }
    const result = reply.result as AgentToolResult;
    const content: CallToolResult['content'] = [{ type: 'text', text: result.text }];
    // What build_context offers, as links a client can open or fetch with resources/read.
    const items = !result.isError && tool.name === 'build_context' ? ((result.data?.items ?? []) as Array<{ id: string; urn: string; title: string }>) : [];
    for (const item of items) content.push({ type: 'resource_link', uri: item.urn, name: item.id, title: item.title, mimeType: 'text/markdown' });
    return {
      content,
      ...(result.isError ? { isError: true } : {}),
      ...(result.data && !result.isError ? { structuredContent: result.data } : {}),
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
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

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = request.params?.cursor !== undefined ? Number(request.params.cursor) : 0;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new McpError(ErrorCode.InvalidParams, 'Unknown cursor: use the nextCursor of the previous resources/list.');
    const reply = await worker.request({ type: 'list', offset, limit: RESOURCE_PAGE }).done;
    if (reply.error !== undefined) throw new McpError(ErrorCode.InternalError, reply.error.split('\n')[0]!);
    const page = reply.result as { total: number; items: Array<{ id: string; title: string; type: string; updatedAt: string }> };
    return {
      resources: page.items.map((a) => ({ uri: artifactUrn(a.id), name: a.id, title: a.title, description: a.type, mimeType: 'text/markdown', annotations: { lastModified: a.updatedAt } })),
      ...(offset + RESOURCE_PAGE < page.total ? { nextCursor: String(offset + RESOURCE_PAGE) } : {}),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (!uri.startsWith(URN_PREFIX)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}: this server serves ${ARTIFACT_TEMPLATE}.`);
    const reply = await call('get_artifact', { id: idFromRef(uri), limit: 100_000 });
    const result = reply.result as AgentToolResult | undefined;
    if (!result || result.isError) throw new McpError(ErrorCode.InvalidParams, result ? textOf(result) : `Cannot read ${uri}.`);
    return { contents: [{ uri, mimeType: 'text/markdown', text: result.text }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS.map(({ name, title, description, arguments: a }) => ({ name, title, description, arguments: a })) }));

  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `There is no prompt "${request.params.name}". The prompts are: ${PROMPTS.map((p) => p.name).join(', ')}.`);
    const args = request.params.arguments ?? {};
    for (const a of prompt.arguments) {
      if (a.required && !args[a.name]?.trim()) throw new McpError(ErrorCode.InvalidParams, `Prompt "${prompt.name}" needs the argument "${a.name}": ${a.description}`);
    }
    const text = await prompt.render(args, async (tool, toolArgs) => {
      const reply = await call(tool, toolArgs);
      const result = reply.result as AgentToolResult | undefined;
      if (!result || result.isError) throw new McpError(ErrorCode.InvalidParams, result ? textOf(result) : `${tool} failed: ${reply.error ?? 'cancelled'}`);
      return result.text;
    });
    return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
  });

  return server;
}

interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
  render(args: Record<string, string>, run: (tool: string, args: Record<string, unknown>) => Promise<string>): Promise<string>;
}

function pathList(value: string | undefined): string[] | undefined {
  const list = value?.split(/[,\n]/).map((p) => p.trim()).filter(Boolean);
  return list && list.length > 0 ? list : undefined;
}

/** The slash commands of `@ledger` in VS Code chat (/context, /remember, /explain), for MCP clients. */
const PROMPTS: readonly McpPrompt[] = [
  {
    name: 'context',
    title: 'Project context for a task',
    description: "The project's recorded knowledge for a task, within the default budget (build_context), ready to work from.",
    arguments: [
      { name: 'task', description: 'What you are about to do.', required: true },
      { name: 'paths', description: 'Files in play, comma-separated (optional).', required: false },
    ],
    async render(args, run) {
      const paths = pathList(args.paths);
      const context = await run('build_context', { task: args.task!, ...(paths ? { paths } : {}) });
      return `Here is the project's recorded knowledge for this task. Follow its rules and decisions; items marked unreviewed are claims to verify.\n\n${context}\n\nTask: ${args.task}`;
    },
  },
  {
    name: 'remember',
    title: 'Record what was learned',
    description: 'Asks the agent to record one fact, decision or convention in the ledger (create_artifact), after checking it is not already there.',
    arguments: [{ name: 'fact', description: 'What to remember, in a sentence or a paragraph.', required: true }],
    render(args) {
      return Promise.resolve(
        'Record this in the Context Ledger as one artifact. First call search_artifacts with its keywords: if an artifact already says it, ' +
        'update that one with propose_version instead. Otherwise call create_artifact with the best type (decision, learning, convention, pattern, ' +
        'module_memory with its paths, ...), a short specific title, and the why in the body.\n\n' +
        `What to remember: ${args.fact}`,
      );
    },
  },
  {
    name: 'explain',
    title: 'Why knowledge is in or out',
    description: 'Explains what build_context would include for a task and why, and what it leaves out (or, with an id, why one artifact is in or out).',
    arguments: [
      { name: 'task', description: 'The task to explain the context of.', required: true },
      { name: 'id', description: `One artifact's id or ${URN_PREFIX}<id> (optional).`, required: false },
    ],
    async render(args, run) {
      const explained = await run('explain', { task: args.task!, ...(args.id?.trim() ? { id: args.id.trim() } : {}) });
      return `How the Context Ledger chooses knowledge for "${args.task}":\n\n${explained}`;
    },
  },
];

/**
 * Watches the ledger's folder (one inotify watch, no polling) and tells the client when
 * another process changed the ledger; the worker's own writes change nothing it has not seen.
 */
function watchLedger(file: string, worker: LedgerWorker, server: Server): () => void {
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name !== null && name !== base && name !== `${base}.journal`) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        void worker
          .request({ type: 'refresh' })
          .done.then((reply) => (reply.result === true ? server.sendResourceListChanged() : undefined))
          .catch(() => undefined);
      }, 150);
    });
  } catch (error) {
    log(`not watching ${file} for changes: ${errorText(error)}`);
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
  };
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the ledger to AI agents as a Model Context Protocol server on stdio.',
  usage: 'context-ledger mcp [--db <file>] [--unreviewed include|hold]',
  options: {
    unreviewed: {
      type: 'string',
      value: 'include|hold',
      description:
        'Agent-written knowledge nobody approved: include it in build_context under an "unreviewed" marker, or hold it back (the reviewed version stays in). ' +
        'Default: the workspace\'s contextLedger.agent.unreviewed in .vscode/settings.json, else include.',
    },
  },
  positionals: [0, 0],
  details:
    'Tools: build_context, get_artifact, search_artifacts, create_artifact, propose_version, propose_supersession, explain, which. ' +
    `Resources: ${ARTIFACT_TEMPLATE}. Prompts: context, remember, explain. ` +
    'Knowledge written through it is marked unreviewed; see `context-ledger inbox`. The workspace is the folder holding the ledger. Logs go to stderr. See docs/mcp.md.',
  async run(context) {
    // Standard output belongs to the protocol: anything else that prints goes to stderr.
    console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(' '));
    if (!isMainThread && (workerData as Partial<WorkerSetup> | undefined)?.mcpWorker) return runWorker(context, workerData as WorkerSetup);

    // Checked here too, before the worker opens it, so a bad flag or file never starts a server.
    assertExpandedDb(stringOption(context.options, 'db'));
    unreviewedPolicy(stringOption(context.options, 'unreviewed'), workspaceOf(context));
    assertLedgerFile(databasePath(context).file);
    const worker = new LedgerWorker(process.argv.slice(2));
    let ready: FromWorker & { type: 'ready' };
    try {
      ready = await worker.ready;
    } catch (error) {
      await worker.close().catch(() => undefined);
      throw error;
    }
    const server = createMcpServer(worker);
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
    });
    await server.connect(transport);
    // JSON-RPC says a malformed request is -32602 (invalid params); the SDK would answer -32603 with its schema dump.
    const onMessage = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      const problem = malformedToolCall(message);
      if (problem !== undefined && 'id' in message) {
        void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } }).catch(() => undefined);
        return;
      }
      onMessage?.(message);
    };
    const unwatch = watchLedger(ready.file, worker, server);
    log(`serving ${ready.file} (workspace ${ready.workspace}) on stdio; unreviewed knowledge: ${ready.policy} (${ready.from})`);
    await closed;
    unwatch();
    await server.close().catch(() => undefined);
    await worker.close();
    return 0;
  },
};
