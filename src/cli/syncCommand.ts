/** `context-ledger sync`: the Markdown mirror and the ledger, both ways (src/node/mirrorSync.ts). */
import * as path from 'node:path';
import { UserError } from '../core/model';
import { mirrorConflicts, type SyncReport } from '../node/mirrorSync';
import { stringOption } from './args';
import { type Command, databasePath, isJson, openSession, printJson } from './commandContext';

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
  summary: 'Sync the Markdown mirror (one file per artifact, for git) and the ledger, both ways.',
  usage: 'context-ledger sync [--dir <folder>] [--format json]',
  options: {
    dir: { type: 'string', value: 'folder', description: 'The mirror folder (default: .context-ledger/artifacts beside the database).' },
  },
  positionals: [0, 0],
  details: [
    'New files become artifacts, edited files new versions, deleted files archive their artifact; artifacts changed in',
    'the ledger rewrite their files. When both sides changed, both are kept as versions of the artifact and the conflict is',
    'listed until you keep one side with `context-ledger resolve`; a file with git conflict markers is reported, not imported.',
    'Files that cannot be read (bad front matter, binary, over 10 MB) are reported and left alone.',
  ].join('\n'),
  async run(context) {
    const dir = stringOption(context.options, 'dir');
    const session = await openSession(context, true);
    let report: SyncReport;
    try {
      report = await session.syncFiles(dir ? { dir: path.resolve(context.cwd, dir) } : {});
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
  summary: 'List the artifacts in conflict after a sync, or keep one side of one.',
  usage: 'context-ledger resolve [<id|file> --keep mine|theirs] [--format json]',
  options: {
    keep: { type: 'string', value: 'mine|theirs', description: 'mine: this clone\'s version; theirs: the version that came through the mirror.' },
  },
  positionals: [0, 1],
  details: [
    'A conflict is an artifact changed on both sides (both are kept as versions), or a mirror file git left with',
    'conflict markers (nothing imported from it yet). Keeping one side makes it the latest version, keeps the other in',
    'the history, and writes the mirror file clean; `git add` it to tell git the merge is resolved.',
  ].join('\n'),
  async run(context) {
    const dbFile = databasePath(context).file;
    const ref = context.positionals[0];
    if (ref === undefined) {
      const conflicts = mirrorConflicts(dbFile);
      if (isJson(context)) return printJson(context, conflicts);
      context.out(
        conflicts.length === 0
          ? 'No conflicts.'
          : conflicts.map((c) => `${c.chainId}  ${c.kind === 'markers' ? 'git conflict markers' : 'changed on both sides'}  ${c.path}  ${c.title}`).join('\n'),
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
