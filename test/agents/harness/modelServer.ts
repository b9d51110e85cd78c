/**
 * A scripted model on 127.0.0.1 that speaks the Anthropic Messages API (streamed as server-sent
 * events, or as one JSON body), so the real Claude Code can run offline and every request it sends —
 * everything the model "sees" — can be recorded and asserted on.
 *
 * The script is a list of turns answered in order to the agent's main-loop requests (those that
 * offer tools). Side requests the agent makes on its own (a title, a quota probe: no tools) get a
 * short text answer and do not consume a turn. Once the script is used up, every request gets
 * "done" and end_turn, so a run always ends.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the scripted model. */
export type Turn =
  | { text: string }
  /** A `Write` tool call (the agent writes the file, then sends the tool result back). */
  | { write: { file_path: string; content: string }; text?: string }
  /** Any other tool call. */
  | { tool: { name: string; input: Record<string, unknown> }; text?: string };

export interface RecordedRequest {
  method: string;
  /** The path with its query, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: MessagesRequest | undefined;
  /** Whether this request consumed a turn of the script (a main-loop request). */
  scripted: boolean;
}

/** The parts of a Messages API request body the harness reads. */
export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  system?: string | ContentBlock[];
  messages?: { role: string; content: string | ContentBlock[] }[];
  tools?: { name: string }[];
  [key: string]: unknown;
}
export interface ContentBlock {
  type: string;
  text?: string;
  name?: string;
  input?: unknown;
  content?: string | ContentBlock[];
  [key: string]: unknown;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`: the agent's base URL. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The main-loop requests (those that consumed or would consume a turn), in order. */
  mainRequests(): MessagesRequest[];
  close(): Promise<void>;
}

/** Starts the scripted model on a random port of 127.0.0.1. */
export async function startScriptedModel(turns: Turn[]): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  let messageCount = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: MessagesRequest | undefined;
      try {
        body = raw ? (JSON.parse(raw) as MessagesRequest) : undefined;
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const pathname = url.split('?')[0];
      const record: RecordedRequest = { method: req.method ?? 'GET', url, body, scripted: false };
      requests.push(record);
      if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') {
        // An estimate is all the agent wants from this endpoint.
        return sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
      }
      if (req.method !== 'POST' || pathname !== '/v1/messages' || !body) {
        return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `scripted model: no ${req.method} ${pathname}` } });
      }
      const main = Array.isArray(body.tools) && body.tools.length > 0;
      record.scripted = main;
      let turn: Turn = { text: 'ok' };
      if (main) turn = turns[next++] ?? { text: 'done' };
      messageCount += 1;
      const message = messageOf(turn, `msg_scripted_${messageCount}`, body.model ?? 'scripted-model');
      if (body.stream) sendStream(res, message);
      else sendJson(res, 200, message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainRequests: () => requests.filter((r) => r.scripted && r.body).map((r) => r.body!),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: 'end_turn' | 'tool_use';
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
}

function messageOf(turn: Turn, id: string, model: string): Message {
  const content: ContentBlock[] = [];
  if ('text' in turn && turn.text) content.push({ type: 'text', text: turn.text });
  let call: { name: string; input: Record<string, unknown> } | undefined;
  if ('write' in turn) call = { name: 'Write', input: { ...turn.write } };
  if ('tool' in turn) call = turn.tool;
  if (call) content.push({ type: 'tool_use', id: `toolu_${id}`, name: call.name, input: call.input });
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The Messages API's event sequence for one message. */
function sendStream(res: http.ServerResponse, message: Message): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...message, content: [], stop_reason: null } });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  event('message_stop', {});
  res.end();
}

/**
 * The text of a request as the model reads it: the system prompt, then each message's text, tool
 * calls (name and JSON input) and tool results, in order, separated by blank lines. Tool
 * definitions are left out (they are the agent's, the same in every run).
 */
export function requestText(body: MessagesRequest | undefined): string {
  if (!body) return '';
  const parts: string[] = [];
  const push = (content: string | ContentBlock[] | undefined) => {
    if (typeof content === 'string') {
      parts.push(content);
      return;
    }
    for (const block of content ?? []) {
      if (typeof block.text === 'string') parts.push(block.text);
      else if (block.type === 'tool_use') parts.push(`${block.name ?? 'tool'} ${JSON.stringify(block.input)}`);
      else if (block.type === 'tool_result') push(block.content);
    }
  };
  push(body.system);
  for (const m of body.messages ?? []) push(m.content);
  return parts.join('\n\n');
}
