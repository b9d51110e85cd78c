/**
 * The ledger's side of every MCP request (tools, resources, completions, the watch's
 * refresh), over a ledger someone else keeps open: the MCP server's own worker thread
 * (./worker.ts) or the workspace's ledger server, which also answers the agent hooks
 * (../hookServer.ts, over ./remote.ts). Both answer the same messages the same way, so an
 * MCP server that cannot reach the workspace's server answers exactly as one that can.
 */
import * as path from 'node:path';
import { type AgentToolEnv, type LedgerAccess, artifactResource, CancelledError, findAgentTool, MCP_TOOLS } from '../../core/agentTools';
import { redactOutgoing } from '../../core/assemble/redact';
import { renderWhichReport } from '../../core/formats/ruleSimulator';
import { UserError } from '../../core/model';
import { whichRules } from '../../node/whichRules';
import type { LedgerPlace } from './ledger';
import { errorText } from './log';

export { errorText } from './log';
import { serializedBuildContext } from './results';

export function userText(error: unknown): string {
  return error instanceof UserError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : errorText(error);
}

/** The ledger being served. */
export interface Served extends LedgerPlace {
  policy: 'include' | 'hold';
  from: string;
}

export interface ArtifactSummary {
  id: string;
  title: string;
  type: string;
  updatedAt: string;
  chars: number;
}

/** A request to the ledger's side, before it gets its id. */
export type LedgerRequest =
  | { type: 'call'; tool: string; args: unknown; agent?: string; progress: boolean }
  | { type: 'open'; place: LedgerPlace }
  | { type: 'refresh' }
  | { type: 'list'; offset: number; limit: number }
  | { type: 'resource'; ref: string }
  | { type: 'ids'; prefix: string; limit: number }
  | { type: 'stamps'; refs: string[] };

export type LedgerMessage = LedgerRequest & { id: number };

export type LedgerReply = { type: 'result'; id: number; result?: unknown; error?: string; cancelled?: boolean };

export type LedgerProgress = { type: 'progress'; id: number; done: number; total: number; message: string };

/**
 * What the protocol's side (./server.ts, ./watch.ts) asks the ledger through: the worker
 * thread (LedgerWorker) or the workspace's ledger server (RemoteLedger).
 */
export interface LedgerBackend {
  readonly ready: Promise<{ served?: Served; missing?: string }>;
  request(message: LedgerRequest, onProgress?: (done: number, total: number, message: string) => void): { id: number; done: Promise<LedgerReply> };
  cancel(id: number): void;
  close(): Promise<void>;
}

/** The open ledger the answers read and write through, and how to bring it up to date now. */
export interface KeptForCalls {
  dbFile: string;
  access: LedgerAccess;
  /** Reads in what changed on disk; true when something did. */
  refresh(): Promise<boolean>;
}

/** The tools' environment for one served ledger. */
export function callEnv(kept: KeptForCalls, workspace: string, policy: 'include' | 'hold'): AgentToolEnv {
  const root = path.resolve(workspace);
  return {
    ledger: kept.access,
    channel: 'mcp',
    workspaceRoot: root.replace(/\\/g, '/'),
    assembleOptions: { unreviewed: policy },
    which: (file, artifacts) => renderWhichReport(whichRules(root, path.join(root, file), artifacts)),
    delivered: serializedBuildContext,
  };
}

/**
 * Answers one request (anything but `open`) about the ledger `env` serves; `post` sends the
 * reply and any progress. `isCancelled` is read in the middle of a build.
 */
export async function answerLedgerRequest(
  kept: KeptForCalls,
  env: AgentToolEnv,
  message: Exclude<LedgerMessage, { type: 'open' }>,
  isCancelled: (id: number) => boolean,
  post: (message: LedgerReply | LedgerProgress) => void,
): Promise<void> {
  const { id } = message;
  const reply = (result: unknown) => post({ type: 'result', id, result });
  const masked = <T>(value: T): T => redactOutgoing(value, { redact: env.assembleOptions?.redact, redactAllow: env.redactAllow ?? [] });
  if (message.type === 'refresh') return reply(await kept.refresh());
  if (message.type === 'stamps') {
    // What a subscriber's resource shows: the version, its status, and the chain's latest.
    const stamps = await env.ledger.read((store) =>
      message.refs.map((ref) => {
        const a = store.findArtifact(ref);
        return a ? `${a.id} ${a.version} ${a.status} ${a.updatedAt} ${store.latestOfChain(a.chainId)?.id ?? ''}` : '';
      }),
    );
    return reply(stamps);
  }
  if (message.type === 'list') {
    const page = await env.ledger.read((store) => {
      const active = store.latestArtifacts().filter((a) => a.status === 'active');
      const items: ArtifactSummary[] = active
        .slice(message.offset, message.offset + message.limit)
        .map((a) => ({ id: a.id, title: a.title, type: a.type, updatedAt: a.updatedAt, chars: a.body.length }));
      return { total: active.length, items };
    });
    // Titles leave the ledger masked, as in every other answer.
    return reply({ total: page.total, items: masked(page.items) });
  }
  if (message.type === 'resource') return reply(await artifactResource(env, message.ref));
  if (message.type === 'ids') {
    const prefix = message.prefix.toLowerCase();
    const ids = await env.ledger.read((store) =>
      store
        .latestArtifacts()
        .filter((a) => a.status === 'active' && a.id.toLowerCase().startsWith(prefix))
        .map((a) => a.id)
        .sort(),
    );
    return reply({ total: ids.length, values: ids.slice(0, message.limit) });
  }
  if (isCancelled(id)) return post({ type: 'result', id, cancelled: true });
  const tool = findAgentTool(message.tool, MCP_TOOLS);
  if (!tool) return post({ type: 'result', id, error: `there is no tool "${message.tool}"` });
  const run: AgentToolEnv = {
    ...env,
    ...(message.agent ? { agent: message.agent } : {}),
    cancelled: () => isCancelled(id),
    ...(message.progress ? { progress: (done: number, total: number, text: string) => post({ type: 'progress', id, done, total, message: text }) } : {}),
  };
  try {
    reply(await tool.run(run, message.args));
  } catch (error) {
    if (error instanceof CancelledError) post({ type: 'result', id, cancelled: true });
    else post({ type: 'result', id, error: errorText(error) });
  }
}
