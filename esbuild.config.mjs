// Bundles the extension and the CLI. The CLI is bundled *without* `vscode` marked
// external, so a stray `vscode` import reaching src/core (or the CLI) fails the build.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const require = createRequire(import.meta.url);

const { version } = require('./package.json');

const common = {
  bundle: true,
  // `context-ledger --version` and the MCP server's handshake report the package's version.
  define: { CONTEXT_LEDGER_VERSION: JSON.stringify(version) },
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  // jsonc-parser's UMD build requires its parts at run time, which a bundle cannot satisfy: bundle its ES module build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));

// Each tokenizer is ~2 MB of rank data: it lives in its own files beside the bundles
// and is required only when something counts tokens, so start-up never parses it. The ranks
// are gpt-tokenizer's own, written as JSON (src/node/tokenizerFile.ts says why).
const TOKENIZERS = ['o200k_base', 'cl100k_base'];
for (const name of TOKENIZERS) {
  writeFileSync(path.join('dist', `tokenizer-${name}.json`), JSON.stringify(require(`gpt-tokenizer/bpeRanks/${name}`).default));
}
const tokenizerFiles = {
  name: 'tokenizer-files',
  setup(build) {
    // Reached through a stub that require()s the file: an external `import()` would go
    // through Node's ESM loader, which first lexes the 2.5 MB file for its exports (~70 ms).
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\// }, (args) => ({ path: args.path.split('/').pop(), namespace: 'tokenizer' }));
    build.onLoad({ filter: /.*/, namespace: 'tokenizer' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./tokenizer-${args.path}.js`)});`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/tokenizer-/, namespace: 'tokenizer' }, (args) => ({ path: args.path, external: true }));
  },
};

// The heavy libraries live in files beside cli.js and extension.js, so `add`, `list` and
// `build` (and the extension's activation) do not parse ~1.5 MB they never run. The modules that import them are reached only through
// `import()` in src/cli (esbuild then defers their top-level code), and each import of a
// library below becomes `require('./vendor-<chunk>.js')[<specifier>]`, read on first use.
// zod has its own file: the ledger's side (the tools' schemas, in the extension host and in the MCP server's
// ledger thread) needs it without the MCP SDK, which imports the same zod file (one zod in any process).
const VENDOR_CHUNKS = {
  zod: ['zod', 'zod/v4'],
  agent: ['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'],
  formats: ['yaml', 'marked'],
  // Reading and editing JSON with comments: the MCP server's workspace settings, `hooks install`.
  settings: ['jsonc-parser'],
};
const vendorOf = new Map(Object.entries(VENDOR_CHUNKS).flatMap(([chunk, specifiers]) => specifiers.map((s) => [s, chunk])));
/** Resolves each vendor library to its file; `own` (a vendor chunk's build) bundles its own libraries instead. */
const vendorFilesExcept = (own) => ({
  name: 'vendor-files',
  setup(build) {
    build.onResolve({ filter: /^(zod|yaml|marked|jsonc-parser|@modelcontextprotocol\/(sdk|server))(\/|$)/ }, (args) => {
      if (own && vendorOf.get(args.path) === own) return undefined;
      if (own && !vendorOf.has(args.path)) return undefined;
      if (!vendorOf.has(args.path)) {
        return { errors: [{ text: `"${args.path}" is not in a vendor chunk: add it to VENDOR_CHUNKS in esbuild.config.mjs.` }] };
      }
      return { path: args.path, namespace: 'vendor' };
    });
    build.onResolve({ filter: /^\.\/vendor-/, namespace: 'vendor' }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./vendor-${vendorOf.get(args.path)}.js`)}).modules[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
  },
});
const vendorFiles = vendorFilesExcept(undefined);
const vendorBuilds = Object.entries(VENDOR_CHUNKS).map(([chunk, specifiers]) => ({
  ...common,
  sourcemap: false,
  stdin: {
    contents: [
      ...specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`),
      `export const modules = { ${specifiers.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(', ')} };`,
    ].join('\n'),
    resolveDir: '.',
  },
  outfile: `dist/vendor-${chunk}.js`,
  plugins: [vendorFilesExcept(chunk)],
}));

// The extension is an ES module split into chunks (VS Code loads `.mjs` extensions natively from 1.100,
// the `engines` minimum): activation then compiles only the chunk activate() needs, and each module
// reached through `import()` (src/extension/lazy.ts) is its own file, compiled on first use. Most of
// activation's "code loading" was V8 compiling one 0.6 MB file. The banner gives the chunks what
// the bundled CommonJS code expects: `require` (node: built-ins, the vendor and tokenizer files beside
// the chunks), `__filename` and `__dirname` (sql-wasm.wasm is found beside the code).
const ESM_BANNER = [
  "import { createRequire as __ledgerCreateRequire } from 'node:module';",
  "import { fileURLToPath as __ledgerFileURLToPath } from 'node:url';",
  'const require = __ledgerCreateRequire(import.meta.url);',
  'const __filename = __ledgerFileURLToPath(import.meta.url);',
  "const __dirname = __ledgerFileURLToPath(new URL('.', import.meta.url));",
].join(' ');
// Chunks of an earlier build have other hashes: remove them, so none is packaged.
for (const file of readdirSync('dist')) if (/^extension(-[\w-]+)?\.mjs(\.map)?$|^extension\.js(\.map)?$/.test(file)) rmSync(path.join('dist', file));

const builds = [
  // The extension shares the CLI's vendor files: the modules that use them are reached through `import()`
  // (src/extension/lazy.ts), so activation neither parses nor runs zod, yaml or marked.
  {
    ...common,
    format: 'esm',
    splitting: true,
    entryPoints: { extension: 'src/extension/extension.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'extension-[hash]',
    banner: { js: ESM_BANNER },
    external: ['vscode'],
    plugins: [tokenizerFiles, vendorFiles],
  },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [tokenizerFiles, vendorFiles] },
  // What installed agent hooks run: a few kilobytes that ask the workspace's warm hook server, and use dist/cli.js only when none answers (src/cli/hookMain.ts).
  // `.cjs`: Node then need not read the package.json (69 KB) to learn the file's module type, at every hook.
  { ...common, entryPoints: ['src/cli/hookMain.ts'], outfile: 'dist/hook.cjs', banner: { js: '#!/usr/bin/env node' }, plugins: [tokenizerFiles, vendorFiles] },
  ...vendorBuilds,
  // The Context Inspector webview: a browser bundle with only the vscode-elements it imports.
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['src/webview/inspector/main.ts'], outfile: 'dist/webview/inspector.js' },
  // Each tokenizer: gpt-tokenizer's encoder (src/node/tokenizerFile.ts) and its rank table as JSON.
  ...TOKENIZERS.map((name) => ({
    ...common,
    sourcemap: false,
    stdin: {
      contents: `import { encodingFromFile } from './src/node/tokenizerFile';\nexport const { countTokens, encode } = encodingFromFile(${JSON.stringify(name)}, __dirname);\n`,
      resolveDir: '.',
      loader: 'ts',
    },
    outfile: `dist/tokenizer-${name}.js`,
  })),
];

/**
 * Writes the generated parts of package.json's `contributes` (src/extension/manifestContributions.ts):
 * bundled and run here, so the manifest `vsce package` reads is the code's own.
 */
async function generateManifest() {
  const { outputFiles } = await esbuild.build({ ...common, minify: false, sourcemap: false, entryPoints: ['src/extension/manifestContributions.ts'], write: false, outfile: 'manifest.js' });
  const loaded = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0].text)(loaded, loaded.exports, require);
  const before = readFileSync('package.json', 'utf8');
  const manifest = JSON.parse(before);
  Object.assign(manifest.contributes, loaded.exports.generatedContributes());
  const after = `${JSON.stringify(manifest, null, 2)}\n`;
  if (after !== before) {
    writeFileSync('package.json', after);
    console.log('package.json: contributes regenerated from the code (src/extension/manifestContributions.ts); commit the change.');
  }
}
await generateManifest();

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  chmodSync('dist/cli.js', 0o755);
  chmodSync('dist/hook.cjs', 0o755);
}
