/**
 * The one meaning of "artifacts matching this text", for `context-ledger list --text`, the
 * sidebar's filter and the `search_artifacts` tool (MCP, language-model tools, `@ledger /search`):
 * - Fields: the title, body, tags, paths and id of each artifact.
 * - Case and accents: query and fields are folded alike (Unicode NFKD, combining marks
 *   dropped, lower case), so "CAFÉ", "Café" and "cafe" are one word. Other scripts (CJK,
 *   Cyrillic, emoji) match as written, case-folded where they have case.
 * - Words: the query is split at anything but letters, digits, emoji and `_ . / : @ # -`
 *   (so `src/api`, `v1.2` and `@scope/pkg` stay whole), with `. : / -` trimmed from their
 *   ends; the filler words the assembler ignores ("how", "the") are dropped unless the query
 *   has nothing else; a query of punctuation only ("???") is one word, as written. ADR
 *   references are written one way ("ADR 57" is "ADR-0057").
 * - A word matches where the folded field contains it ("retr" finds "retry"); a text
 *   without spaces (Japanese) is one word.
 * - Matches: the artifacts with every word; when none has them all, those with the most.
 * - Order: more words in the title first, then the order given (the ledger's: newest first).
 * - An empty or blank query matches everything, in the order given.
 * This is not the assembler's ranking (src/core/assemble), which weighs a task against the ledger.
 */
import { isStopWord } from './assemble/text';
import { type Artifact, canonicalAdrRefs } from './model';
import type { LedgerStore } from './store';

/** Case and accents folded: what both a query and the text it is looked for in become. */
export function fold(value: string): string {
  return value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of `query` an artifact is searched for (see above). */
export function searchWords(query: string): string[] {
  const folded = fold(canonicalAdrRefs(query));
  const words = [...new Set(folded.split(/[^\p{L}\p{N}\p{Extended_Pictographic}_./:@#-]+/u).map((w) => w.replace(/^[.:/-]+|[.:/-]+$/g, '')).filter(Boolean))];
  if (words.length === 0) {
    // Punctuation only ("???", "->"): looked for as written, not taken for "anything".
    const whole = folded.trim();
    return whole === '' ? [] : [whole];
  }
  const keywords = words.filter((w) => !isStopWord(w));
  return keywords.length > 0 ? keywords : words;
}

/** One artifact's searchable text, folded once. */
export interface SearchDoc {
  artifact: Artifact;
  title: string;
  haystack: string;
}

const docs = new WeakMap<Artifact, SearchDoc>();

/** Folding 10,000 bodies costs more than the search itself: done once per artifact object. */
export function searchDoc(artifact: Artifact): SearchDoc {
  let doc = docs.get(artifact);
  if (!doc) {
    // ADR references written one way in the text as in the query: "ADR 74" in a body is found by "ADR-0074".
    const title = fold(canonicalAdrRefs(artifact.title));
    const haystack = [title, fold(canonicalAdrRefs(artifact.body)), fold(artifact.tags.join(' ')), fold(artifact.paths.join(' ')), artifact.id.toLowerCase()].join('\n');
    doc = { artifact, title, haystack };
    docs.set(artifact, doc);
  }
  return doc;
}

export interface SearchResult {
  /** The words searched for. */
  words: string[];
  /** How many of them each match has. */
  matched: number;
  /** The matching artifacts, in order (see above). */
  artifacts: Artifact[];
}

/** The artifacts of `candidates` that match `query` (see above). */
export function searchArtifacts(candidates: Iterable<Artifact | SearchDoc>, query: string): SearchResult {
  const words = searchWords(query);
  const hits: Array<{ artifact: Artifact; matched: number; titleHits: number }> = [];
  let best = 0;
  for (const candidate of candidates) {
    const doc = 'haystack' in candidate ? candidate : searchDoc(candidate);
    let matched = 0;
    for (const w of words) if (doc.haystack.includes(w)) matched++;
    if (words.length > 0 && matched === 0) continue;
    best = Math.max(best, matched);
    hits.push({ artifact: doc.artifact, matched, titleHits: words.filter((w) => doc.title.includes(w)).length });
  }
  // Every word when some artifact has them all; else as many as any has.
  const scored = hits.filter((h) => h.matched === best);
  // A stable sort keeps the given order within equal title hits.
  scored.sort((a, b) => b.titleHits - a.titleHits);
  return { words, matched: best, artifacts: scored.map((h) => h.artifact) };
}

const ledgerDocs = new WeakMap<LedgerStore, { generation: number; docs: SearchDoc[] }>();

/** The latest version of every chain in `store`, newest first, ready to search; kept until an artifact changes. */
export function ledgerSearchDocs(store: LedgerStore): SearchDoc[] {
  const cached = ledgerDocs.get(store);
  if (cached && cached.generation === store.generation) return cached.docs;
  const fresh = store.latestArtifacts().map(searchDoc);
  ledgerDocs.set(store, { generation: store.generation, docs: fresh });
  return fresh;
}

/**
 * Keeps the search text valid across writes that changed no artifact (the assembly log,
 * injection counts), which `before` is the generation before: without it each build
 * made the next search fold every body again.
 */
export function keepLedgerSearchDocs(store: LedgerStore, before: number): void {
  const cached = ledgerDocs.get(store);
  if (cached && cached.generation === before) cached.generation = store.generation;
}
