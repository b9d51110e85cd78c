// The benchmark ledgers' text: seeded, so every run of speed.mjs and startup.mjs measures the same artifacts.
import * as fs from 'node:fs';

// mulberry32: 32-bit integer arithmetic throughout. (An LCG in doubles, used before, lost
// precision past 2^53 and cycled: the 10,000 artifacts had only 87 distinct bodies, which
// flattered every cache keyed by content.)
let seed = 42;
export const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
export const vocabulary = ('session token cache hook budget ledger artifact decision context agent module path glob stage review plan ' +
  'database index query migration schema webhook payment booking retry queue worker lock timeout error handler route ' +
  'validation config deploy release test fixture mock parser render template stream buffer encoding unicode emoji ' +
  'security secret rotate audit compliance latency throughput memory leak profile trace metric alert incident').split(' ');
const TYPES = ['adr', 'decision', 'learning', 'convention', 'pattern', 'module_memory', 'note', 'changelog', 'plan', 'dependency'];
export const words = (n) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');

/** Writes `count` artifacts as the JSONL `context-ledger import` reads; returns the bytes of text (titles and bodies). */
export function writeCorpus(file, count) {
  const lines = [];
  let textBytes = 0;
  for (let i = 0; i < count; i++) {
    const paragraphs = Array.from({ length: 4 }, () => words(50 + Math.floor(random() * 20)));
    const body = `**Context**: ${paragraphs[0]}.\n\n**Decision**: ${paragraphs[1]}.\n\n${paragraphs[2]}.\n\n- ${paragraphs[3]}.`;
    const title = words(6);
    const pathScoped = random() < 0.3;
    textBytes += Buffer.byteLength(body) + Buffer.byteLength(title);
    lines.push(JSON.stringify({
      id: `bench-${i}`, type: TYPES[i % TYPES.length], title, body, tags: [vocabulary[i % vocabulary.length]],
      scope: pathScoped ? 'path' : 'global', paths: pathScoped ? [`src/${vocabulary[i % 40]}/**`] : [],
      createdAt: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
    }));
  }
  const distinct = new Set(lines.map((l) => JSON.parse(l).body)).size;
  if (distinct < count) throw new Error(`the generated corpus repeats bodies (${distinct} distinct of ${count}): caches keyed by content would look better than on a real ledger`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return textBytes;
}
