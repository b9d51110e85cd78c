/**
 * The manifest's commands and menus, generated from this file (`npm run build` writes them
 * into package.json's `contributes` through manifestContributions.ts), so the manifest cannot
 * drift from the code: the keys of COMMAND_CONTRIBUTIONS are typed by the commands the tables
 * and the feature files register (commands/tableIds.ts), so the compiler refuses a registered
 * command without a title or a title for a command nobody registers, and a menu entry can name
 * only such a command. The category is the same for all. vscode-free: the build runs it.
 */
import { AGENT_COMMANDS } from './agent/ids';
import type { ContributedCommandId } from './commands/tableIds';
import { CATEGORY, COMMANDS } from './ids';
import { INTEROP_COMMANDS } from './interop/ids';
import { WORKSPACE_SCHEME_WHEN } from './workspaceUris';

export interface CommandContribution {
  title: string;
  /** A codicon, `$(name)`: shown where the command is a button (view title bars, inline on rows). */
  icon?: string;
}

export interface MenuEntry {
  command: ContributedCommandId;
  when?: string;
  group?: string;
}

export type MenuId = 'commandPalette' | 'view/title' | 'view/item/context' | 'editor/context' | 'explorer/context';

/** Each contributed command's title and icon, in the order the manifest lists them. */
export const COMMAND_CONTRIBUTIONS: Readonly<Record<ContributedCommandId, CommandContribution>> = {
  [COMMANDS.buildContext]: { title: 'Build agent context', icon: '$(sparkle)' },
  [COMMANDS.previewContext]: { title: 'Preview agent context', icon: '$(open-preview)' },
  [COMMANDS.showDetails]: { title: 'Show context details', icon: '$(info)' },
  [COMMANDS.openInspector]: { title: 'Open Context Inspector', icon: '$(graph)' },
  [COMMANDS.openArtifact]: { title: 'Open artifact', icon: '$(go-to-file)' },
  [COMMANDS.copyUrn]: { title: 'Copy URN', icon: '$(copy)' },
  [COMMANDS.addArtifact]: { title: 'Add artifact', icon: '$(add)' },
  [COMMANDS.pin]: { title: 'Pin', icon: '$(pin)' },
  [COMMANDS.unpin]: { title: 'Unpin', icon: '$(pinned)' },
  [COMMANDS.archive]: { title: 'Archive', icon: '$(archive)' },
  [COMMANDS.deleteArtifact]: { title: 'Delete artifact', icon: '$(trash)' },
  [COMMANDS.markUseful]: { title: 'Mark useful', icon: '$(thumbsup)' },
  [COMMANDS.markNotUseful]: { title: 'Mark not useful', icon: '$(thumbsdown)' },
  [COMMANDS.newVersion]: { title: 'New version', icon: '$(edit)' },
  [COMMANDS.supersede]: { title: 'Supersede…', icon: '$(replace-all)' },
  [COMMANDS.restore]: { title: 'Restore', icon: '$(discard)' },
  [COMMANDS.resolveConflict]: { title: 'Resolve Conflict…', icon: '$(git-merge)' },
  [COMMANDS.filterArtifacts]: { title: 'Filter artifacts…', icon: '$(filter)' },
  [COMMANDS.searchArtifacts]: { title: 'Search artifacts…', icon: '$(search)' },
  [COMMANDS.clearArtifactFilter]: { title: 'Clear artifact filter', icon: '$(clear-all)' },
  [COMMANDS.createTask]: { title: 'New task…', icon: '$(add)' },
  [COMMANDS.setActiveTask]: { title: 'Set active task…', icon: '$(tasklist)' },
  [COMMANDS.setTaskStage]: { title: 'Change task stage…', icon: '$(arrow-right)' },
  [COMMANDS.clearActiveTask]: { title: 'Clear active task', icon: '$(close)' },
  [COMMANDS.addModuleMemory]: { title: 'Add module memory for the current file', icon: '$(symbol-module)' },
  [COMMANDS.addModuleMemoryForPath]: { title: 'Add module memory', icon: '$(symbol-module)' },
  [COMMANDS.importJsonl]: { title: 'Import artifacts (JSONL)…' },
  [COMMANDS.exportJsonl]: { title: 'Export artifacts (JSONL)…' },
  [COMMANDS.openDatabaseFolder]: { title: 'Open database folder', icon: '$(folder-opened)' },
  [COMMANDS.refresh]: { title: 'Refresh', icon: '$(refresh)' },
  [COMMANDS.showLog]: { title: 'Show log', icon: '$(output)' },
  [AGENT_COMMANDS.approve]: { title: 'Approve', icon: '$(check)' },
  [AGENT_COMMANDS.reject]: { title: 'Reject', icon: '$(close)' },
  [AGENT_COMMANDS.ingestInbox]: { title: 'Read the agent inbox now', icon: '$(inbox)' },
  [AGENT_COMMANDS.connectAgentHooks]: { title: 'Connect Agent Hooks…' },
  [AGENT_COMMANDS.withoutChatModel]: { title: 'Use @ledger Without a Chat Model…', icon: '$(comment-discussion)' },
  [INTEROP_COMMANDS.importKnowledge]: { title: 'Import Knowledge…', icon: '$(cloud-download)' },
  [INTEROP_COMMANDS.exportAgentRules]: { title: 'Export to Agent Rules…', icon: '$(export)' },
  [INTEROP_COMMANDS.syncMirror]: { title: 'Sync Artifact Files', icon: '$(sync)' },
  [INTEROP_COMMANDS.whichRules]: { title: 'Which Rules Apply to This File?', icon: '$(checklist)' },
};

/**
 * Where each command shows: the palette (`when` false hides it there), view title bars and
 * rows (`viewItem` is a TREE_ITEM_KINDS value), the editor's and Explorer's context menus.
 * Entries keep the order they are shown in within a group.
 */
export const MENU_CONTRIBUTIONS: Readonly<Record<MenuId, readonly MenuEntry[]>> = {
  'commandPalette': [
    { command: COMMANDS.buildContext, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.previewContext, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.showDetails, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.openInspector, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.openArtifact, when: 'false' },
    { command: COMMANDS.copyUrn, when: 'false' },
    { command: COMMANDS.addArtifact, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.pin, when: 'false' },
    { command: COMMANDS.unpin, when: 'false' },
    { command: COMMANDS.archive, when: 'false' },
    { command: COMMANDS.deleteArtifact, when: 'false' },
    { command: COMMANDS.markUseful, when: 'false' },
    { command: COMMANDS.markNotUseful, when: 'false' },
    { command: AGENT_COMMANDS.approve, when: 'false' },
    { command: AGENT_COMMANDS.reject, when: 'false' },
    { command: AGENT_COMMANDS.ingestInbox, when: 'workspaceFolderCount > 0 && isWorkspaceTrusted' },
    { command: AGENT_COMMANDS.withoutChatModel, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.newVersion, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.supersede, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.restore, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.resolveConflict, when: 'workspaceFolderCount > 0 && workspaceTrusted' },
    { command: COMMANDS.filterArtifacts, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.searchArtifacts, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.createTask, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.setActiveTask, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.addModuleMemory, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.importJsonl, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.exportJsonl, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.openDatabaseFolder, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.clearArtifactFilter, when: 'contextLedger.artifactsFiltered' },
    { command: COMMANDS.setTaskStage, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.clearActiveTask, when: 'workspaceFolderCount > 0' },
    { command: COMMANDS.addModuleMemoryForPath, when: 'false' },
    { command: INTEROP_COMMANDS.importKnowledge, when: 'workspaceFolderCount > 0' },
    { command: INTEROP_COMMANDS.exportAgentRules, when: 'workspaceFolderCount > 0' },
    { command: INTEROP_COMMANDS.syncMirror, when: 'workspaceFolderCount > 0' },
    { command: INTEROP_COMMANDS.whichRules, when: `workspaceFolderCount > 0 && ${WORKSPACE_SCHEME_WHEN}` },
  ],
  'view/title': [
    { command: COMMANDS.buildContext, when: 'view == contextLedger.artifacts', group: 'navigation@1' },
    { command: COMMANDS.addArtifact, when: 'view == contextLedger.artifacts', group: 'navigation@2' },
    { command: COMMANDS.openInspector, when: 'view == contextLedger.artifacts', group: 'navigation@3' },
    // In the … menu: with a filter on, its Clear button joins the title bar, and at the default side-bar width the view's name was cut to "Artif…".
    { command: COMMANDS.refresh, when: 'view == contextLedger.artifacts', group: '9_log@1' },
    { command: COMMANDS.showLog, when: 'view == contextLedger.artifacts', group: '9_log' },
    { command: COMMANDS.searchArtifacts, when: 'view == contextLedger.artifacts', group: 'navigation@3' },
    { command: COMMANDS.filterArtifacts, when: 'view == contextLedger.artifacts', group: 'navigation@4' },
    { command: COMMANDS.clearArtifactFilter, when: 'view == contextLedger.artifacts && contextLedger.artifactsFiltered', group: 'navigation@5' },
    { command: COMMANDS.importJsonl, when: 'view == contextLedger.artifacts', group: '2_io@1' },
    { command: COMMANDS.exportJsonl, when: 'view == contextLedger.artifacts', group: '2_io@2' },
    { command: COMMANDS.openDatabaseFolder, when: 'view == contextLedger.artifacts', group: '2_io@3' },
    { command: COMMANDS.createTask, when: 'view == contextLedger.task', group: 'navigation@1' },
    { command: COMMANDS.setActiveTask, when: 'view == contextLedger.task', group: 'navigation@2' },
    { command: COMMANDS.clearActiveTask, when: 'view == contextLedger.task && contextLedger.hasActiveTask', group: 'navigation@3' },
    { command: COMMANDS.refresh, when: 'view == contextLedger.task || view == contextLedger.files', group: 'navigation@9' },
    { command: INTEROP_COMMANDS.importKnowledge, when: 'view == contextLedger.artifacts && isWorkspaceTrusted', group: '7_interop@1' },
    { command: INTEROP_COMMANDS.exportAgentRules, when: 'view == contextLedger.artifacts && isWorkspaceTrusted', group: '7_interop@2' },
    { command: INTEROP_COMMANDS.syncMirror, when: 'view == contextLedger.artifacts && isWorkspaceTrusted', group: '7_interop@3' },
  ],
  'view/item/context': [
    { command: COMMANDS.copyUrn, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact/', group: 'inline@9' },
    { command: COMMANDS.openArtifact, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact/', group: '1_open@1' },
    { command: COMMANDS.copyUrn, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact/', group: '9_copy@1' },
    { command: COMMANDS.pin, when: 'view == contextLedger.artifacts && viewItem == artifact', group: '2_pin@1' },
    { command: COMMANDS.unpin, when: 'view == contextLedger.artifacts && viewItem == artifact.pinned', group: '2_pin@2' },
    { command: COMMANDS.markUseful, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(pinned|archived|superseded))?$/', group: '3_feedback@1' },
    { command: COMMANDS.markNotUseful, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(pinned|archived|superseded))?$/', group: '3_feedback@2' },
    { command: COMMANDS.archive, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(pinned|superseded))?$/', group: '4_status@1' },
    { command: COMMANDS.deleteArtifact, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(pinned|archived|superseded))?$/', group: '8_delete@1' },
    { command: AGENT_COMMANDS.approve, when: 'view == contextLedger.review && viewItem == unreviewedArtifact', group: 'inline@1' },
    { command: AGENT_COMMANDS.reject, when: 'view == contextLedger.review && viewItem == unreviewedArtifact', group: 'inline@2' },
    { command: AGENT_COMMANDS.approve, when: 'view == contextLedger.review && viewItem == unreviewedArtifact', group: '1_review@1' },
    { command: AGENT_COMMANDS.reject, when: 'view == contextLedger.review && viewItem == unreviewedArtifact', group: '1_review@2' },
    { command: COMMANDS.resolveConflict, when: 'view == contextLedger.artifacts && viewItem == mirrorConflict', group: 'inline@1' },
    { command: COMMANDS.newVersion, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.pinned)?$/', group: 'inline@1' },
    { command: COMMANDS.restore, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(archived|superseded)|Version)$/', group: 'inline@1' },
    { command: COMMANDS.newVersion, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.pinned)?$/', group: '1_open@2' },
    { command: COMMANDS.supersede, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.pinned)?$/', group: '4_status@2' },
    { command: COMMANDS.restore, when: 'view == contextLedger.artifacts && viewItem =~ /^artifact(\\.(archived|superseded)|Version)$/', group: '4_status@3' },
    { command: COMMANDS.setTaskStage, when: 'view == contextLedger.task && viewItem == taskField.stage', group: 'inline@1' },
    { command: COMMANDS.clearActiveTask, when: 'view == contextLedger.task && viewItem == taskField.title', group: 'inline@1' },
    { command: COMMANDS.setTaskStage, when: 'view == contextLedger.task && viewItem =~ /^taskField/', group: '1_task@1' },
    { command: COMMANDS.setActiveTask, when: 'view == contextLedger.task && viewItem =~ /^taskField/', group: '1_task@2' },
    { command: COMMANDS.clearActiveTask, when: 'view == contextLedger.task && viewItem =~ /^taskField/', group: '1_task@3' },
    { command: COMMANDS.addModuleMemoryForPath, when: 'view == contextLedger.files && viewItem == trackedFile', group: 'inline@1' },
    { command: COMMANDS.addModuleMemoryForPath, when: 'view == contextLedger.files && viewItem =~ /^trackedFile/', group: '1_memory@1' },
  ],
  'editor/context': [
    { command: COMMANDS.addModuleMemoryForPath, when: `${WORKSPACE_SCHEME_WHEN} && workspaceFolderCount > 0`, group: '9_contextLedger@1' },
    { command: INTEROP_COMMANDS.whichRules, when: `${WORKSPACE_SCHEME_WHEN}`, group: '7_contextLedger@1' },
  ],
  'explorer/context': [
    { command: COMMANDS.addModuleMemoryForPath, when: `${WORKSPACE_SCHEME_WHEN} && workspaceFolderCount > 0`, group: '9_contextLedger@1' },
    { command: INTEROP_COMMANDS.whichRules, when: `${WORKSPACE_SCHEME_WHEN} && !explorerResourceIsFolder`, group: '7_contextLedger@1' },
  ],
};

/** `contributes.commands` as package.json holds it. */
export function commandsContribution(): { command: ContributedCommandId; title: string; category: string; icon?: string }[] {
  return (Object.entries(COMMAND_CONTRIBUTIONS) as [ContributedCommandId, CommandContribution][]).map(([command, { title, icon }]) => ({
    command,
    title,
    category: CATEGORY,
    ...(icon ? { icon } : {}),
  }));
}

/** `contributes.menus` as package.json holds it. */
export function menusContribution(): Record<MenuId, MenuEntry[]> {
  return Object.fromEntries(Object.entries(MENU_CONTRIBUTIONS).map(([menu, entries]) => [menu, entries.map((e) => ({ ...e }))])) as Record<MenuId, MenuEntry[]>;
}
