/**
 * Review of agent-written knowledge: `context-ledger inbox` lists what agents wrote and
 * no person has checked; `context-ledger review approve|reject <id>` records the verdict.
 */
import * as path from 'node:path';
import { type Artifact, artifactUrn, UserError } from '../core/model';
import { applyReview } from '../core/artifactService';
import { isUnreviewed } from '../core/review';
import { stringOption } from './args';
import { type Command, type CommandContext, isJson, openSession, printJson, withRead, withWrite } from './commands';

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
    proposedBy: a.proposedBy ?? null,
    proposedVia: a.proposedVia ?? null,
    proposedAt: a.proposedAt ?? null,
  };
}

export const inboxCommand: Command = {
  name: 'inbox',
  summary: 'List knowledge written by agents that no person has reviewed yet.',
  usage: 'context-ledger inbox [--ingest] [--format json]',
  options: { ingest: { type: 'boolean', description: 'First read the JSON files agents dropped into the inbox folder beside the database.' } },
  positionals: [0, 0],
  details:
    'Approve or reject each with `context-ledger review approve|reject <id>`. With --ingest, each `.context-ledger/inbox/*.json` is ' +
    'applied whole (as unreviewed knowledge) or moved to `inbox/rejected/` beside a `.error` file; exit code 1 if any file was not applied.',
  async run(context) {
    const failed = context.options.ingest === true ? await ingestInbox(context) : false;
    // With --ingest, the JSON output is the outcome list alone (one JSON document on stdout).
    if (context.options.ingest === true && isJson(context)) return failed ? 1 : undefined;
    const pending = await withRead(context, (store) =>
      store.latestArtifacts().filter((a) => a.status === 'active' && isUnreviewed(a)),
    );
    if (isJson(context)) return printJson(context, pending.map(inboxEntry));
    if (pending.length === 0) {
      context.out('No unreviewed artifacts.');
      return failed ? 1 : undefined;
    }
    context.out(
      [
        `${pending.length} unreviewed artifact${pending.length === 1 ? '' : 's'}:`,
        ...pending.map((a) => `  ${a.id}  ${a.type}  ${a.source}${a.proposedVia !== undefined ? ` via ${a.proposedVia}` : ''}  ${a.title}`),
        'Review with: context-ledger review approve|reject <id>',
      ].join('\n'),
    );
    return failed ? 1 : undefined;
  },
};

/** Applies the inbox files through the same code as the extension's inbox watcher; true when a file was not applied. */
async function ingestInbox(context: CommandContext): Promise<boolean> {
  // Loaded on use: inbox validation pulls in zod (dist/vendor-agent.js), which `inbox` alone and `review` never need.
  const [{ applyInboxFile }, { INBOX_FOLDER, processInbox }] = await Promise.all([import('../core/inbox.js'), import('../node/inbox.js')]);
  const session = await openSession(context, true);
  try {
    const folder = path.dirname(session.dbFile);
    // Paths in the files are relative to the workspace: the folder holding .context-ledger/.
    const root = path.basename(folder) === '.context-ledger' ? path.dirname(folder) : path.resolve(context.cwd);
    const outcomes = await processInbox(path.join(folder, INBOX_FOLDER), (parsed, file) =>
      session.write((store) => applyInboxFile(store, parsed, { workspaceRoot: root.replace(/\\/g, '/'), file })),
    );
    if (isJson(context)) {
      printJson(
        context,
        outcomes.map((o) =>
          o.status === 'ingested' ? { file: o.file, status: o.status, created: o.created.map((a) => a.id) } : { file: o.file, status: o.status, error: o.error },
        ),
      );
    } else {
      for (const o of outcomes) {
        if (o.status === 'ingested') context.out(`Ingested ${path.basename(o.file)}: ${o.created.map((a) => a.id).join(', ') || 'a decision'}`);
        else if (o.status === 'rejected') context.err(`Rejected ${path.basename(o.file)} (moved to ${o.movedTo}): ${o.error}`);
        else context.err(`Could not apply ${path.basename(o.file)} (left in the inbox): ${o.error}`);
      }
    }
    return outcomes.some((o) => o.status !== 'ingested');
  } finally {
    session.close();
  }
}

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
