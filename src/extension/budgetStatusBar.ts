import * as vscode from 'vscode';
import { meterLevel, meterText, meterTooltip } from './budgetMeter';
import type { ConfigService } from './config';
import { DisposableBase } from './disposable';
import { COMMANDS } from './ids';
import type { LiveContext, LiveState } from './liveContext';

/**
 * `$(book) 3.1k/8k`: how much of the budget the context for the files in play uses (the
 * open editors, the branch's changes, the files worked on lately; never the ledger's own).
 * Warning colour at 90%, error colour over the budget; the tooltip breaks it down by
 * layer; a click opens the Context Inspector (what went in, what was left out and why).
 */
export class BudgetStatusBar extends DisposableBase {
  private readonly item: vscode.StatusBarItem;

  constructor(
    live: LiveContext,
    private readonly config: ConfigService,
  ) {
    super();
    this.item = this.register(vscode.window.createStatusBarItem('contextLedger.budget', vscode.StatusBarAlignment.Right, 100));
    this.item.name = 'Context Ledger Budget';
    this.item.command = COMMANDS.openInspector;
    this.register(live.onDidUpdate((state) => this.render(state)));
    this.register(config.onDidChange((change) => change.affects('statusBar.enabled') && this.render(live.state)));
    this.render(live.state);
  }

  private render(state: LiveState): void {
    const enabled = this.config.get().statusBar.enabled;
    if (!enabled || state.kind === 'none') {
      this.item.hide();
      return;
    }
    if (state.kind === 'error') {
      this.item.text = '$(book) $(warning)';
      this.item.tooltip = new vscode.MarkdownString(`**Context Ledger** could not build the context: ${state.message}\n\n_Click for the log._`);
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      this.item.command = COMMANDS.showLog;
      this.item.accessibilityInformation = { label: `Context Ledger: the context could not be built. ${state.message}` };
      this.item.show();
      return;
    }
    const { result, paths, task, folder } = state.built;
    const level = meterLevel(result.tokensUsed, result.budget);
    this.item.text = meterText(result.tokensUsed, result.budget);
    const tooltip = new vscode.MarkdownString(
      meterTooltip({
        used: result.tokensUsed,
        budget: result.budget,
        tokenizer: result.tokenizer,
        layers: result.layers,
        items: result.items,
        excludedForBudget: result.excluded.filter((e) => e.reason === 'budget').length,
        paths,
        ...(task ? { taskTitle: task.title } : {}),
        ...((vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? { folderName: folder.name } : {}),
      }),
      true,
    );
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      level === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : level === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.command = COMMANDS.openInspector;
    this.item.accessibilityInformation = {
      label: `Context Ledger: the context for the ${paths.length} files in play uses ${result.tokensUsed} of ${result.budget} tokens`,
    };
    this.item.show();
  }
}
