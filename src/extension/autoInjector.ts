import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfigService } from './config';
import type { BuiltContext } from './contextService';
import { DisposableBase } from './disposable';
import { editorReadsContributedInstructions } from './contributedInstructions';
import { writeFileInside } from '../node/files';
import { excludeFromGit } from '../node/git';
import { SETTINGS, SETTINGS_SECTION, STATE_KEYS } from './ids';
import { checkRelativePath, decideWrite, isOwnedByLedger, renderInstructionsFile } from './instructionsFile';
import type { LedgerRegistry } from './ledgers';
import type { LiveContext } from './liveContext';
import type { Logger } from './logger';

/**
 * Keeps `.github/instructions/context-ledger.instructions.md` (configurable) current with
 * the context for the files in front of the user, so Copilot picks it up on its own.
 * The extension owns that file alone: it carries a marker line, is rewritten only when
 * its content changes, and a file without the marker is never overwritten. Off in
 * untrusted workspaces.
 */
export class AutoInjector extends DisposableBase {
  private writing: Promise<void> = Promise.resolve();
  private readonly warnedInvalid = new Set<string>();
  /** Whether the editor reads the contributed chat instructions (then no file is written). */
  private readonly contributed = editorReadsContributedInstructions(vscode.version);
  private loggedContributed = false;
  /** Files already checked against git this session (a check is two or three git calls; files switch often). */
  private readonly excluded = new Set<string>();

  constructor(
    private readonly live: LiveContext,
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly logger: Logger,
    private readonly state: vscode.Memento,
  ) {
    super();
    this.register(live.onDidUpdate((s) => s.kind === 'built' && this.queue(s.built)));
    this.register(
      config.onDidChange((change) => {
        for (const folder of registry.folders()) {
          if (change.affects('autoInject.enabled', folder.uri) && !this.config.get(folder.uri).autoInject.enabled) this.queueRemove(folder);
        }
      }),
    );
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => live.schedule()));
  }

  /** Workspace-relative path of the instructions file for `folder`, when the setting is valid. */
  relativePath(folder: vscode.WorkspaceFolder): string | undefined {
    const checked = checkRelativePath(this.config.get(folder.uri).autoInject.path);
    return 'path' in checked ? checked.path : undefined;
  }

  private enabledFor(folder: vscode.WorkspaceFolder): boolean {
    return vscode.workspace.isTrusted && this.config.get(folder.uri).autoInject.enabled;
  }

  private queue(built: BuiltContext): void {
    this.writing = this.writing.then(() => this.update(built)).catch((error: unknown) => this.logger.error('Updating the instructions file', error));
  }

  private queueRemove(folder: vscode.WorkspaceFolder): void {
    this.writing = this.writing.then(() => this.remove(folder)).catch((error: unknown) => this.logger.error('Removing the instructions file', error));
  }

  /** Resolves once pending writes are done (tests, deactivate). */
  whenIdle(): Promise<void> {
    return this.writing;
  }

  private async update(built: BuiltContext): Promise<void> {
    const { folder, result, paths } = built;
    if (!this.enabledFor(folder) || !this.registry.get(folder).exists()) return;
    if (this.contributed) {
      // The editor reads the instructions the extension ships (media/chat/), which send the
      // agent to the ledger's tool for this same context: nothing to write into the repository.
      if (!this.loggedContributed) {
        this.loggedContributed = true;
        this.logger.info(`VS Code ${vscode.version} reads the extension's chat instructions; auto-inject writes no file.`);
      }
      return;
    }
    const configured = this.config.get(folder.uri).autoInject.path;
    const checked = checkRelativePath(configured);
    if ('error' in checked) {
      if (!this.warnedInvalid.has(configured)) {
        this.warnedInvalid.add(configured);
        void vscode.window.showWarningMessage(`Context Ledger does not write the instructions file: ${checked.error}`, 'Open Settings').then((pick) => {
          if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${SETTINGS.autoInjectPath}`);
        });
      }
      return;
    }
    const file = path.join(folder.uri.fsPath, ...checked.path.split('/'));
    const next = renderInstructionsFile(result.text, { paths, tokensUsed: result.tokensUsed, budget: result.budget });
    const existing = await readIfExists(file);
    const decision = decideWrite(existing, next);
    if (decision === 'unchanged') return;
    if (decision === 'foreign') {
      await this.warnForeign(folder, file, checked.path);
      return;
    }
    const hidden = this.keepOutOfGit(folder, file, checked.path);
    // Never through a link on the way (a `.github` folder shipped as a link), checked as it writes.
    writeFileInside(folder.uri.fsPath, file, next, checked.path);
    this.logger.info(`Updated ${checked.path} in ${folder.name}: ${result.tokensUsed}/${result.budget} tokens for ${paths.slice(0, 3).join(', ') || 'no open files'}`);
    // Not awaited: the notice waits for the user, and the writes queued behind this one must not.
    this.noticeOnce(folder, checked.path, hidden).catch((error: unknown) => this.logger.error('Showing the auto-inject notice', error));
  }

  private async remove(folder: vscode.WorkspaceFolder): Promise<void> {
    const rel = this.relativePath(folder);
    if (!rel) return;
    const file = path.join(folder.uri.fsPath, ...rel.split('/'));
    const existing = await readIfExists(file);
    if (existing === undefined || !isOwnedByLedger(existing)) return;
    await fs.promises.rm(file, { force: true });
    this.logger.info(`Auto-inject is off: removed ${rel} in ${folder.name}`);
  }

  /**
   * The file changes with every switch of editor: in git it would make `git status` never
   * clean and end up in commits. Unless the user wants it committed, it is listed in the
   * repository's `.git/info/exclude` (the team's `.gitignore` is theirs). Says whether it did.
   */
  private keepOutOfGit(folder: vscode.WorkspaceFolder, file: string, rel: string): boolean {
    if (this.config.get(folder.uri).autoInject.commit || this.excluded.has(file)) return false;
    this.excluded.add(file);
    const outcome = excludeFromGit(folder.uri.fsPath, rel);
    if (outcome === 'excluded') this.logger.info(`Listed ${rel} in ${folder.name}'s .git/info/exclude: git leaves the generated file out.`);
    if (outcome === 'tracked') this.logger.warn(`${rel} in ${folder.name} is committed in git: it will show as changed; remove it from git (git rm --cached) or set contextLedger.autoInject.commit.`);
    return outcome === 'excluded';
  }

  private async noticeOnce(folder: vscode.WorkspaceFolder, rel: string, hidden: boolean): Promise<void> {
    if (this.state.get<boolean>(STATE_KEYS.autoInjectNoticeShown)) return;
    await this.state.update(STATE_KEYS.autoInjectNoticeShown, true);
    const open = 'Open File';
    const off = 'Turn Off';
    const pick = await vscode.window.showInformationMessage(
      `Context Ledger keeps ${rel} up to date with the knowledge for the files you have open, so Copilot reads it on its own. ` +
        'It only writes that file (marked as generated)' +
        (hidden ? ', and lists it in this repository\'s .git/info/exclude so git leaves it out (contextLedger.autoInject.commit lets you commit it)' : '') +
        '. Turn it off with the setting contextLedger.autoInject.enabled.',
      open,
      off,
    );
    if (pick === open) await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, ...rel.split('/')), { preview: true });
    if (pick === off) await this.config.set(SETTINGS.autoInjectEnabled, false, vscode.ConfigurationTarget.Workspace);
  }

  private async warnForeign(folder: vscode.WorkspaceFolder, file: string, rel: string): Promise<void> {
    const warned = this.state.get<string[]>(STATE_KEYS.foreignInstructionsWarned) ?? [];
    if (warned.includes(file)) return;
    await this.state.update(STATE_KEYS.foreignInstructionsWarned, [...warned, file]);
    this.logger.warn(`${rel} in ${folder.name} was not written by Context Ledger; it is left alone.`);
    const open = 'Open File';
    const settings = 'Choose Another Path';
    const pick = await vscode.window.showWarningMessage(
      `Context Ledger did not write ${rel}: a file that it did not create is already there, and it never overwrites one. ` +
        'Point contextLedger.autoInject.path at another file, or delete that one.',
      open,
      settings,
    );
    if (pick === open) await vscode.window.showTextDocument(vscode.Uri.file(file));
    if (pick === settings) await vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${SETTINGS.autoInjectPath}`);
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
