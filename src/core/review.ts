/**
 * Review state of agent-written knowledge: the typed `review`, `proposedBy/Via/At` and
 * `reviewedBy/At` fields (src/core/artifactSchema.ts), and the provenance in `source`
 * (`agent:<name>`).
 */
import { REVIEW_STATES, type ReviewState } from './artifactSchema';
import type { Artifact, ArtifactInput, RecordedFields } from './model';

export { REVIEW_STATES, type ReviewState };

/** How an agent reached the ledger; recorded so a reviewer can weigh the claim. */
export type AgentChannel = 'mcp' | 'lm-tool' | 'chat' | 'inbox' | (string & {});

export interface AgentProvenance {
  /** The agent's self-reported name (MCP clientInfo.name, the chat model, ...), if any. */
  agent?: string;
  channel: AgentChannel;
}

const MAX_AGENT_NAME = 40;

/**
 * A name safe to put in `source`: the agent chooses it, so it is folded to a short,
 * printable slug rather than trusted as text.
 */
export function agentSlug(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_AGENT_NAME);
  return slug === '' ? undefined : slug;
}

/** `agent:<name>`, or plain `agent` when the caller did not say who it is. */
export function agentSource(provenance: AgentProvenance): string {
  const slug = agentSlug(provenance.agent);
  return slug ? `agent:${slug}` : 'agent';
}

export function isAgentSource(source: string): boolean {
  return source === 'agent' || source.startsWith('agent:');
}

export function reviewState(artifact: Pick<Artifact, 'review'>): ReviewState | undefined {
  return artifact.review;
}

/** Agent-written knowledge no person has approved yet. */
export function isUnreviewed(artifact: Pick<Artifact, 'review'>): boolean {
  return reviewState(artifact) === 'unreviewed';
}

/** Stamps an input as unreviewed agent knowledge, keeping what else it records. */
export function asUnreviewed<T extends ArtifactInput>(input: T, provenance: AgentProvenance, at: string): T {
  const slug = agentSlug(provenance.agent);
  return {
    ...input,
    source: agentSource(provenance),
    review: 'unreviewed',
    proposedVia: provenance.channel,
    ...(slug ? { proposedBy: slug } : {}),
    proposedAt: at,
  };
}

/**
 * The review fields a reviewed artifact should carry; the artifact service writes them as a
 * new version (src/core/artifactService.ts applyReview). `reviewer` is who decided, e.g. `user`.
 */
export function markReviewed(verdict: Exclude<ReviewState, 'unreviewed'>, reviewer: string, at: string): RecordedFields {
  return { review: verdict, reviewedBy: reviewer, reviewedAt: at };
}

/** One short label for lists and tool output; empty for ordinary, person-written knowledge. */
export function reviewBadge(artifact: Pick<Artifact, 'review' | 'source'>): string {
  const state = reviewState(artifact);
  if (state === 'unreviewed') return `UNREVIEWED (${artifact.source})`;
  if (state === 'rejected') return 'REJECTED';
  return '';
}
