/**
 * Activation stays cheap: what `activate()` reaches through static imports (what runs when
 * VS Code loads dist/extension.js) holds none of the libraries and parsers the commands,
 * the chat, the tools and the first build load later through `import()`. A static import
 * added anywhere on the way would bring them back; this names the chain that does.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { ROOT } from '../helpers';

const LATER = [
  /node_modules\/zod\//,
  /node_modules\/yaml\//,
  /node_modules\/marked\//,
  /node_modules\/@modelcontextprotocol\//,
  /^src\/core\/agentTools\.ts$/,
  /^src\/core\/formats\/(common|markdown|mirror|detect)\.ts$/,
  /^src\/core\/assemble\/index\.ts$/,
  /^src\/node\/folderImport\.ts$/,
  /^src\/extension\/interop\/actions\.ts$/,
  /^src\/extension\/inspector\/inspectorPanel\.ts$/,
];

test('activation loads no agent, interop, parser or Markdown code: they load on first use', async () => {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/extension/extension.ts'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['vscode', 'gpt-tokenizer/encoding/*'],
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    define: { CONTEXT_LEDGER_VERSION: '"0"' },
  });
  const inputs = result.metafile.inputs;
  const entry = 'src/extension/extension.ts';
  const via = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.external || imported.kind === 'dynamic-import' || via.has(imported.path)) continue;
      via.set(imported.path, file);
      queue.push(imported.path);
    }
  }
  const chain = (file: string): string => {
    const steps: string[] = [];
    for (let at: string | null | undefined = file; at; at = via.get(at)) steps.unshift(path.basename(at));
    return steps.join(' → ');
  };
  for (const file of via.keys()) {
    const later = LATER.find((pattern) => pattern.test(file));
    assert.equal(later, undefined, `loaded at activation: ${chain(file)}`);
  }
  // The modules deferred above are in the bundle, reached through import().
  assert.ok(Object.keys(inputs).some((f) => /node_modules\/zod\//.test(f)) || Object.keys(inputs).some((f) => f.endsWith('src/core/agentTools.ts')));
});
