/**
 * A scripted model on 127.0.0.1 that speaks the model APIs of the agent CLIs (dialects.ts:
 * Anthropic Messages for Claude Code, OpenAI Responses for Codex, Gemini for Gemini CLI), so the
 * real agents run offline and every request they send — everything the model "sees" — can be
 * recorded and asserted on.
 *
 * The script is a list of turns answered in order to the agent's main-loop requests (those that
 * offer tools). Side requests an agent makes on its own (Gemini CLI's model router, a title: no
 * tools) get a short answer and do not consume a turn. Once the script is used up, every request
 * gets "done" and ends the turn, so a run always ends.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dialect, Turn } from './dialects';
import { answer, dialectOf, isMainLoop, sendJson, sideTurn } from './dialects';

export type { Dialect, Turn } from './dialects';
export { requestText } from './dialects';

export interface RecordedRequest {
  method: string;
  /** The path with its query, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: Record<string, unknown> | undefined;
  /** The API the request spoke (undefined for a path no agent's model loop uses). */
  dialect: Dialect | undefined;
  /** Whether this request is the agent's main loop (it consumed a turn of the script, or got "done"). */
  scripted: boolean;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`: the agent's base URL (Codex wants `${url}/v1`). */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The bodies of the main-loop requests, in order. */
  mainRequests(): Record<string, unknown>[];
  close(): Promise<void>;
}

/** Starts the scripted model on a random port of 127.0.0.1. */
export async function startScriptedModel(turns: Turn[]): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = raw ? JSON.parse(raw) : undefined;
        body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const pathname = url.split('?')[0] ?? '/';
      const method = req.method ?? 'GET';
      const dialect = dialectOf(method, pathname);
      const record: RecordedRequest = { method, url, body, dialect, scripted: false };
      requests.push(record);
      if (method === 'POST' && (pathname.endsWith('/count_tokens') || pathname.endsWith(':countTokens'))) {
        // An estimate is all an agent wants from these endpoints.
        const estimate = Math.ceil(raw.length / 4);
        return sendJson(res, 200, { input_tokens: estimate, totalTokens: estimate });
      }
      if (!dialect || !body) {
        return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `scripted model: no ${method} ${pathname}` } });
      }
      record.scripted = isMainLoop(dialect, body);
      const turn: Turn = record.scripted ? (turns[next++] ?? { text: 'done' }) : sideTurn(dialect, body);
      answer(dialect, turn, { url, body }, res, ++seq);
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
