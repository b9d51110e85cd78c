/** `context-ledger sync`: the Markdown mirror and the ledger, both ways (src/node/mirrorSync.ts). */
import * as path from 'node:path';
import { type SyncReport, syncMirror } from '../node/mirrorSync';
import { stringOption } from './args';
import { type Command, databasePath, isJson, openLedger, printJson } from './commandContext';

function renderSync(report: SyncReport): string {
  const lines = [
    `Synced ${report.folder}: ${report.added.length} added to the ledger, ${report.updated.length} updated, ${report.archived.length} archived (file deleted), ` +
      `${report.written.length} files written, ${report.removed.length} removed, ${report.conflicts.length} conflicts.`,
  ];
  for (const c of report.conflicts) lines.push(`  CONFLICT ${c.path}: ${c.note}${c.copy ? `\n    your edit: ${c.copy}` : ''}`);
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
    'the ledger rewrite their files. When both sides changed, the ledger version is kept and written to the file, and the',
    'edited file is copied to .context-ledger/sync-conflicts/ for you to merge (edit the mirror file, then sync again).',
    'Files that cannot be read (bad front matter, binary, over 10 MB) are reported and left alone.',
  ].join('\n'),
  async run(context) {
    const dir = stringOption(context.options, 'dir');
    const ledger = await openLedger(context, true);
    let report: SyncReport;
    try {
      report = await syncMirror({
        dbFile: databasePath(context).file,
        dir: dir ? path.resolve(context.cwd, dir) : undefined,
        write: (fn) => ledger.write(fn),
      });
    } finally {
      ledger.close();
    }
    if (isJson(context)) printJson(context, report);
    else context.out(renderSync(report));
    if (report.conflicts.length > 0) context.err(`context-ledger: ${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'}: nothing was lost; see above.`);
    return report.problems.length > 0 || report.conflicts.length > 0 ? 1 : 0;
  },
};
