import { type Task, type TokenizerName, UserError, isTokenizerName } from '../model';
import type { LedgerStore } from '../store';
import { DEFAULT_BUDGET, resolveOptions, validateBudget } from './options';
import { type ActivePath, toActivePath } from './paths';
import { DAY_MS } from './score';
import type { AssembleOptions, AssembleRequest, AssembleTask } from './types';

/** The task a build is for, after the request's fields overlay the stored task. */
export interface ResolvedTask {
  id?: string;
  title: string;
  description: string;
  labels: string[];
  stage?: string;
}

/** A request checked and defaulted: what every later stage may take for granted. */
export interface CheckedRequest {
  budget: number;
  tokenizer: TokenizerName;
  options: AssembleOptions;
  now: Date;
  requestedPaths: string[] | undefined;
}

export function stringArray(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new UserError(`"${name}" must be a list of strings.`);
  return value as string[];
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new UserError(`"${name}" must be text.`);
  return value;
}

/** Bad input is a user error with a way out, raised before anything is read. */
export function checkRequest(store: LedgerStore, request: AssembleRequest): CheckedRequest {
  if (request === null || typeof request !== 'object') throw new UserError('An assemble request must be an object.');
  const budget = validateBudget(request.budget === undefined ? DEFAULT_BUDGET : request.budget);
  const tokenizer = request.tokenizer ?? 'o200k_base';
  if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer ${JSON.stringify(tokenizer)}.`, 'Use o200k_base or cl100k_base.');
  const options = resolveOptions(request.options);
  const now = request.now ?? store.clock.now();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new UserError('"now" must be a valid date.');
  const requestedPaths = request.paths === undefined ? undefined : stringArray(request.paths, 'paths');
  return { budget, tokenizer, options, now, requestedPaths };
}

export function resolveTask(store: LedgerStore, requested: AssembleTask | undefined): ResolvedTask | undefined {
  let stored: Task | undefined;
  if (requested === undefined) {
    stored = store.getActiveTask();
    if (!stored) return undefined;
  } else {
    if (requested === null || typeof requested !== 'object') throw new UserError('"task" must be an object.');
    const id = optionalString(requested.id, 'task.id');
    if (id !== undefined && id.trim() !== '') {
      stored = store.getTask(id);
      if (!stored) throw new UserError(`No task "${id}".`, 'List tasks with `context-ledger task list`.');
    }
  }
  const title = optionalString(requested?.title, 'task.title') ?? stored?.title ?? '';
  const description = optionalString(requested?.description, 'task.description') ?? stored?.description ?? '';
  const labels = requested?.labels !== undefined ? stringArray(requested.labels, 'task.labels') : (stored?.labels ?? []);
  const stage = optionalString(requested?.stage, 'task.stage') ?? stored?.stage;
  const task: ResolvedTask = { title: title.trim(), description: description.trim(), labels: labels.map((l) => l.trim()).filter(Boolean) };
  if (stored) task.id = stored.id;
  if (stage && stage.trim() !== '') task.stage = stage.trim();
  return task;
}

/** The task's title and description as one text (empty without a task). */
export function taskTextOf(task: ResolvedTask | undefined): string {
  return task ? `${task.title}\n${task.description}` : '';
}

const PATH_IN_TEXT =
  /(?:^|[\s`'"(])(\.?(?:[\w.-]+\/)+[\w.*-]*|\.?[\w-]+\.(?:go|ts|tsx|js|jsx|mjs|cjs|rs|py|java|kt|rb|php|cs|cpp|cc|c|h|hpp|swift|md|mdx|yml|yaml|json|toml|ini|sh|sql|proto|css|scss|html|vue|svelte|lock|txt))(?=$|[\s`'"),:;])/g;

/** Paths written in the task text (`internal/rc/`, `.golangci.yml`) count as active paths. */
export function pathsInText(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH_IN_TEXT)) {
    const path = match[1]!;
    if (/^\.+\/?$/.test(path) || /^https?:/.test(path) || /\/\//.test(path)) continue;
    if (!found.includes(path)) found.push(path);
  }
  return found;
}

/** Without explicit paths, recently worked-on files stand in for the editor's state. */
function recentFiles(store: LedgerStore, now: Date): string[] {
  const horizon = now.getTime() - 7 * DAY_MS;
  const rows = store
    .fileActivity()
    .map((f) => {
      const times = [f.lastEditedAt, f.lastSavedAt, f.lastOpenedAt].map((t) => (t ? Date.parse(t) : 0)).filter((t) => !Number.isNaN(t));
      return { path: f.path, at: Math.max(0, ...times) };
    })
    .filter((f) => f.at >= horizon)
    .sort((a, b) => b.at - a.at || (a.path < b.path ? -1 : 1));
  return rows.slice(0, 20).map((f) => f.path);
}

/** The files in play: the requested paths (else recently worked-on files), then paths the task names; no repeats. */
export function activePaths(store: LedgerStore, requestedPaths: string[] | undefined, now: Date, taskText: string): ActivePath[] {
  const rawPaths = [...(requestedPaths ?? recentFiles(store, now)), ...pathsInText(taskText)];
  const active: ActivePath[] = [];
  for (const raw of rawPaths) {
    const p = toActivePath(raw);
    if (p && !active.some((a) => a.path === p.path && a.isDir === p.isDir)) active.push(p);
  }
  return active;
}
