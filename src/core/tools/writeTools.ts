/** The tools that write: `create_artifact`, `propose_version`, `propose_supersession` (each an unreviewed proposal a person accepts). */
import type { z } from 'zod';
import { type Artifact, type ArtifactInput, type ArtifactType, artifactUrn, UserError, URN_PREFIX } from '../model';
import { asUnreviewed, nextVersionId } from '../review';
import { type LedgerStore } from '../store';
import { type AgentToolEnv, AGENT_ARTIFACT_TYPES, text, typeSchema, refSchema, artifactFields, args, defineTool } from './tool';
import { WRITES, oneLine, recordCreated, resolveScope, normalizePaths, cleanTags, holds, describeCreated, createdData, latestAgentMayChange, writeOutput, fold } from './toolSupport';

// ------------------------------------------------------------------ create_artifact

export function duplicateOf(store: LedgerStore, type: ArtifactType, title: string): Artifact | undefined {
  const wanted = fold(oneLine(title));
  return store.listArtifacts({ type, status: 'active' }).find((a) => fold(oneLine(a.title)) === wanted);
}

export const createArtifactSchema = args({
  type: typeSchema.describe(`One of: ${AGENT_ARTIFACT_TYPES.join(', ')}.`),
  ...artifactFields,
});

/** create_artifact's input after validation (also what an inbox file holds per artifact). */
export type CreateArtifactInput = z.output<typeof createArtifactSchema>;

/**
 * Records one agent-written artifact (unreviewed, with provenance) in `store`: synchronous,
 * so several can share one transaction (an inbox file applies whole or not at all).
 * Throws UserError for a duplicate title, a path outside the workspace or a bad scope.
 */
export function recordAgentArtifact(
  store: LedgerStore,
  env: Pick<AgentToolEnv, 'agent' | 'channel' | 'workspaceRoot'>,
  input: CreateArtifactInput,
): Artifact {
  const paths = normalizePaths(env, input.paths);
  const tags = cleanTags(input.tags);
  const duplicate = duplicateOf(store, input.type, input.title);
  if (duplicate) {
    throw new UserError(
      `An active ${input.type} titled "${duplicate.title}" already exists: ${artifactUrn(duplicate.id)}.`,
      'To add to it or correct it, call propose_version with its id; to replace it, call propose_supersession; if it is a different fact, give it a more specific title.',
    );
  }
  const { scope, taskId } = resolveScope(store, { ...(input.scope ? { scope: input.scope } : {}), ...(paths ? { paths } : {}) });
  const artifact = store.createArtifact(
    asUnreviewed(
      {
        type: input.type,
        scope,
        taskId,
        title: oneLine(input.title),
        body: input.body,
        ...(paths ? { paths } : {}),
        ...(tags ? { tags } : {}),
        ...(input.summary !== undefined ? { summary: input.summary } : {}),
      },
      { agent: input.agent ?? env.agent, channel: env.channel },
      store.clock.now().toISOString(),
    ),
  );
  recordCreated(store, artifact);
  return artifact;
}

export const createArtifactTool = defineTool({
  name: 'create_artifact',
  lmName: 'contextLedger_createArtifact',
  title: 'Record knowledge',
  description:
    'Records one piece of project knowledge for future tasks and agents: a decision (with the options weighed), a learning (what surprised you or cost time), a research finding (the conclusions of an investigation, a spike or documentation you read, with where they came from: links, versions, dates), ' +
    'a module_memory (how a module works and its traps; give its paths), a pattern, a convention, a plan, an adr, a dependency note, a changelog entry or a note. ' +
    'One fact per artifact, specific title, the why in the body. Search first (search_artifacts) to avoid duplicates; to change an existing artifact use propose_version. ' +
    'What you record is marked unreviewed until a person approves it. Returns the new id and URN.',
  inputSchema: createArtifactSchema,
  outputSchema: writeOutput,
  annotations: WRITES,
  async handler(env, input) {
    const created = await env.ledger.write((store) => recordAgentArtifact(store, env, input));
    const reply = describeCreated(env, 'Created', created);
    return { text: reply, data: { ...createdData(env, created), text: reply } };
  },
});

// ------------------------------------------------------------------ propose_version

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export const proposeVersionTool = defineTool({
  name: 'propose_version',
  lmName: 'contextLedger_proposeVersion',
  title: 'Propose a new version',
  description:
    'Adds a new version to an existing artifact when its content is incomplete, out of date or wrong but it is still the same piece of knowledge. ' +
    'Give the id, URN or title and only the fields that change (a new body replaces the old one: send the whole corrected text). ' +
    'Earlier versions are kept; the new one is marked unreviewed. To replace an artifact with a different one, use propose_supersession.',
  inputSchema: args({
    id: refSchema.describe(`The artifact to revise: its id, ${URN_PREFIX}<id> (any version of it) or its title as build_context shows it.`),
    type: typeSchema.optional().describe('A new type, if the old one was wrong.'),
    ...artifactFields,
    title: artifactFields.title.optional(),
    body: artifactFields.body.optional().describe('The whole new Markdown body (replaces the old one).'),
    reason: text('why this version', 500).optional().describe('Why it changes, in a sentence; shown to the reviewer.'),
  }),
  outputSchema: writeOutput,
  annotations: WRITES,
  async handler(env, input) {
    const paths = normalizePaths(env, input.paths);
    const tags = cleanTags(input.tags);
    const outcome = await env.ledger.write((store) => {
      const latest = latestAgentMayChange(store, input.id, 'revise');
      const nextPaths = paths ?? latest.paths;
      const { scope, taskId } = resolveScope(store, {
        scope: input.scope ?? latest.scope,
        paths: nextPaths,
        taskId: latest.taskId,
      });
      const next = {
        type: input.type ?? latest.type,
        scope,
        taskId: scope === 'task' ? taskId : null,
        paths: nextPaths,
        title: input.title !== undefined ? oneLine(input.title) : latest.title,
        body: input.body ?? latest.body,
        summary: input.summary ?? latest.summary,
        tags: tags ?? latest.tags,
      };
      const unchanged =
        next.type === latest.type && next.scope === latest.scope && next.taskId === latest.taskId && sameList(next.paths, latest.paths) &&
        next.title === latest.title && next.body === latest.body && next.summary === latest.summary && sameList(next.tags, latest.tags);
      if (unchanged) return { changed: false as const, artifact: latest };
      const at = store.clock.now().toISOString();
      const input2: ArtifactInput = asUnreviewed(
        {
          ...next,
          id: nextVersionId(store, latest.chainId, latest.version + 1),
          chainId: latest.chainId,
          version: latest.version + 1,
          status: latest.status,
          supersedes: latest.supersedes,
          pinned: latest.pinned,
          createdAt: latest.createdAt,
          updatedAt: at,
          conditions: latest.conditions,
          extra: { ...latest.extra, previousVersion: latest.id, ...(input.reason ? { changeNote: oneLine(input.reason) } : {}) },
        },
        { agent: input.agent ?? env.agent, channel: env.channel },
        at,
      );
      const artifact = store.createArtifact(input2);
      recordCreated(store, artifact);
      return { changed: true as const, artifact, previous: latest };
    });
    if (!outcome.changed) {
      const same = `Nothing changed: the fields you sent equal the latest version, ${artifactUrn(outcome.artifact.id)} (version ${outcome.artifact.version}).`;
      return { text: same, data: { ...createdData(env, outcome.artifact), text: same, changed: false } };
    }
    const reply = `${describeCreated(env, `Recorded version ${outcome.artifact.version} of`, outcome.artifact, `version ${outcome.previous.version}, ${artifactUrn(outcome.previous.id)}`)} The previous version ${artifactUrn(outcome.previous.id)} is kept in the history.`;
    return { text: reply, data: { ...createdData(env, outcome.artifact), text: reply, changed: true, previousId: outcome.previous.id } };
  },
});

// ------------------------------------------------------------------ propose_supersession

export const proposeSupersessionTool = defineTool({
  name: 'propose_supersession',
  lmName: 'contextLedger_proposeSupersession',
  title: 'Propose a replacement',
  description:
    'Records a new artifact that replaces an existing one whose knowledge no longer holds (e.g. a decision that was reversed, a pattern that was abandoned). ' +
    'The old artifact is marked superseded and leaves the context; its history is kept, and the new one is marked unreviewed. ' +
    'Give the id, URN or title of the old one in "supersedes" and the full new artifact. If the old one only needs a correction, use propose_version.',
  inputSchema: args({
    supersedes: refSchema.describe(`The artifact being replaced: its id, ${URN_PREFIX}<id> or its title.`),
    type: typeSchema.optional().describe('Type of the new artifact (default: the type of the one it replaces).'),
    ...artifactFields,
    reason: text('why the old one no longer holds', 500).optional().describe('Why the old knowledge no longer holds, in a sentence; shown to the reviewer.'),
  }),
  outputSchema: writeOutput,
  annotations: WRITES,
  async handler(env, input) {
    const paths = normalizePaths(env, input.paths);
    const tags = cleanTags(input.tags);
    const outcome = await env.ledger.write((store) => {
      const old = latestAgentMayChange(store, input.supersedes, 'supersede');
      const type = input.type ?? old.type;
      if (type === 'constitution') {
        throw new UserError('The replacement cannot be a constitution rule; only a person adds those. Give "type" another value, e.g. convention.');
      }
      // The same check create_artifact makes: a replacement that repeats another active artifact's title is a duplicate of it.
      const duplicate = duplicateOf(store, type, input.title);
      if (duplicate && duplicate.chainId !== old.chainId) {
        throw new UserError(
          `An active ${type} titled "${duplicate.title}" already exists: ${artifactUrn(duplicate.id)}.`,
          'If it already says what the replacement should, supersede with a different title or revise that one with propose_version.',
        );
      }
      const { scope, taskId } = resolveScope(store, { ...(input.scope ? { scope: input.scope } : {}), ...(paths ? { paths } : {}) });
      const at = store.clock.now().toISOString();
      const { superseded, by } = store.supersedeWith(
        old.id,
        asUnreviewed(
          {
            type,
            scope,
            taskId,
            title: oneLine(input.title),
            body: input.body,
            ...(paths ? { paths } : {}),
            ...(tags ? { tags } : {}),
            ...(input.summary !== undefined ? { summary: input.summary } : {}),
            extra: { supersedesId: old.id, ...(input.reason ? { changeNote: oneLine(input.reason) } : {}) },
          },
          { agent: input.agent ?? env.agent, channel: env.channel },
          at,
        ),
      );
      recordCreated(store, by);
      return { superseded, by };
    });
    const old = `${artifactUrn(outcome.superseded.id)} "${oneLine(outcome.superseded.title)}"`;
    const reply = holds(env)
      ? `${describeCreated(env, 'Created', outcome.by, old)} It supersedes ${old} once a person approves it.`
      : `${describeCreated(env, 'Created', outcome.by)} It supersedes ${old}, which is now marked superseded and leaves the context (a reviewer can undo this).`;
    return {
      text: reply,
      data: { ...createdData(env, outcome.by), text: reply, supersededId: outcome.superseded.id, supersededChainId: outcome.superseded.chainId },
    };
  },
});
