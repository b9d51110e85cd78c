/** The tools that write: `create_artifact`, `propose_version`, `propose_supersession` (each an unreviewed proposal a person accepts). */
import type { z } from 'zod';
import { type Proposal, newVersion, resolveScope, supersedeChain } from '../artifactService';
import { type Artifact, type ArtifactPatch, type ArtifactType, artifactUrn, type Scope, UserError, URN_PREFIX } from '../model';
import { asUnreviewed } from '../review';
import { fold } from '../search';
import { type LedgerStore } from '../store';
import { type AgentToolEnv, AGENT_ARTIFACT_TYPES, text, typeSchema, refSchema, artifactFields, args, defineTool } from './tool';
import { WRITES, oneLine, recordCreated, normalizePaths, cleanTags, holds, describeCreated, createdData, latestAgentMayChange, writeOutput } from './toolSupport';

// ------------------------------------------------------------------ create_artifact

export function duplicateOf(store: LedgerStore, type: ArtifactType, title: string): Artifact | undefined {
  const wanted = fold(oneLine(title));
  return store.listArtifacts({ type, status: 'active' }).find((a) => fold(oneLine(a.title)) === wanted);
}

/** Refuses a title another active artifact of `type` (of another chain than `chainId`) already has, with what to do instead. */
function refuseDuplicate(store: LedgerStore, type: ArtifactType, title: string, instead: string, chainId?: string): void {
  const duplicate = duplicateOf(store, type, title);
  if (duplicate && duplicate.chainId !== chainId) {
    throw new UserError(`An active ${type} titled "${duplicate.title}" already exists: ${artifactUrn(duplicate.id)}.`, instead);
  }
}

/**
 * The artifact fields an agent sent, cleaned — paths workspace-relative and checked (before
 * the ledger is opened), tags trimmed, the title on one line — only those it gave.
 */
function sentFields(
  env: Pick<AgentToolEnv, 'workspaceRoot'>,
  input: { type?: ArtifactType; scope?: Scope; paths?: string[]; title?: string; body?: string; summary?: string; tags?: string[] },
): ArtifactPatch {
  const paths = normalizePaths(env, input.paths);
  const tags = cleanTags(input.tags);
  return {
    ...(input.type !== undefined ? { type: input.type } : {}),
    ...(input.scope !== undefined ? { scope: input.scope } : {}),
    ...(paths ? { paths } : {}),
    ...(input.title !== undefined ? { title: oneLine(input.title) } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
    ...(input.summary !== undefined ? { summary: input.summary } : {}),
    ...(tags ? { tags } : {}),
  };
}

/** Who proposes (the name the agent gave, else the one its client reported) and why. */
function proposalOf(env: Pick<AgentToolEnv, 'agent' | 'channel'>, input: { agent?: string; reason?: string }): Proposal {
  return { provenance: { agent: input.agent ?? env.agent, channel: env.channel }, ...(input.reason ? { reason: input.reason } : {}) };
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
  const fields = sentFields(env, input);
  refuseDuplicate(store, input.type, input.title, 'To add to it or correct it, call propose_version with its id; to replace it, call propose_supersession; if it is a different fact, give it a more specific title.');
  const { scope, taskId } = resolveScope(store, fields);
  const { provenance } = proposalOf(env, input);
  const artifact = store.createArtifact(
    asUnreviewed({ ...fields, type: input.type, scope, taskId, title: oneLine(input.title), body: input.body }, provenance, store.clock.now().toISOString()),
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
    const patch = sentFields(env, input);
    const outcome = await env.ledger.write((store) => {
      const current = latestAgentMayChange(store, input.id, 'revise');
      const result = newVersion(store, current.id, { patch, proposal: proposalOf(env, input) });
      if (result.changed) recordCreated(store, result.artifact);
      return result;
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
    const fields = sentFields(env, input);
    const outcome = await env.ledger.write((store) => {
      const old = latestAgentMayChange(store, input.supersedes, 'supersede');
      const type = input.type ?? old.type;
      if (type === 'constitution') {
        throw new UserError('The replacement cannot be a constitution rule; only a person adds those. Give "type" another value, e.g. convention.');
      }
      // The same check create_artifact makes: a replacement that repeats another active artifact's title is a duplicate of it.
      const instead = 'If it already says what the replacement should, supersede with a different title or revise that one with propose_version.';
      refuseDuplicate(store, type, input.title, instead, old.chainId);
      const replacement = { ...fields, type, title: oneLine(input.title), body: input.body };
      const { superseded, by } = supersedeChain(store, old.id, { input: replacement, proposal: proposalOf(env, input) });
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
