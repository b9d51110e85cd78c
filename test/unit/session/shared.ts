/**
 * Two clones of one bare remote in a temporary folder, the real CLI and the real MCP
 * server (dist/cli.js) in each: what the ledger session must follow without a command in
 * between (a fresh clone, a pull, a teammate's edit).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cli, type CliResult, tempDir } from '../helpers';

export function git(cwd: string, args: string[]): string {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface Clone {
  dir: string;
  run(args: string[]): CliResult;
  commitAndPush(message: string): void;
  pull(): void;
}

export function ok(result: CliResult): CliResult {
  assert.equal(result.code, 0, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A bare remote and a function that clones it as one teammate. */
export function remote(prefix: string): { root: string; clone(name: string): Clone } {
  const root = tempDir(prefix);
  const bare = path.join(root, 'remote.git');
  git(root, ['init', '-q', '--bare', bare]);
  return {
    root,
    clone(name) {
      const dir = path.join(root, name.toLowerCase());
      git(root, ['clone', '-q', bare, dir]);
      git(dir, ['config', 'user.name', name]);
      git(dir, ['config', 'user.email', `${name.toLowerCase()}@example.com`]);
      return {
        dir,
        run: (args) => cli(args, { cwd: dir }),
        commitAndPush(message) {
          git(dir, ['add', '-A']);
          git(dir, ['commit', '-q', '-m', message]);
          git(dir, ['push', '-q', 'origin', 'HEAD:main']);
        },
        pull() {
          git(dir, ['pull', '-q', '--no-rebase', 'origin', 'main']);
        },
      };
    },
  };
}

export interface McpServer {
  call(tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; data: Record<string, unknown> | undefined }>;
  stderr(): string;
  close(): Promise<void>;
}

/** `context-ledger mcp` started in `cwd`, driven by the official SDK client. */
export async function startMcp(cwd: string, args: string[] = []): Promise<McpServer> {
  const errors: string[] = [];
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const client = new Client({ name: 'session-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(tool, input) {
      const result = await client.callTool({ name: tool, arguments: input });
      const content = result.content as Array<{ type: string; text?: string }>;
      return { text: content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'), isError: result.isError === true, data: result.structuredContent as Record<string, unknown> | undefined };
    },
    stderr: () => errors.join(''),
    close: () => client.close(),
  };
}
