/**
 * The three model APIs the agent CLIs speak, as the scripted model needs them: which requests are
 * the agent's main loop, how one scripted turn is answered (streamed or whole), and the text of a
 * request as the model reads it.
 *   anthropic  Claude Code: POST /v1/messages (Messages API, server-sent events)
 *   responses  Codex: POST <base>/responses (OpenAI Responses API, server-sent events)
 *   gemini     Gemini CLI: POST /v1beta/models/<model>:streamGenerateContent?alt=sse | :generateContent
 */
import type * as http from 'node:http';

export type Dialect = 'anthropic' | 'responses' | 'gemini';

/** One answer of the scripted model. */
export type Turn =
  | { text: string }
  /** The agent's own file-writing tool (Claude Code `Write`, Gemini CLI `write_file`); file_path absolute. */
  | { write: { file_path: string; content: string }; text?: string }
  /** Any tool call, by the name the agent offers it under (e.g. Codex `exec_command` with `{ cmd }`). */
  | { tool: { name: string; input: Record<string, unknown> }; text?: string };

type Json = Record<string, unknown>;
type Call = { name: string; input: Record<string, unknown> };

/** The dialect of a request, by its path; undefined for paths no agent's main loop uses. */
export function dialectOf(method: string, pathname: string): Dialect | undefined {
  if (method !== 'POST') return undefined;
  if (pathname === '/v1/messages') return 'anthropic';
  if (pathname.endsWith('/responses')) return 'responses';
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(pathname)) return 'gemini';
  return undefined;
}

/** Whether the request is the agent's main loop (it offers the agent's tools) rather than a side request. */
export function isMainLoop(_dialect: Dialect, body: Json): boolean {
  const tools = body.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/** The tool call a turn makes in this dialect (undefined for a text turn). */
function callOf(dialect: Dialect, turn: Turn): Call | undefined {
  if ('tool' in turn) return turn.tool;
  if ('write' in turn) {
    if (dialect === 'anthropic') return { name: 'Write', input: { ...turn.write } };
    if (dialect === 'gemini') return { name: 'write_file', input: { ...turn.write } };
    // Codex has no file-writing tool of its own: it writes through its shell tool.
    const eof = 'SCRIPTED_EOF';
    return { name: 'exec_command', input: { cmd: `cat > '${turn.write.file_path.replace(/'/g, `'\\''`)}' <<'${eof}'\n${turn.write.content}${turn.write.content.endsWith('\n') ? '' : '\n'}${eof}` } };
  }
  return undefined;
}

const textOf = (turn: Turn): string => ('text' in turn && turn.text ? turn.text : '');

/** Answers `turn` in the request's dialect (streamed when the request asks for it). */
export function answer(dialect: Dialect, turn: Turn, req: { url: string; body: Json }, res: http.ServerResponse, seq: number): void {
  const call = callOf(dialect, turn);
  const text = textOf(turn);
  if (dialect === 'anthropic') return anthropic(res, seq, text, call, req.body);
  if (dialect === 'responses') return responses(res, seq, text, call);
  return gemini(res, text, call, req.url.includes(':streamGenerateContent'), req.body);
}

/** A side request that asks for JSON (Gemini CLI's router and checks) gets an empty object, not prose. */
export function sideTurn(dialect: Dialect, body: Json): Turn {
  const config = body.generationConfig as Json | undefined;
  if (dialect === 'gemini' && config?.responseMimeType === 'application/json') return { text: '{}' };
  return { text: 'ok' };
}

function sse(res: http.ServerResponse, named: boolean): (type: string, data: Json) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (type, data) => res.write(named ? `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n` : `data: ${JSON.stringify(data)}\n\n`);
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function anthropic(res: http.ServerResponse, seq: number, text: string, call: Call | undefined, body: Json): void {
  const content: Json[] = [];
  if (text) content.push({ type: 'text', text });
  if (call) content.push({ type: 'tool_use', id: `toolu_scripted_${seq}`, name: call.name, input: call.input });
  const message = {
    id: `msg_scripted_${seq}`,
    type: 'message',
    role: 'assistant',
    model: typeof body.model === 'string' ? body.model : 'scripted-model',
    content,
    stop_reason: call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!body.stream) return sendJson(res, 200, message);
  const event = sse(res, true);
  event('message_start', { message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { ...block, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 1 } });
  event('message_stop', {});
  res.end();
}

function responses(res: http.ServerResponse, seq: number, text: string, call: Call | undefined): void {
  const id = `resp_scripted_${seq}`;
  const output: Json[] = [];
  if (text) output.push({ type: 'message', id: `msg_scripted_${seq}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  if (call) output.push({ type: 'function_call', id: `fc_scripted_${seq}`, call_id: `call_scripted_${seq}`, name: call.name, arguments: JSON.stringify(call.input), status: 'completed' });
  const event = sse(res, true);
  event('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
  output.forEach((item, output_index) => {
    if (item.type === 'message') {
      event('response.output_item.added', { output_index, item: { ...item, content: [] } });
      event('response.output_text.delta', { output_index, content_index: 0, item_id: item.id, delta: text });
    } else {
      event('response.output_item.added', { output_index, item: { ...item, arguments: '' } });
      event('response.function_call_arguments.delta', { output_index, item_id: item.id, delta: item.arguments });
      event('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: item.arguments });
    }
    event('response.output_item.done', { output_index, item });
  });
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
  event('response.completed', { response: { id, object: 'response', status: 'completed', output, usage } });
  res.end();
}

function gemini(res: http.ServerResponse, text: string, call: Call | undefined, stream: boolean, body: Json): void {
  const parts: Json[] = [];
  if (text) parts.push({ text });
  if (call) parts.push({ functionCall: { name: call.name, args: call.input } });
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: typeof body.model === 'string' ? body.model : 'scripted-model',
  };
  if (!stream) return sendJson(res, 200, chunk);
  sse(res, false)('', chunk);
  res.end();
}

/**
 * The text of a request as the model reads it, whatever its dialect (told by its shape): the
 * system prompt or instructions, then each message's text, tool calls (name and JSON input) and
 * tool results, in order, separated by blank lines. Tool definitions are left out.
 */
export function requestText(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Json;
  const parts: string[] = [];
  const push = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value) parts.push(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) push(v);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const v = value as Json;
    if (typeof v.text === 'string') parts.push(v.text); // text blocks of every dialect
    else if (v.type === 'tool_use') parts.push(`${String(v.name)} ${JSON.stringify(v.input)}`);
    else if (v.type === 'tool_result') push(v.content);
    else if (v.type === 'message') push(v.content);
    else if (v.type === 'function_call') parts.push(`${String(v.name)} ${String(v.arguments)}`);
    else if (v.type === 'function_call_output') push(v.output);
    else if (v.functionCall) parts.push(`${String((v.functionCall as Json).name)} ${JSON.stringify((v.functionCall as Json).args)}`);
    else if (v.functionResponse) parts.push(`${String((v.functionResponse as Json).name)} ${JSON.stringify((v.functionResponse as Json).response)}`);
    else if ('parts' in v) push(v.parts); // Gemini's systemInstruction and contents
    else if ('content' in v) push(v.content); // Messages API messages
  };
  push(b.system); // anthropic
  push(b.instructions); // responses
  push(b.systemInstruction); // gemini
  push(b.messages);
  push(b.input);
  push(b.contents);
  return parts.join('\n\n');
}
