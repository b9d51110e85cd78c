/** `context-ledger sync` and `resolve`: the artifact files and their index, now (src/node/artifactFiles.ts). */
import { UserError } from '../core/model';
import type { SyncReport } from '../node/artifactFiles';
import { stringOption } from './args';
import { type Command, isJson, openSession, printJson } from './commandContext';

function renderSync(report: SyncReport): string {
  const lines = [
    `Synced ${report.folder}: ${report.added.length} added to the ledger, ${report.updated.length} updated, ${report.archived.length} archived (file deleted), ` +
      `${report.written.length} files written, ${report.removed.length} removed, ${report.conflicts.length} conflicts.`,
  ];
  for (const c of report.conflicts) lines.push(`  CONFLICT ${c.path}: ${c.note}`);
  for (const p of report.problems.slice(0, 50)) lines.push(`  skipped ${p.path}: ${p.message}`);
  return lines.join('\n');
}

export const syncCommand: Command = {
  name: 'sync',
  summary: 'Read the artifact files (.context-ledger/artifacts/, the ledger a team commits) into the index now.',
  usage: 'context-ledger sync [--format json]',
  options: {},
  positionals: [0, 0],
  details: [
    'Every command does this first, by file size and time; `sync` does it now and reports. New files become artifacts',
    '(and get their ids written into them), edited files new versions, deleted files archive their artifact; an artifact',
    'with no file gets one. A file with git conflict markers is reported, not imported, until you keep one side with',
    '`context-ledger resolve`. Files that cannot be read (bad front matter, binary, over 10 MB) are reported and left alone.',
  ].join('\n'),
  async run(context) {
    const session = await openSession(context, true);
    let report: SyncReport;
    try {
      report = await session.syncFiles();
    } finally {
      session.close();
    }
    if (isJson(context)) printJson(context, report);
    else context.out(renderSync(report));
    if (report.conflicts.length > 0) context.err(`context-ledger: ${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'}: nothing was lost; see above.`);
    return report.problems.length > 0 || report.conflicts.length > 0 ? 1 : 0;
  },
};

export const resolveCommand: Command = {
  name: 'resolve',
  summary: 'List the artifact files git left with conflict markers, or keep one side of one.',
  usage: 'context-ledger resolve [<id|file> --keep mine|theirs] [--format json]',
  options: {
    keep: { type: 'string', value: 'mine|theirs', description: 'mine: this clone\'s version (the index\'s latest); theirs: the other side of the git merge.' },
  },
  positionals: [0, 1],
  details: [
    'A merge that changed an artifact file on both sides leaves git\'s conflict markers in it; nothing is imported from it',
    'until a person decides. Keeping one side makes it the latest version, keeps the other in the history (theirs is',
    'imported as a version), and writes the file clean; `git add` it to tell git the merge is resolved.',
  ].join('\n'),
  async run(context) {
    const ref = context.positionals[0];
    if (ref === undefined) {
      const session = await openSession(context, false);
      let conflicts;
      try {
        conflicts = await session.conflicts();
      } finally {
        session.close();
      }
      if (isJson(context)) return printJson(context, conflicts);
      context.out(
        conflicts.length === 0
          ? 'No conflicts.'
          : conflicts.map((c) => `${c.chainId || '(no id)'}  git conflict markers  ${c.path}  ${c.title}`).join('\n'),
      );
      return conflicts.length === 0 ? 0 : 1;
    }
    const keep = stringOption(context.options, 'keep');
    if (keep !== 'mine' && keep !== 'theirs') throw new UserError('Say which side to keep: --keep mine or --keep theirs.');
    const session = await openSession(context, false);
    try {
      const kept = await session.resolveConflict(ref.replace(/\\/g, '/').replace(/^.*\.context-ledger\/artifacts\//, ''), keep);
      if (isJson(context)) return printJson(context, kept);
      context.out(`Resolved ${kept.chainId}: kept ${keep === 'mine' ? 'your' : 'their'} version (v${kept.version}, ${kept.id}); the other stays in its history.`);
    } finally {
      session.close();
    }
  },
};
