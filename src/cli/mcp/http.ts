/**
 * `context-ledger mcp --http <port>`: the same server over Streamable HTTP, on the loopback
 * interface only. The SDK's handler (`createMcpHandler`) serves both protocol eras per
 * request (2026-07-28 with its `_meta` envelope and `Mcp-*` headers; 2025-era requests
 * statelessly); in front of it this file binds 127.0.0.1, refuses a foreign `Host` or
 * `Origin` (DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach the
 * ledger), bounds the body and checks each frame as the stdio transport does (./frames.ts).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  type JSONRPCMessage,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  originValidationResponse,
  ProtocolErrorCode as ErrorCode,
} from '@modelcontextprotocol/server';
import { UserError } from '../../core/model';
import { checkFrame, type ErrorReply, errorReply } from './frames';
import { MAX_FRAME_BYTES } from './stdio';
import type { ChangeNotifier } from './watch';

/** The one path the server answers on. */
export const MCP_PATH = '/mcp';

/** Where to listen: always a loopback address. */
export interface HttpPlace {
  host: '127.0.0.1' | '::1';
  port: number;
}

/**
 * Reads `--http`: a port, or `127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>`. Any
 * other host is refused: the server has no authentication, so it must not be reachable
 * from another machine.
 */
export function parseHttpPlace(value: string): HttpPlace {
  const match = /^(?:(127\.0\.0\.1|localhost|\[::1\]):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    const host = /^(.*):\d+$/.exec(value.trim())?.[1];
    throw new UserError(
      host !== undefined && !/^(127\.0\.0\.1|localhost|\[::1\])$/.test(host)
        ? `--http ${value}: the server listens on this machine's loopback interface only (127.0.0.1), never on ${host}: it has no authentication.`
        : `--http ${value} is not a port: give a port (e.g. --http 8765, or 0 for a free one) or 127.0.0.1:<port>.`,
      'Clients on the same machine connect to http://127.0.0.1:<port>/mcp.',
    );
  }
  return { host: match[1] === '[::1]' ? '::1' : '127.0.0.1', port };
}

function sendJson(res: http.ServerResponse, status: number, body: ErrorReply | { error: string }): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Reads a request body of at most `MAX_FRAME_BYTES`; undefined when it is longer (the rest is drained, not kept). */
function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FRAME_BYTES) parts.push(chunk);
      else parts.length = 0;
    });
    req.on('end', () => resolve(size <= MAX_FRAME_BYTES ? Buffer.concat(parts).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

function webRequest(req: http.IncomingMessage, origin: string, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
}

/** Writes a web Response to Node's response, streaming (SSE); a client that goes away cancels the stream. */
async function writeResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  } catch {
    // The client went away mid-stream: nothing more to write.
  }
  res.end();
}

export interface HttpServing {
  url: string;
  notifier: ChangeNotifier;
  close(): Promise<void>;
}

/**
 * Serves `factory` at http://<place>/mcp until closed. `observe` sees each checked message
 * before the SDK does, as on stdio.
 */
export async function serveHttp(
  place: HttpPlace,
  factory: McpServerFactory,
  observe: (message: JSONRPCMessage) => void,
  log: (text: string) => void,
): Promise<HttpServing> {
  const handler = createMcpHandler(factory, { maxRequestBodySize: MAX_FRAME_BYTES, onerror: (error) => log(`http: ${error.message}`) });
  const allowedHosts = localhostAllowedHostnames();
  const allowedOrigins = localhostAllowedOrigins();
  let origin = '';

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (path !== MCP_PATH) return sendJson(res, 404, { error: `Not found: the MCP endpoint is ${origin}${MCP_PATH}.` });
    const head = webRequest(req, origin, undefined);
    const refused = hostHeaderValidationResponse(head, allowedHosts) ?? originValidationResponse(head, allowedOrigins);
    if (refused) {
      log(`refused a request from host ${req.headers.host ?? '(none)'}, origin ${req.headers.origin ?? '(none)'}`);
      return writeResponse(refused, res);
    }
    if (req.method !== 'POST') return writeResponse(await handler.fetch(head), res);
    const body = await readBody(req);
    if (body === undefined) {
      log(`refused a body over ${MAX_FRAME_BYTES} bytes`);
      return sendJson(res, 413, errorReply(undefined, ErrorCode.InvalidRequest, `Message too large: this server reads messages of at most ${MAX_FRAME_BYTES} bytes.`));
    }
    let frame: unknown;
    try {
      frame = JSON.parse(body);
    } catch (error) {
      return sendJson(res, 400, errorReply(undefined, ErrorCode.ParseError, `Parse error: the body is not JSON (${error instanceof Error ? error.message : String(error)}).`));
    }
    const verdict = checkFrame(frame);
    if ('reply' in verdict) {
      // A request whose params are wrong is answered in band, as the SDK answers a handler's error; a malformed frame is a bad request.
      return sendJson(res, verdict.reply.error.code === Number(ErrorCode.InvalidParams) ? 200 : 400, verdict.reply);
    }
    if ('ignore' in verdict) {
      log(`ignored a notification: ${verdict.ignore}`);
      res.writeHead(202).end();
      return;
    }
    observe(verdict.message);
    await writeResponse(await handler.fetch(webRequest(req, origin, body), { parsedBody: frame }), res);
  };

  const server = http.createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      log(`http: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, errorReply(undefined, ErrorCode.InternalError, 'Internal error: see the server log.'));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UserError(`Port ${place.port} on ${place.host} is in use.`, 'Pick another with --http <port>, or 0 for a free one.') : error),
    );
    server.listen(place.port, place.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${place.host === '::1' ? '[::1]' : place.host}:${port}`;
  return {
    url: `${origin}${MCP_PATH}`,
    notifier: {
      listChanged: () => Promise.resolve(handler.notify.resourcesChanged()),
      updated: (uri) => Promise.resolve(handler.notify.resourceUpdated(uri)),
    },
    async close() {
      await handler.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
