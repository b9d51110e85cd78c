/** `search_artifacts`: the ledger's one search (src/core/search.ts), with type, tag and status filters, paged by cursor. */
import { z } from 'zod';
import { ARTIFACT_TYPES, artifactUrn } from '../model';
import { reviewBadge } from '../review';
import { fold, ledgerSearchDocs, searchArtifacts } from '../search';
import { MAX_TAG_CHARS, describeValue, text, args, errorResult, defineTool } from './tool';
import { READ_ONLY, oneLine, redacted, artifactData, artifactOutput } from './toolSupport';

// ------------------------------------------------------------------ search_artifacts

export const SNIPPET_CHARS = 160;
export const SEARCH_MAX_LIMIT = 50;


export function snippet(body: string, words: readonly string[]): string {
  const flat = oneLine(body);
  const folded = fold(flat);
  let at = 0;
  for (const word of words) {
    const found = folded.indexOf(word);
    if (found >= 0) {
      at = found;
      break;
    }
  }
  // NFKD folding can shift offsets slightly; a snippet a few characters off is fine.
  const start = Math.max(0, Math.min(at - 40, flat.length - SNIPPET_CHARS));
  const chars = Array.from(flat.slice(start));
  const cut = chars.slice(0, SNIPPET_CHARS).join('');
  return `${start > 0 ? '…' : ''}${cut}${chars.length > SNIPPET_CHARS ? '…' : ''}`;
}

/** A cursor names the query it pages through, so a cursor from another search is refused rather than misread. */
export function encodeCursor(offset: number, key: string): string {
  return `${offset}.${key}`;
}

export function searchKey(input: { query?: string; type?: string; tag?: string; status?: string }): string {
  let hash = 0x811c9dc5;
  for (const ch of JSON.stringify([input.query ?? '', input.type ?? '', input.tag ?? '', input.status ?? ''])) {
    hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

export const searchArtifactsTool = defineTool({
  name: 'search_artifacts',
  lmName: 'contextLedger_searchArtifacts',
  title: 'Search artifacts',
  description:
    'Finds ledger artifacts by keywords (in the title, body, tags, paths or id; case- and accent-insensitive; a sentence works, its filler words are ignored), type and tag. ' +
    'Artifacts with every keyword come first; when none has them all, those with the most. ' +
    `Returns up to "limit" matches, title matches ahead, then newest, each with id, URN, type and a short snippet; "nextCursor" pages on. ` +
    'Use it to check what is already recorded before creating an artifact, or to find one to update; fetch full text with get_artifact.',
  inputSchema: args({
    query: text('words to look for', 500).optional().describe('Keywords or a sentence, e.g. "upload retry". Omit to list by type or tag.'),
    type: z
      .enum(ARTIFACT_TYPES, { error: (issue) => `${describeValue(issue.input)} is not a type. Use one of: ${ARTIFACT_TYPES.join(', ')}.` })
      .optional()
      .describe(`Only this type: ${ARTIFACT_TYPES.join(', ')}.`),
    tag: text('a tag', MAX_TAG_CHARS, { min: 1 }).optional().describe('Only artifacts with this tag.'),
    status: z
      .enum(['active', 'superseded', 'archived', 'any'], { error: 'must be one of: active, superseded, archived, any.' })
      .optional()
      .describe('Default active: current knowledge only.'),
    limit: z
      .number({ error: 'must be a whole number.' })
      .int({ error: 'must be a whole number.' })
      .min(1, { error: 'must be at least 1.' })
      .max(SEARCH_MAX_LIMIT, { error: `must be at most ${SEARCH_MAX_LIMIT}.` })
      .optional()
      .describe(`Most results to return (default 10, at most ${SEARCH_MAX_LIMIT}).`),
    cursor: text('the nextCursor of the previous page', 100, { min: 1 }).optional().describe('The nextCursor of a previous answer with the same query: the next page.'),
  }),
  outputSchema: z.object({
    text: z.string().describe('The answer, as in the text content.'),
    keywords: z.array(z.string()).describe('The words searched for.'),
    matchedKeywords: z.number().describe('How many of the keywords each result has.'),
    total: z.number(),
    results: z.array(z.object({ ...artifactOutput, tags: z.array(z.string()), snippet: z.string() })),
    nextCursor: z.string().optional(),
  }),
  annotations: READ_ONLY,
  async handler(env, input) {
    const status = input.status ?? 'active';
    const limit = input.limit ?? 10;
    const key = searchKey(input);
    let offset = 0;
    if (input.cursor !== undefined) {
      const [at, of] = input.cursor.split('.');
      if (of !== key || !/^\d+$/.test(at ?? '')) return errorResult('This cursor belongs to another search; repeat the same query, type, tag and status with it, or leave it out to start over.');
      offset = Number(at);
    }
    const tag = input.tag?.toLowerCase();
    return env.ledger.read((store) => {
      const candidates = ledgerSearchDocs(store).filter(({ artifact: a }) =>
        (status === 'any' || a.status === status) && (!input.type || a.type === input.type) && (!tag || a.tags.some((t) => t.toLowerCase() === tag)));
      const { words, matched: best, artifacts: scored } = searchArtifacts(candidates, input.query ?? '');
      const shown = scored.slice(offset, offset + limit).map((artifact) => ({ artifact }));
      const nextCursor = offset + limit < scored.length ? encodeCursor(offset + limit, key) : undefined;
      const partial = words.length > 1 && best < words.length && scored.length > 0 ? ` No artifact has all of ${words.join(', ')}; these have ${best} of them.` : '';
      if (shown.length === 0) {
        const none =
          offset > 0
            ? `No more matches: all ${scored.length} were on earlier pages.`
            : 'No artifacts match. Try fewer or other words, or another type; nothing is recorded on this yet if none match.';
        return { text: none, data: { text: none, keywords: words, matchedKeywords: best, total: scored.length, results: [] } };
      }
      const results = shown.map(({ artifact }) => ({
        ...artifactData(env, artifact),
        tags: artifact.tags.map((t) => oneLine(t)),
        // Masked before the cut: a secret cut in half no longer looks like one.
        snippet: snippet(redacted(env, artifact.body), words),
      }));
      const lines = shown.map(({ artifact }, i) => {
        const badge = reviewBadge(artifact);
        const flags = [artifact.status !== 'active' ? artifact.status.toUpperCase() : '', badge].filter(Boolean).join(', ');
        return `- ${results[i]!.title} — ${artifact.type} · ${artifactUrn(artifact.id)}${flags ? ` [${flags}]` : ''}\n  ${results[i]!.snippet}`;
      });
      const range = scored.length > shown.length ? ` (showing ${offset + 1}–${offset + shown.length})` : '';
      const head = `${scored.length} match${scored.length === 1 ? '' : 'es'}${range}:${partial}`;
      const more = nextCursor ? `\nMore: call search_artifacts again with the same arguments and cursor "${nextCursor}".` : '';
      const answer = `${head}\n${lines.join('\n')}\n\nFull text: get_artifact with an id or URN.${more}`;
      return {
        text: answer,
        data: { text: answer, keywords: words, matchedKeywords: best, total: scored.length, results, ...(nextCursor ? { nextCursor } : {}) },
      };
    });
  },
});
