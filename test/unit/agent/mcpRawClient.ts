/**
 * A JSON-RPC client for `context-ledger mcp` on stdio with no SDK in between: it sends any
 * bytes (malformed frames included) and keeps every message in arrival order, so tests see
 * exactly what a client receives.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { CLI } from '../helpers';

export interface RawMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class RawClient {
  readonly received: RawMessage[] = [];
  /** Every line of standard output as it came: what a client would have to parse. */
  readonly lines: string[] = [];
  readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderrText = '';
  private waiters: Array<() => void> = [];
  exitCode: number | null | undefined;

  constructor(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, [CLI, 'mcp', ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString()));
    this.child.stdin.on('error', () => undefined);
    this.child.once('exit', (code) => {
      this.exitCode = code;
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (!line.trim()) continue;
        this.lines.push(line);
        this.received.push(JSON.parse(line) as RawMessage);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  send(message: Record<string, unknown>): void {
    this.sendLine(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  /** One frame exactly as given (a newline is added). */
  sendLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  async waitFor(predicate: (m: RawMessage) => boolean, timeoutMs = 60_000): Promise<RawMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (this.exitCode !== undefined) throw new Error(`the server exited (code ${this.exitCode}); stderr: ${this.stderrText.slice(-800)}`);
      if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(this.received).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The answer to request `id`, sent now. */
  async request(id: number | string, method: string, params?: Record<string, unknown>): Promise<RawMessage> {
    this.send({ id, method, ...(params ? { params } : {}) });
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  async initialize(protocolVersion: string, capabilities: Record<string, unknown> = {}): Promise<RawMessage> {
    this.send({ id: 'init', method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '0' } } });
    const reply = await this.waitFor((m) => m.id === 'init');
    this.send({ method: 'notifications/initialized' });
    return reply;
  }

  async close(): Promise<void> {
    if (this.exitCode !== undefined) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}
