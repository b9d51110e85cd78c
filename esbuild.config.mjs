// Bundles the extension and the CLI. The CLI is bundled *without* `vscode` marked
// external, so a stray `vscode` import reaching src/core (or the CLI) fails the build.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const require = createRequire(import.meta.url);

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
};

mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));

// Each tokenizer is ~2.5 MB of rank data: it lives in its own file beside the bundles
// and is required only when something counts tokens, so start-up never parses it.
const TOKENIZERS = ['o200k_base', 'cl100k_base'];
const tokenizerFiles = {
  name: 'tokenizer-files',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\// }, (args) => ({
      path: `./tokenizer-${args.path.split('/').pop()}.js`,
      external: true,
    }));
  },
};

const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [tokenizerFiles] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [tokenizerFiles] },
  // The Context Inspector webview: a browser bundle with only the vscode-elements it imports.
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['src/webview/inspector/main.ts'], outfile: 'dist/webview/inspector.js' },
  ...TOKENIZERS.map((name) => ({
    ...common,
    sourcemap: false,
    entryPoints: [require.resolve(`gpt-tokenizer/encoding/${name}`)],
    outfile: `dist/tokenizer-${name}.js`,
  })),
];

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  chmodSync('dist/cli.js', 0o755);
}
