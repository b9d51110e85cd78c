import * as vscode from 'vscode';
import type { AssembleResult } from '../core/assemble';
import type { Task } from '../core/model';
import type { ChatTurn } from '../core/sources';
import type { LiveSourcesRequest } from '../core/sources/report';
import type { LedgerStore } from '../core/store';
import { activePaths } from './activePaths';
import { lazily } from './lazy';
import type { ConfigService } from './config';
import type { FileActivityTracker } from './fileActivityTracker';
import { relativePathIn } from './workspaceUris';
import type { LedgerRegistry } from './ledgers';
import type { Logger } from './logger';
import type { EditorSourceRequest, EditorSources } from './sources';
import type { TerminalFailures } from './sources/terminalLogs';
import type { GitTracker } from './git';
import { markStale } from '../core/git';

/**
 * The assembler and the live sources' parsers (Markdown among them) load with the first
 * build, which activation schedules but does not wait for.
 */
const assembly = lazily(async () => {
  const [{ assembleContext }, { conversationCandidates }] = await Promise.all([import('../core/assemble/index.js'), import('../core/sources/index.js')]);
  return { assembleContext, conversationCandidates };
});

/** Who asked for a build; it ends up in the assembly log. */
export type BuildTrigger = 'command' | 'preview' | 'status-bar' | 'auto-inject';

export interface BuiltContext {
  folder: vscode.WorkspaceFolder;
  result: AssembleResult;
  /** The active paths the context was built for, most important first. */
  paths: string[];
  task: Task | undefined;
  trigger: BuildTrigger;
  builtAt: Date;
}

export interface BuildOptions {
  trigger: BuildTrigger;
  /** Write an assembly_log row (and count injections). Background builds pass false. */
  log: boolean;
  /** Fix the clock (a background build and its logged twin must agree byte for byte). */
  now?: Date;
  /** A what-if budget instead of the setting (the inspector's "try budget N"); such a build is not remembered as the last one. */
  budget?: number;
  /** The chat an `@ledger` request is part of: the conversation source. */
  conversation?: readonly ChatTurn[];
  /** Count what each excluded artifact would cost in full (the inspector shows it). */
  excludedTokens?: boolean;
}

/**
 * Builds agent context for a workspace folder from what is in front of the user: the one
 * entry point every surface (command, status bar, auto-inject) uses, and it always goes
 * through the core `assembleContext`.
 */
export class ContextService {
  private readonly last = new Map<string, BuiltContext>();
  /** The live sources (off by default) load when first turned on. */
  private readonly sources: () => Promise<EditorSources>;

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly config: ConfigService,
    private readonly tracker: FileActivityTracker,
    private readonly logger: Logger,
    private readonly git?: GitTracker,
    terminals?: TerminalFailures,
  ) {
    this.sources = lazily(async () => new (await import('./sources/index.js')).EditorSources(terminals));
  }

  /** The folder of the active editor, else the only folder (or the first that has a ledger). */
  currentFolder(): vscode.WorkspaceFolder | undefined {
    const editor = vscode.window.activeTextEditor;
    const fromEditor = editor ? this.registry.folderOf(editor.document.uri) : undefined;
    if (fromEditor) return fromEditor;
    const folders = this.registry.folders();
    if (folders.length <= 1) return folders[0];
    return this.registry.foldersWithLedger()[0] ?? folders[0];
  }

  /** Workspace-relative paths of the visible editors (active first) and the other open tabs, in `folder`. */
  editorPaths(folder: vscode.WorkspaceFolder): { visible: string[]; open: string[] } {
    const rel = (uri: vscode.Uri): string | undefined =>
      this.registry.folderOf(uri)?.uri.toString() === folder.uri.toString() ? relativePathIn(folder, uri) : undefined;
    const visible: string[] = [];
    const active = vscode.window.activeTextEditor;
    const ordered = active ? [active, ...vscode.window.visibleTextEditors.filter((e) => e !== active)] : vscode.window.visibleTextEditors;
    for (const editor of ordered) {
      const p = rel(editor.document.uri);
      if (p && !visible.includes(p)) visible.push(p);
    }
    const open: string[] = [];
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        const uri = input instanceof vscode.TabInputText ? input.uri : input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
        const p = uri ? rel(uri) : undefined;
        if (p && !visible.includes(p) && !open.includes(p)) open.push(p);
      }
    }
    return { visible, open };
  }

  /** The active paths for `folder`, given its store (call inside a ledger read). */
  activePathsFor(folder: vscode.WorkspaceFolder, store: LedgerStore, now = new Date()): string[] {
    const { visible, open } = this.editorPaths(folder);
    const work = (p: string): boolean => this.tracker.isWorkFile(folder, p);
    return activePaths({
      visible: visible.filter(work),
      open: open.filter(work),
      branch: (this.git?.branchFiles(folder) ?? []).filter(work),
      activity: this.tracker.withPending(folder, store.fileActivity()).filter((a) => work(a.path)),
      now,
      halfLifeHours: this.config.get(folder.uri).tracking.halfLifeHours,
    });
  }

  /**
   * What the live sources offer for `task` in `folder` (off unless `contextLedger.sources
   * .enabled`): editor code, diagnostics, failed terminal commands and log files, docs, deployment, git, and the chat of an
   * `@ledger` request when the conversation source is on.
   */
  async liveSources(
    folder: vscode.WorkspaceFolder,
    task: EditorSourceRequest['task'] | undefined,
    conversation: readonly ChatTurn[] = [],
  ): Promise<LiveSourcesRequest | undefined> {
    const { sources } = this.config.get(folder.uri);
    if (!sources.enabled) return undefined;
    const { visible, open } = this.editorPaths(folder);
    const candidates = await (await this.sources()).collect({ folder, kinds: sources.kinds, ...(task ? { task } : {}), visible, open, ...(sources.logFiles ? { logFiles: sources.logFiles } : {}) });
    if (sources.settings.conversation?.enabled !== false) candidates.push(...(await assembly()).conversationCandidates(conversation));
    return { candidates, settings: sources.settings, profile: sources.profile, ...(sources.profileRules ? { profileRules: sources.profileRules } : {}) };
  }

  async build(folder: vscode.WorkspaceFolder, options: BuildOptions): Promise<BuiltContext> {
    const config = this.config.get(folder.uri);
    const configured = this.config.assembleOptions(folder.uri);
    const assembleOptions = options.excludedTokens ? { ...configured, reportExcludedTokens: true } : configured;
    const ledger = this.registry.get(folder);
    const now = options.now ?? new Date();
    const run = async (store: LedgerStore): Promise<BuiltContext> => {
      const paths = this.activePathsFor(folder, store, now);
      const task = store.getActiveTask();
      const live = await this.liveSources(folder, task, options.conversation);
      const { assembleContext } = await assembly();
      const assembled = await assembleContext(store, {
        ...(live ? { sources: live } : {}),
        budget: options.budget ?? config.budget,
        tokenizer: config.tokenizer,
        now,
        paths,
        options: assembleOptions,
        trigger: options.trigger,
        log: options.log,
      });
      const result = this.git ? markStale(assembled, this.git.staleFlags(folder)) : assembled;
      return { folder, result, paths, task, trigger: options.trigger, builtAt: now };
    };
    const built = options.log && ledger.exists() ? await ledger.writeAsync(run, 'log') : await ledger.read(run);
    if (options.budget === undefined) this.last.set(folder.uri.toString(), built);
    this.logger.debug(
      `Built context (${options.trigger}) for ${folder.name}: ${built.result.tokensUsed}/${built.result.budget} tokens, ` +
        `${built.result.items.length} items, ${built.result.durationMs} ms; paths: ${built.paths.slice(0, 5).join(', ') || '(none)'}`,
    );
    return built;
  }

  /** The most recent build for `folder`, from any trigger. */
  lastBuilt(folder: vscode.WorkspaceFolder): BuiltContext | undefined {
    return this.last.get(folder.uri.toString());
  }
}
