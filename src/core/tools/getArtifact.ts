/** `get_artifact` and the `ledger://artifact/{id}` resource: one artifact, paged. */
import { z } from 'zod';
import { redactOutgoing } from '../assemble';
import { artifactUrn, idFromRef, URN_PREFIX } from '../model';
import { describeMissingSection, resolveSectionRef } from '../sections';
import { MAX_BODY_BYTES } from '../store';
import { type AgentToolEnv, type AgentToolResult, refSchema, args, errorResult, defineTool, redaction } from './tool';
import { READ_ONLY, oneLine, redacted, reviewLine, successorOf, successorText, artifactData, artifactOutput } from './toolSupport';

// ------------------------------------------------------------------ get_artifact

/** About 5,000 tokens: a page an agent can take in without crowding out its task. */
export const ARTIFACT_PAGE_CHARS = 20_000;

/** Where a page of `body` starting at `offset` should end: at a line break near `limit` characters, never mid-character. */
export function pageEnd(body: string, offset: number, limit: number): number {
  const hard = Math.min(body.length, offset + limit);
  if (hard >= body.length) return body.length;
  const lineBreak = body.lastIndexOf('\n', hard);
  let end = lineBreak > offset + limit / 2 ? lineBreak + 1 : hard;
  // Never split a surrogate pair.
  if (end < body.length && /[\uDC00-\uDFFF]/.test(body[end]!)) end--;
  return end;
}

export const getArtifactTool = defineTool({
  name: 'get_artifact',
  lmName: 'contextLedger_getArtifact',
  title: 'Get an artifact',
  description:
    `Returns the full text of one ledger artifact, by id, by its URN ${URN_PREFIX}<id> (as shown in build_context previews and search_artifacts results) or by its title, ` +
    `or of one section of it, ${URN_PREFIX}<id>#<section> (as build_context shows the parts of long rule files), ` +
    `with its type, scope, paths, tags, version and review status. Secrets in the text are masked. A body longer than ${ARTIFACT_PAGE_CHARS} characters ` +
    'comes in pages: the answer says the offset to ask for next.',
  inputSchema: args({
    id: refSchema.describe(`The artifact id, its URN ${URN_PREFIX}<id> (add #<section> for one section), or its title as build_context shows it.`),
    offset: z
      .number({ error: 'must be a whole number of characters.' })
      .int({ error: 'must be a whole number of characters.' })
      .min(0, { error: 'must be 0 or more.' })
      .max(MAX_BODY_BYTES, { error: `must be at most ${MAX_BODY_BYTES}.` })
      .optional()
      .describe('Where in the body to start, in characters (default 0); use the nextOffset of the previous page.'),
    limit: z
      .number({ error: 'must be a whole number of characters.' })
      .int({ error: 'must be a whole number of characters.' })
      .min(500, { error: 'must be at least 500 characters.' })
      .max(100_000, { error: 'must be at most 100000 characters.' })
      .optional()
      .describe(`Most characters of the body to return (default ${ARTIFACT_PAGE_CHARS}).`),
  }),
  outputSchema: z.object({
    ...artifactOutput,
    source: z.string(),
    scope: z.string(),
    paths: z.array(z.string()),
    tags: z.array(z.string()),
    text: z.string().describe('The body (this page of it), secrets masked.'),
    offset: z.number(),
    totalChars: z.number(),
    nextOffset: z.number().optional().describe('Present when more of the body follows: call again with this offset.'),
    supersededBy: z.object({ id: z.string(), urn: z.string(), title: z.string().optional() }).optional(),
    latestId: z.string().optional().describe('When this is not the latest version: the latest one.'),
  }),
  annotations: READ_ONLY,
  handler: (env, input) => readArtifact(env, input),
});

/**
 * One artifact as the MCP resource `ledger://artifact/<id>` gives it: all of it, however
 * long (a client that reads only resources has no way to ask for a next page), masked.
 */
export async function artifactResource(env: AgentToolEnv, ref: string): Promise<AgentToolResult> {
  return redactOutgoing(await readArtifact(env, { id: ref, limit: Number.POSITIVE_INFINITY }), redaction(env));
}

/** get_artifact's answer: one page of the artifact `input.id` names (all of it with an infinite limit). */
export function readArtifact(env: AgentToolEnv, input: { id: string; offset?: number; limit?: number }): Promise<AgentToolResult> {
  return env.ledger.read((store) => {
    const ref = idFromRef(input.id);
    // The whole reference first (an id, or a title, which may hold a '#': "C# style"), then <id>#<section>.
    const { artifact, section, missing } = resolveSectionRef(ref, (id) => store.findArtifact(id));
    if (!artifact) {
      return errorResult(
        `No artifact "${ref}". Use an id, ${URN_PREFIX}<id> or a title from build_context or search_artifacts, or search with search_artifacts.`,
      );
    }
    if (missing) return errorResult(`${describeMissingSection(artifactUrn(artifact.id), missing)} Call get_artifact with id "${artifact.id}" for the whole text.`);
    const latest = store.latestOfChain(artifact.chainId);
    const notes: string[] = [];
    const review = reviewLine(artifact);
    if (review) notes.push(review);
    if (latest && latest.id !== artifact.id) notes.push(`This is version ${artifact.version}; the latest is ${artifactUrn(latest.id)} (version ${latest.version}).`);
    const next = artifact.status === 'superseded' ? successorOf(store, artifact) : undefined;
    if (artifact.status === 'superseded') notes.push(`SUPERSEDED${successorText(env, next)}: no longer current.${next ? ' Read that one instead.' : ''}`);
    if (artifact.status === 'archived') notes.push('ARCHIVED: no longer current.');
    if (section) notes.push(`Section "${section.heading || 'introduction'}" (${artifactUrn(artifact.id)}#${section.slug}); the whole artifact: get_artifact with id "${artifact.id}".`);
    // Masked before paging, so a page cut never splits a secret and offsets count the text sent.
    const body = redacted(env, section ? section.text : artifact.body);
    const offset = input.offset ?? 0;
    if (offset > 0 && offset >= body.length) {
      return errorResult(`offset ${offset} is past the end of ${artifactUrn(artifact.id)}: its body has ${body.length} characters.`);
    }
    const end = pageEnd(body, offset, input.limit ?? ARTIFACT_PAGE_CHARS);
    const page = body.slice(offset, end);
    if (offset > 0 || end < body.length) {
      notes.push(
        `Characters ${offset}–${end} of ${body.length}.${end < body.length ? ` More follows: call get_artifact with id "${section ? `${artifact.id}#${section.slug}` : artifact.id}" and offset ${end}.` : ' This is the end.'}`,
      );
    }
    const meta = [
      `${artifactUrn(artifact.id)} · ${artifact.type} · scope ${artifact.scope}${artifact.scope === 'task' && artifact.taskId ? ` (${artifact.taskId})` : ''}`,
      `version ${artifact.version} · ${artifact.status}${artifact.pinned ? ' · pinned' : ''} · updated ${artifact.updatedAt}`,
    ].join(' · ');
    const tags = artifact.tags.map((t) => oneLine(t));
    const lines = [`# ${oneLine(artifact.title)}`, meta];
    if (artifact.paths.length > 0) lines.push(`Paths: ${artifact.paths.join(', ')}`);
    if (tags.length > 0) lines.push(`Tags: ${tags.join(', ')}`);
    for (const note of notes) lines.push(note);
    return {
      text: `${lines.join('\n')}\n\n${page}`.trimEnd(),
      data: {
        ...artifactData(env, artifact),
        source: artifact.source,
        scope: artifact.scope,
        paths: artifact.paths,
        tags,
        text: page,
        offset,
        totalChars: body.length,
        ...(end < body.length ? { nextOffset: end } : {}),
        ...(next ? { supersededBy: { id: next.id, urn: artifactUrn(next.id), ...(next.title !== undefined ? { title: oneLine(next.title) } : {}) } } : {}),
        ...(latest && latest.id !== artifact.id ? { latestId: latest.id } : {}),
      },
    };
  });
}
