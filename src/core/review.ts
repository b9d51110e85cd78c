/**
 * Review state of agent-written knowledge. Until the schema has a column for it, the
 * state lives in `extra.review` (kept by the store and by JSONL round-trips), and the
 * provenance in `source` (`agent:<name>`), so nothing here needs a migration.
 */
import type { Artifact, ArtifactInput } from './model';

export const REVIEW_STATES = ['unreviewed', 'approved', 'rejected'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

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

export function reviewState(artifact: Pick<Artifact, 'extra'>): ReviewState | undefined {
  const value = artifact.extra.review;
  return typeof value === 'string' && (REVIEW_STATES as readonly string[]).includes(value) ? (value as ReviewState) : undefined;
}

/** Agent-written knowledge no person has approved yet. */
export function isUnreviewed(artifact: Pick<Artifact, 'extra'>): boolean {
  return reviewState(artifact) === 'unreviewed';
}

/** Stamps an input as unreviewed agent knowledge, keeping any `extra` it already carries. */
export function asUnreviewed<T extends ArtifactInput>(input: T, provenance: AgentProvenance, at: string): T {
  const slug = agentSlug(provenance.agent);
  return {
    ...input,
    source: agentSource(provenance),
    extra: {
      ...(input.extra ?? {}),
      review: 'unreviewed',
      proposedVia: provenance.channel,
      ...(slug ? { proposedBy: slug } : {}),
      proposedAt: at,
    },
  };
}

/**
 * The `extra` a reviewed artifact should carry; the artifact service writes it as a new
 * version (src/core/artifactService.ts applyReview). `reviewer` is who decided, e.g. `user`.
 */
export function markReviewed(
  artifact: Pick<Artifact, 'extra'>,
  verdict: Exclude<ReviewState, 'unreviewed'>,
  reviewer: string,
  at: string,
): Record<string, unknown> {
  return { ...artifact.extra, review: verdict, reviewedBy: reviewer, reviewedAt: at };
}

/** One short label for lists and tool output; empty for ordinary, person-written knowledge. */
export function reviewBadge(artifact: Pick<Artifact, 'extra' | 'source'>): string {
  const state = reviewState(artifact);
  if (state === 'unreviewed') return `UNREVIEWED (${artifact.source})`;
  if (state === 'rejected') return 'REJECTED';
  return '';
}
