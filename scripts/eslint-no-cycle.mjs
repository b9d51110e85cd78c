// @ts-check
// An ESLint rule that keeps import cycles out of src/: a module that imports itself through
// others cannot be read, tested or moved on its own, and its load order decides what is
// `undefined` at start-up. Type-only imports count too: the two modules still cannot be
// understood apart. The graph is built once per lint run from the TypeScript sources
// (relative imports, re-exports and dynamic imports), and every file in a cycle is reported
// with the path that leads back to it. It reads the files as saved: an editor's long-lived
// ESLint server keeps the first graph it built, so `npm run lint` is the check that counts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** @type {Map<string, Map<string, string[]>>} root -> file -> files it imports */
const graphs = new Map();

/** The file a relative specifier names, as TypeScript resolves it; undefined for packages. */
function resolve(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  // `./x.js` names `./x.ts` (node16 resolution); `./x` names `./x.ts` or `./x/index.ts`.
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

function listSources(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listSources(full, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function graphOf(root) {
  let graph = graphs.get(root);
  if (!graph) {
    graph = new Map();
    for (const file of listSources(root)) {
      const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      const targets = info.importedFiles.map((f) => resolve(file, f.fileName)).filter((f) => f !== undefined);
      graph.set(file, [...new Set(targets)]);
    }
    graphs.set(root, graph);
  }
  return graph;
}

/** A shortest path of imports from `file` back to itself, or undefined when there is none. */
function cycleThrough(graph, file) {
  const previous = new Map();
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.shift();
    for (const next of graph.get(current) ?? []) {
      if (next === file) {
        const chain = [current];
        while (chain[0] !== file) chain.unshift(previous.get(chain[0]));
        return [...chain, file];
      }
      if (!previous.has(next)) {
        previous.set(next, current);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow import cycles between the modules under a source root.' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
    messages: { cycle: 'Import cycle: {{chain}}. Move the shared piece to the module it belongs to.' },
  },
  create(context) {
    const root = path.resolve(context.cwd, context.options[0]?.root ?? 'src');
    return {
      Program(node) {
        const file = path.resolve(context.filename);
        if (!file.startsWith(root + path.sep)) return;
        const chain = cycleThrough(graphOf(root), file);
        if (chain) context.report({ node, messageId: 'cycle', data: { chain: chain.map((f) => path.relative(root, f)).join(' → ') } });
      },
    };
  },
};

/** Every import cycle under `root`, each as the chain from one of its files back to it (for tests and scripts). */
export function importCycles(root) {
  const graph = graphOf(path.resolve(root));
  return [...graph.keys()].map((file) => cycleThrough(graph, file)).filter((chain) => chain !== undefined);
}

export const localRules = { rules: { 'no-cycle': noCycle } };
