/**
 * Issue 42 ("two files for one artifact"): two CLI writers, two MCP servers and a sync loop
 * on one workspace ledger at once, all real processes. Every write that reported success is
 * in the ledger (0 lost), every chain has exactly one artifact file (0 duplicates), every
 * file parses, and `sync` exits 0 during the run and afterwards.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseMirrorFile } from '../../../src/core/formats/mirror';
import { type ArtifactJson, cli, cliAsync, jsonOf, tempDir } from '../helpers';
import { ok, startMcp } from './shared';

const CLI_WRITES = 30;
const MCP_WRITES = 220;

function mirrorFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => path.join(root, f));
}

describe('concurrent writers on one workspace ledger', () => {
  it(`2 CLI writers, 2 MCP servers and a sync loop: ${2 * CLI_WRITES + 2 * MCP_WRITES} writes, none lost, one file per artifact, sync exits 0`, async () => {
    const workspace = tempDir('ledger-concurrent-');
    ok(cli(['init'], { cwd: workspace }));
    const servers = await Promise.all([startMcp(workspace), startMcp(workspace)]);
    const written = new Set<string>();
    const syncCodes: number[] = [];
    const syncFailures: string[] = [];
    let writing = true;

    const cliWriter = async (name: string): Promise<void> => {
      for (let i = 0; i < CLI_WRITES; i++) {
        const result = await cliAsync(['add', '--type', 'note', '--title', `${name} note ${i} — ünïcode`, '--body', `Written by ${name}, number ${i}.`, '--format', 'json'], { cwd: workspace });
        assert.equal(result.code, 0, result.stderr);
        written.add(jsonOf<ArtifactJson>(result).chainId);
      }
    };
    const mcpWriter = async (index: number): Promise<void> => {
      const server = servers[index]!;
      for (let i = 0; i < MCP_WRITES; i++) {
        const result = await server.call('create_artifact', { type: 'learning', title: `Agent ${index} learning ${i}`, body: `What agent ${index} learned, number ${i}.` });
        assert.equal(result.isError, false, result.text);
        written.add(String(result.data?.chainId));
      }
    };
    const syncLoop = async (): Promise<void> => {
      while (writing) {
        const result = await cliAsync(['sync'], { cwd: workspace });
        syncCodes.push(result.code);
        if (result.code !== 0) syncFailures.push(`${result.stdout}\n${result.stderr}`);
      }
    };

    try {
      const loop = syncLoop();
      await Promise.all([cliWriter('alice'), cliWriter('bob'), mcpWriter(0), mcpWriter(1)]);
      writing = false;
      await loop;
    } finally {
      writing = false;
      await Promise.all(servers.map((s) => s.close()));
    }

    assert.ok(syncCodes.length >= 2, `the sync loop ran ${syncCodes.length} times`);
    assert.deepEqual(syncFailures, [], 'every sync during the run exited 0');
    assert.equal(written.size, 2 * CLI_WRITES + 2 * MCP_WRITES, 'every write made its own artifact');
    const final = cli(['sync'], { cwd: workspace });
    assert.equal(final.code, 0, `${final.stdout}\n${final.stderr}`);
    const chains = new Set(jsonOf<ArtifactJson[]>(ok(cli(['list', '--format', 'json'], { cwd: workspace }))).map((a) => a.chainId));
    for (const chainId of written) assert.ok(chains.has(chainId), `${chainId} was written and is in the ledger`);

    const files = mirrorFiles(path.join(workspace, '.context-ledger', 'artifacts'));
    const byChain = new Map<string, string[]>();
    for (const file of files) {
      const input = parseMirrorFile(path.basename(file), fs.readFileSync(file, 'utf8'));
      const chainId = input.chainId ?? input.id!;
      byChain.set(chainId, [...(byChain.get(chainId) ?? []), file]);
    }
    const duplicates = [...byChain].filter(([, at]) => at.length > 1);
    assert.deepEqual(duplicates, [], 'no chain has two files');
    assert.equal(files.length, chains.size, 'one file per artifact');
  });
});
