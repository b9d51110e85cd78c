import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_STAGES, type Task, UserError } from '../../core/model';
import { moveTaskToStage } from '../../core/stages';
import { moduleMemoryTemplate } from '../artifactFields';
import { isFolderRoot, isWorkspaceFile, relativePathIn } from '../workspaceUris';
import { COMMANDS } from '../ids';
import type { Services } from '../services';
import type { TaskNode } from '../views/taskView';
import type { TrackedFileNode } from '../views/trackedFilesView';
import { chooseFolder, type CommandTable } from './common';
import type { TASK_COMMAND_IDS } from './tableIds';
import { checkTaskPaths, describeTask, splitList } from './taskInput';

function isTaskNode(arg: unknown): arg is TaskNode {
  return typeof arg === 'object' && arg !== null && 'task' in arg && 'folder' in arg;
}

/** The task view's tasks: create, switch, clear, change stage; and module memories for files. */
export function taskCommands(s: Services): CommandTable<(typeof TASK_COMMAND_IDS)[number]> {
  const createTask = async (folder: vscode.WorkspaceFolder): Promise<Task | undefined> => {
    const title = await vscode.window.showInputBox({
      title: 'Context Ledger: new task (1/4)',
      prompt: 'What are you about to do? (the task title)',
      placeHolder: 'e.g. Stop double bookings when the payment webhook is retried',
      validateInput: (v) => (v.trim() ? undefined : 'The title cannot be empty.'),
    });
    if (title === undefined) return undefined;
    const description = await vscode.window.showInputBox({ title: 'Context Ledger: new task (2/4)', prompt: 'More about it (optional)' });
    if (description === undefined) return undefined;
    const editorPath = (() => {
      const editor = vscode.window.activeTextEditor;
      return editor ? relativePathIn(folder, editor.document.uri) : undefined;
    })();
    const pathsText = await vscode.window.showInputBox({
      title: 'Context Ledger: new task (3/4)',
      prompt: 'Files or folders it is about, comma-separated (optional); their knowledge goes into the context',
      value: editorPath ?? '',
      placeHolder: 'e.g. src/payments/webhooks.ts, src/bookings/**',
      validateInput: (v) => checkTaskPaths(splitList(v)),
    });
    if (pathsText === undefined) return undefined;
    const labelsText = await vscode.window.showInputBox({
      title: 'Context Ledger: new task (4/4)',
      prompt: 'Labels, comma-separated (optional)',
      placeHolder: 'e.g. bug, payments',
    });
    if (labelsText === undefined) return undefined;
    const task = await s.registry.get(folder).write((store) => {
      const created = store.createTask({ title: title.trim(), description: describeTask(description, splitList(pathsText)), labels: splitList(labelsText) });
      return store.setActiveTask(created.id)!;
    }, 'tasks');
    s.taskTree.refresh();
    // With a button the toast shows whole (VS Code cuts a toast without one to a line) and offers the next step.
    void vscode.window
      .showInformationMessage(`Context Ledger: "${task.title}" is the active task (stage ${task.stage}); its context follows it.`, 'Build agent context')
      .then((pick) => pick && vscode.commands.executeCommand(COMMANDS.buildContext));
    return task;
  };

  /** A module memory draft for the folder of `uri`, its path scope pre-filled. */
  const addModuleMemory = async (uri: vscode.Uri | undefined): Promise<void> => {
    if (!uri) throw new UserError('Open a file of the workspace first: the module memory is for its folder.');
    const folder = s.registry.folderOf(uri);
    const rel = folder ? (relativePathIn(folder, uri) ?? (isFolderRoot(folder, uri) ? '.' : undefined)) : undefined;
    if (!folder || rel === undefined) throw new UserError(`${uri.fsPath || uri.toString()} is not in a workspace folder: a module memory is for a folder of the workspace.`);
    // From the Explorer the argument may be the folder itself.
    const isFolder = await vscode.workspace.fs.stat(uri).then((st) => st.type === vscode.FileType.Directory, () => false);
    const dir = isFolder ? rel : path.posix.dirname(rel);
    const module = dir === '.' ? '' : dir;
    const draft = s.documents.draftUri(folder, {
      title: `Module: ${module || folder.name}`,
      type: 'module_memory',
      scope: 'path',
      paths: [module ? `${module}/**` : '**'],
      tags: [],
      taskId: null,
      summary: null,
      body: moduleMemoryTemplate(module || '.'),
    });
    await vscode.window.showTextDocument(draft, { preview: false });
    vscode.window.setStatusBarMessage(`Context Ledger: write what an agent must know about ${module || folder.name}, then save (Ctrl+S)`, 8000);
  };

  return {
    [COMMANDS.createTask]: { what: 'Creating a task', run: async (arg?: unknown) => {
      await createTask(isTaskNode(arg) ? arg.folder : await chooseFolder(s));
    } },
    [COMMANDS.setActiveTask]: { what: 'Setting the active task', run: async (arg?: unknown) => {
      const folder = isTaskNode(arg) ? arg.folder : await chooseFolder(s);
      const tasks = await s.registry.get(folder).read((store) => store.listTasks());
      type Item = vscode.QuickPickItem & { task?: Task; create?: true };
      const open = tasks.filter((t) => t.status === 'open');
      const closed = tasks.filter((t) => t.status !== 'open');
      const item = (t: Task): Item => ({
        label: `${t.active ? '$(check) ' : ''}${t.title}`,
        description: [t.stage, t.status !== 'open' ? t.status : '', t.labels.map((l) => `#${l}`).join(' ')].filter(Boolean).join(' · '),
        detail: t.description.split('\n')[0] || undefined,
        task: t,
      });
      const items: Item[] = [
        { label: '$(add) New task…', description: 'Title, description, paths, labels', create: true, alwaysShow: true },
        ...(open.length > 0 ? [{ label: 'Open tasks', kind: vscode.QuickPickItemKind.Separator }, ...open.map(item)] : []),
        ...(closed.length > 0 ? [{ label: 'Done or dropped', kind: vscode.QuickPickItemKind.Separator }, ...closed.map(item)] : []),
      ];
      const picked = await vscode.window.showQuickPick(items, { title: 'Context Ledger: set the active task', placeHolder: 'The task the context is built for', matchOnDescription: true, matchOnDetail: true });
      if (!picked) return;
      if (picked.create) {
        await createTask(folder);
        return;
      }
      const task = await s.registry.get(folder).write((store) => store.setActiveTask(picked.task!.id)!, 'tasks');
      s.taskTree.refresh();
      vscode.window.setStatusBarMessage(`Context Ledger: "${task.title}" is the active task`, 4000);
    } },
    [COMMANDS.clearActiveTask]: { what: 'Clearing the active task', run: async (arg?: unknown) => {
      const folder = isTaskNode(arg) ? arg.folder : await chooseFolder(s);
      const before = await s.registry.get(folder).read((store) => store.getActiveTask());
      if (!before) {
        vscode.window.setStatusBarMessage(`Context Ledger: ${folder.name} has no active task`, 4000);
        return;
      }
      await s.registry.get(folder).write((store) => store.setActiveTask(undefined), 'tasks');
      s.taskTree.refresh();
      vscode.window.setStatusBarMessage(`Context Ledger: "${before.title}" is no longer the active task`, 4000);
    } },
    [COMMANDS.setTaskStage]: { what: 'Changing the stage', run: async (arg?: unknown) => {
      const folder = isTaskNode(arg) ? arg.folder : await chooseFolder(s);
      const task = isTaskNode(arg) ? arg.task : await s.registry.get(folder).read((store) => store.getActiveTask());
      if (!task) throw new UserError(`${folder.name} has no active task.`, 'Set one first: "Context Ledger: Set active task".');
      // The stages setting lists the team's stages in order; the built-in ones stay pickable.
      const stages = [...new Set<string>([...s.config.get(folder.uri).stages.map((st) => st.name), ...DEFAULT_STAGES, task.stage])];
      type Item = vscode.QuickPickItem & { stage?: string };
      const items: Item[] = [
        ...stages.map((stage) => ({ label: stage, description: stage === task.stage ? 'current' : undefined, stage })),
        { label: '$(edit) Other stage…', alwaysShow: true },
      ];
      const picked = await vscode.window.showQuickPick(items, { title: `Context Ledger: stage of "${task.title}"`, placeHolder: `Now: ${task.stage}` });
      if (!picked) return;
      const stage =
        picked.stage ??
        (await vscode.window.showInputBox({
          title: 'Context Ledger: other stage',
          prompt: 'A stage name (letters, digits, - and _)',
          validateInput: (v) => (/^[\p{L}\p{N}_-]{1,40}$/u.test(v.trim()) ? undefined : 'Use 1–40 letters, digits, - or _.'),
        }))?.trim();
      if (!stage || stage === task.stage) return;
      // Leaving a stage records its summary, which the next stage's context carries as workflow memory.
      const { task: after, summary } = await s.registry.get(folder).write((store) => moveTaskToStage(store, task.id, stage), 'tasks');
      s.taskTree.refresh();
      vscode.window.setStatusBarMessage(`Context Ledger: "${after.title}" moved to ${after.stage}${summary ? ` (summary of ${task.stage} recorded)` : ''}`, 4000);
    } },
    [COMMANDS.addModuleMemory]: { what: 'Adding a module memory', run: async () => {
      const doc = vscode.window.activeTextEditor?.document;
      await addModuleMemory(doc && isWorkspaceFile(doc.uri) ? doc.uri : undefined);
    } },
    [COMMANDS.addModuleMemoryForPath]: { what: 'Adding a module memory', run: async (arg?: unknown) => {
      if (arg instanceof vscode.Uri) return addModuleMemory(arg);
      const node = arg as TrackedFileNode | undefined;
      if (node && 'file' in node) return addModuleMemory(vscode.Uri.joinPath(node.folder.uri, ...node.file.activity.path.split('/')));
      const doc = vscode.window.activeTextEditor?.document;
      return addModuleMemory(doc && isWorkspaceFile(doc.uri) ? doc.uri : undefined);
    } },
  };
}
