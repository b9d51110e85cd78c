/**
 * The MCP server's log: stderr (standard output belongs to the protocol), and, where a
 * 2025-era client listens, its log messages too. Its own module, loaded by every side of the
 * server (the relay to the workspace's ledger server loads nothing heavier).
 */
let logSink: ((text: string, level: 'info' | 'warning') => void) | undefined;

/** Where the main thread's log lines go besides stderr (the client, as MCP log messages). */
export function setLogSink(sink: typeof logSink): void {
  logSink = sink;
}

export function log(text: string, level: 'info' | 'warning' = 'warning'): void {
  process.stderr.write(`context-ledger mcp: ${text}\n`);
  logSink?.(text, level);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
