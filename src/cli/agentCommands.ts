/**
 * Review of agent-written knowledge: `context-ledger inbox` lists what agents wrote and
 * no person has checked; `context-ledger review approve|reject <id>` records the verdict.
 */
import { type Artifact, artifactUrn, UserError } from '../core/model';
import { applyReview, isUnreviewed } from '../core/review';
import { stringOption } from './args';
import { type Command, isJson, printJson, withRead, withWrite } from './commands';

function inboxEntry(a: Artifact): Record<string, unknown> {
  return {
    id: a.id,
    urn: artifactUrn(a.id),
    chainId: a.chainId,
    version: a.version,
    type: a.type,
    scope: a.scope,
    paths: a.paths,
    title: a.title,
    status: a.status,
    source: a.source,
    proposedBy: a.extra.proposedBy ?? null,
    proposedVia: a.extra.proposedVia ?? null,
    proposedAt: a.extra.proposedAt ?? null,
  };
}

export const inboxCommand: Command = {
  name: 'inbox',
  summary: 'List knowledge written by agents that no person has reviewed yet.',
  usage: 'context-ledger inbox [--format json]',
  options: {},
  positionals: [0, 0],
  details: 'Approve or reject each with `context-ledger review approve|reject <id>`.',
  async run(context) {
    const pending = await withRead(context, (store) =>
      store.latestArtifacts().filter((a) => a.status === 'active' && isUnreviewed(a)),
    );
    if (isJson(context)) return printJson(context, pending.map(inboxEntry));
    if (pending.length === 0) return context.out('No unreviewed artifacts.');
    context.out(
      [
        `${pending.length} unreviewed artifact${pending.length === 1 ? '' : 's'}:`,
        ...pending.map((a) => `  ${a.id}  ${a.type}  ${a.source}${typeof a.extra.proposedVia === 'string' ? ` via ${a.extra.proposedVia}` : ''}  ${a.title}`),
        'Review with: context-ledger review approve|reject <id>',
      ].join('\n'),
    );
  },
};

export const reviewCommand: Command = {
  name: 'review',
  summary: 'Approve or reject an artifact an agent wrote (a rejected one is archived).',
  usage: 'context-ledger review approve|reject <id|urn> [--reviewer <name>]',
  options: { reviewer: { type: 'string', description: 'Who decided (default: user).' } },
  positionals: [2, 2],
  async run(context) {
    const [verdict, ref] = context.positionals as [string, string];
    if (verdict !== 'approve' && verdict !== 'reject') {
      throw new UserError(`Unknown review action "${verdict}".`, `Usage: ${this.usage}`);
    }
    const reviewer = stringOption(context.options, 'reviewer')?.trim() || 'user';
    const result = await withWrite(context, (store) => applyReview(store, ref, verdict === 'approve' ? 'approved' : 'rejected', reviewer), false);
    if (isJson(context)) return printJson(context, result);
    context.out(
      verdict === 'approve'
        ? `Approved ${result.chainId} (version ${result.version}): ${result.title}`
        : `Rejected and archived ${result.chainId} (version ${result.version}): ${result.title}`,
    );
  },
};

export const REVIEW_COMMANDS: readonly Command[] = [inboxCommand, reviewCommand];
