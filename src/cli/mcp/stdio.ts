/**
 * MCP's stdio transport with bounded frames: one JSON-RPC message per line on stdin and
 * stdout. Unlike the SDK's own (which drops what it cannot parse and buffers a line of any
 * length), every frame is checked (./frames.ts) and a line longer than the bound is
 * skipped as it streams in, answered with an error, and the server goes on serving.
 */
import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, ProtocolErrorCode as ErrorCode, type Transport } from '@modelcontextprotocol/server';
import { checkFrame, type ErrorReply, errorReply, sniffId } from './frames';

/**
 * The longest frame read: far above any real request (a task is at most 20,000 characters,
 * an agent-written body 32,000) and small enough that a runaway client cannot exhaust memory.
 */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** How much of a skipped frame is kept to find its id. */
const HEAD_BYTES = 4096;

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees each checked message before the SDK does (the server learns what a client listens to). */
  observe?: (message: JSONRPCMessage) => void;

  private parts: Buffer[] = [];
  private size = 0;
  /** While a too-long line streams in: how long it is so far, and its start. */
  private skipping: { size: number; head: string } | undefined;
  private closed = false;
  private ended!: () => void;
  /** Settles when the client closes its end (the SDK's serving entry owns `onclose`). */
  readonly done = new Promise<void>((resolve) => (this.ended = resolve));

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxFrameBytes = MAX_FRAME_BYTES,
    private readonly log: (text: string) => void = () => undefined,
  ) {}

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
    return Promise.resolve();
  }

  private readonly onError = (error: Error) => this.onerror?.(error);

  private readonly onEnd = () => {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    this.ended();
  };

  private readonly onData = (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk.subarray(from, end));
      if (nl < 0) break;
      this.endLine();
      from = nl + 1;
    }
  };

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.size += piece.length;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (this.size > this.maxFrameBytes) {
      const start = Buffer.concat(this.parts).subarray(0, HEAD_BYTES).toString('utf8');
      this.skipping = { size: this.size, head: start };
      this.parts = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { size, head } = this.skipping;
      this.skipping = undefined;
      this.log(`refused a ${size}-byte message (at most ${this.maxFrameBytes})`);
      this.reply(
        errorReply(
          sniffId(head),
          ErrorCode.InvalidRequest,
          `Message too large: ${size} bytes; this server reads messages of at most ${this.maxFrameBytes} bytes. Nothing was done with it.`,
        ),
      );
      return;
    }
    const line = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim() === '') return;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch (error) {
      this.reply(errorReply(undefined, ErrorCode.ParseError, `Parse error: the line is not JSON (${error instanceof Error ? error.message : String(error)}).`));
      return;
    }
    const verdict = checkFrame(frame);
    if ('reply' in verdict) this.reply(verdict.reply);
    else if ('ignore' in verdict) this.log(`ignored a notification: ${verdict.ignore}`);
    else {
      this.observe?.(verdict.message);
      this.onmessage?.(verdict.message);
    }
  }

  private reply(message: ErrorReply): void {
    void this.write(message).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: JSONRPCMessage | ErrorReply): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.output.writableEnded || this.output.destroyed) {
        resolve();
        return;
      }
      const json = `${JSON.stringify(message)}\n`;
      // Waits for the line to leave, so a large answer is not piled up behind slow reading.
      const flushed = this.output.write(json, (error) => (error ? reject(error) : undefined));
      if (flushed) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    this.input.pause();
    this.onEnd();
    return Promise.resolve();
  }
}
