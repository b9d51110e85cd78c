/** What the interop commands do, loaded on the first of them (registered in ./index.ts). */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ImportFormat, Skipped } from '../../core/formats/common';
import type { RuleTarget } from '../../core/formats/ruleExport';
import { UserError } from '../../core/model';
import { TokenCounter } from '../../core/tokens';
import { allSkipped, applyImport, type ImportScan, nothingToImport, type ParsedImport, parseImportSources, previewImport, scanImportSources } from '../../node/folderImport';
import { writeRuleFiles } from '../../node/ruleFileExport';
import { withDelayedProgress } from '../progress';
import type { Services } from '../services';
import type { ImportProblems } from './importProblems';
import { dryRunSummary, FORMAT_LABELS, filesDetail, importedMessage, mergeParsed, nothingNewMessage, plannedLine, TARGET_LABELS, totalsLine, totalsOf } from './model';

const RULE_FILE_BUDGET_SETTING = 'contextLedger.export.ruleFileBudget';

export async function pickFolder(s: Services, verb: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = s.registry.folders();
  if (folders.length === 0) {
    void vscode.window.showWarningMessage('Context Ledger needs an open folder.');
    return undefined;
  }
  if (folders.length === 1) return folders[0];
  const current = s.contexts.currentFolder();
  const pick = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f, picked: f === current })),
    { title: `Context Ledger: which folder's ledger to ${verb}?` },
  );
  return pick?.folder;
}

/** Lets a timer (the delayed progress) run between synchronous steps. */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type ImportPick = vscode.QuickPickItem & ({ kind2: 'format'; format: ImportFormat } | { kind2: 'folder' });

export async function importKnowledge(s: Services, problems: ImportProblems, folder: vscode.WorkspaceFolder): Promise<void> {
  const root = folder.uri.fsPath;
  const scan = await withDelayedProgress('looking for knowledge to import…', breathe().then(() => scanImportSources(root, root)));
  const items: ImportPick[] = scan.detected.map((d) => ({
    kind2: 'format',
    format: d.format,
    label: FORMAT_LABELS[d.format],
    description: `${d.files.length} file${d.files.length === 1 ? '' : 's'}`,
    detail: filesDetail(d.files),
    picked: true,
  }));
  items.push({ kind2: 'folder', label: '$(folder-opened) Another folder…', description: 'choose a folder (e.g. ADRs kept under another name)', alwaysShow: true });
  const picks = await vscode.window.showQuickPick(items, {
    title: 'Context Ledger: Import Knowledge',
    placeHolder: scan.detected.length > 0 ? `Found in ${folder.name}: pick what to import` : `Found nothing known in ${folder.name}: choose a folder`,
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!picks || picks.length === 0) return;

  const formats = picks.flatMap((p) => (p.kind2 === 'format' ? [p.format] : []));
  const scans: { scan: ImportScan; formats?: ImportFormat[] }[] = formats.length > 0 ? [{ scan, formats }] : [];
  if (picks.some((p) => p.kind2 === 'folder')) {
    const chosen = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: folder.uri, openLabel: 'Import From' });
    if (!chosen?.[0]) return;
    const dir = chosen[0].fsPath;
    let other = scanImportSources(root, dir);
    // A folder picked by hand with numbered Markdown files and nothing else known: its ADRs.
    if (other.detected.length === 0) other = scanImportSources(root, dir, 'adr');
    if (other.detected.length === 0) throw nothingToImport(dir);
    scans.push({ scan: other });
  }

  const ledger = s.registry.get(folder);
  const prepared = withDelayedProgress(
    'reading the files to import…',
    (async () => {
      let parsed: ParsedImport = new Map();
      for (const { scan: one, formats: only } of scans) {
        await breathe();
        parsed = mergeParsed(parsed, parseImportSources(one, only));
      }
      const preview = await ledger.read((store) => previewImport(store, parsed));
      return { parsed, preview };
    })(),
  );
  const { parsed, preview } = await prepared;
  const walkSkipped = scans.reduce((n, x) => n + x.scan.listing.skipped.length, 0);
  const planned = totalsOf(preview, walkSkipped);
  const walk = scans.flatMap((x) => x.scan.listing.skipped);
  if (planned.added + planned.updated + planned.tasksAdded === 0) {
    logImport(s, 'Nothing new to import', scans, preview);
    void offerProblems(s, nothingNewMessage(planned), problems.report(folder, scans, skippedOf(preview, walk)));
    return;
  }
  const confirm = await vscode.window.showInformationMessage(
    `Import into the ledger of ${folder.name}? ${plannedLine(planned).replace(/^it/, 'It')}.`,
    { modal: true, detail: `${dryRunSummary(preview, walk)}\n\nUnchanged entries are left alone; changed ones become new versions. Nothing is written until you choose Import.` },
    'Import',
  );
  if (confirm !== 'Import') return;

  const applied = await withDelayedProgress(
    'importing…',
    ledger.write((store) => applyImport(store, parsed), 'artifacts'),
  );
  s.artifactTree.refresh();
  s.taskTree.refresh();
  logImport(s, 'Imported', scans, applied);
  void offerProblems(s, importedMessage(folder.name, applied, walkSkipped), problems.report(folder, scans, skippedOf(applied, walk)));
}

function skippedOf(reports: ReturnType<typeof applyImport>, walk: readonly Skipped[]): Skipped[] {
  return [...reports.flatMap((r) => r.skipped), ...walk];
}

/** The outcome; with problems on files, a button to the Problems view (the log has the rest). */
async function offerProblems(s: Services, message: string, shown: number): Promise<void> {
  const problems = 'Show Problems';
  const log = 'Show Log';
  const pick = await vscode.window.showInformationMessage(message, ...(shown > 0 ? [problems] : []), log);
  if (pick === problems) await vscode.commands.executeCommand('workbench.actions.view.problems');
  if (pick === log) s.logger.show();
}

/** Every file's outcome to the log channel: what was skipped and why, with file and line. */
function logImport(s: Services, what: string, scans: readonly { scan: ImportScan }[], reports: ReturnType<typeof applyImport>): void {
  const report = { folder: scans.map((x) => x.scan.folder).join(', '), dryRun: false, formats: reports, skipped: scans.flatMap((x) => x.scan.listing.skipped) };
  s.logger.info(`${what} from ${report.folder}: ${totalsLine(totalsOf(reports, report.skipped.length))}`);
  for (const r of reports) s.logger.info(`  ${FORMAT_LABELS[r.format]}: ${r.added.length} added, ${r.updated.length} updated, ${r.unchanged.length} unchanged, ${r.skipped.length} skipped`);
  for (const skipped of allSkipped(report)) s.logger.warn(`  skipped ${skipped.where}: ${skipped.reason}`);
}

export async function exportAgentRules(s: Services, folder: vscode.WorkspaceFolder): Promise<void> {
  const { ruleFileBudget: budget, tokenizer } = s.config.get(folder.uri);
  const pick = await vscode.window.showQuickPick(
    (Object.keys(TARGET_LABELS) as RuleTarget[]).map((target) => ({ label: TARGET_LABELS[target].label, description: TARGET_LABELS[target].where, target })),
    { title: 'Context Ledger: Export to Agent Rules', placeHolder: `Write the ledger's active, reviewed knowledge as rule files agents read (at most ${budget} tokens a file)` },
  );
  if (!pick) return;
  const ledger = s.registry.get(folder);
  const latest = await ledger.read((store) => store.latestArtifacts());
  const counter = await TokenCounter.load(tokenizer);
  let report: ReturnType<typeof writeRuleFiles>;
  try {
    report = writeRuleFiles(folder.uri.fsPath, pick.target, latest, { budget, count: (text) => counter.count(text) });
  } catch (error) {
    // The core says "raise the budget"; here that is a setting.
    if (error instanceof UserError && /too small/.test(error.message)) throw new UserError(error.message, `Raise the setting ${RULE_FILE_BUDGET_SETTING}.`);
    throw error;
  }
  s.logger.info(`Exported ${pick.label} to ${report.folder}: ${report.files.map((f) => `${f.path} (${f.tokens} tokens, ${f.included} artifacts)`).join('; ') || 'no files'}`);
  for (const l of report.leftOut) s.logger.info(`  left out ${l.id} "${l.title}": ${l.reason}`);
  for (const r of report.removed) s.logger.info(`  removed ${r} (an earlier export; no longer produced)`);
  const open = (relative: string) => () => vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, relative));

  for (const r of report.refused) {
    s.logger.warn(`  refused to overwrite ${r.path}: ${r.reason}`);
    const choice = await vscode.window.showWarningMessage(
      `Context Ledger did not overwrite ${r.path}: it was written by hand (it has no "Generated by Context Ledger" header). Move or rename it to export there.`,
      'Open It',
    );
    if (choice) await open(r.path)();
  }
  const unreviewed = report.unreviewed > 0 ? ` ${report.unreviewed} unreviewed artifact${report.unreviewed === 1 ? '' : 's'} left out.` : '';
  if (report.files.length === 0) {
    if (report.refused.length === 0) void vscode.window.showInformationMessage(`Context Ledger: nothing to export — no active, reviewed global or path-scoped artifacts.${unreviewed}`);
    return;
  }
  // Nothing is dropped for size (what does not fit goes to a further file); what is left out is
  // left out for what it is (agent-requested, or the same knowledge as another item), named in the log.
  const leftOut = report.leftOut.length > 0 ? `, ${report.leftOut.length} left out (not always-on, or said by another; see the log)` : '';
  const choice = await vscode.window.showInformationMessage(
    `Context Ledger: wrote ${report.files.length === 1 ? report.files[0]!.path : `${report.files.length} ${pick.label} files`} (${report.files.reduce((n, f) => n + f.included, 0)} artifacts` +
      `, at most ${budget} tokens a file${leftOut})${report.removed.length ? `, removed ${report.removed.length} from an earlier export` : ''}.${unreviewed}`,
    'Open',
  );
  if (choice) await open(report.files[0]!.path)();
}

export async function syncFolderMirror(s: Services, folder: vscode.WorkspaceFolder): Promise<void> {
  const ledger = s.registry.get(folder);
  const report = await withDelayedProgress('syncing the artifact files…', ledger.syncFiles());
  s.artifactTree.refresh();
  const where = path.relative(folder.uri.fsPath, report.folder) || report.folder;
  const summary =
    `${report.added.length} added to the ledger, ${report.updated.length} updated, ${report.archived.length} archived, ` +
    `${report.written.length} files written, ${report.removed.length} removed`;
  s.logger.info(`Synced ${report.folder}: ${summary}, ${report.conflicts.length} conflicts`);
  for (const c of report.conflicts) s.logger.warn(`  CONFLICT ${c.path}: ${c.note}`);
  for (const p of report.problems) s.logger.warn(`  skipped ${p.path}: ${p.message}`);

  if (report.conflicts.length > 0) {
    const pick = await vscode.window.showWarningMessage(
      `Context Ledger: synced ${where} with ${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'} — nothing was lost: both sides are versions of the artifact; pick one with Resolve… in the Artifacts view. ${summary}.`,
      'Show Log',
    );
    if (pick) s.logger.show();
    return;
  }
  // Always a button: VS Code cuts a toast without one to a line, which hid the counts.
  const pick = await vscode.window.showInformationMessage(`Context Ledger: synced ${where} — ${summary}.`, 'Show Log');
  if (pick) s.logger.show();
}
