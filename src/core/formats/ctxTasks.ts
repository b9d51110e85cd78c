/**
 * ctx's TASKS.md → tasks: open (`- [ ]`) top-level items, their `#tags` as labels and
 * `#added:` as the creation date (src/core/formats/ctx.ts reads the other files).
 */
import type { ImportedTask } from './common';
import { type IdAllocator, clauseTitle, ctxStampToIso, slugId } from './common';
import type { Token, Tokens } from './markdown';
import { headingText, isHeading, listItemText } from './markdown';

/** What a task needs of the file being read. */
export interface TaskContext {
  /** Id prefix (`ctx`). */
  prefix: string;
  source: string;
  ids: IdAllocator;
}

/** `#in-progress`, `#priority:high`, and `#added:` hard-wrapped before its value. */
const HASHTAG = /(?<![\w/#&`])#([A-Za-z][\w.\-/]*)(?::[ \t]*\n?[ \t]*(\w[\w.:\-/]*))?/g;
const DATE_VALUE = /^\d{4}-\d{2}-\d{2}/;

export function readTasks(ctx: TaskContext, tokens: readonly Token[]): ImportedTask[] {
  const tasks: ImportedTask[] = [];
  let section: string | null = null;
  for (const token of tokens) {
    if (isHeading(token)) {
      if (token.depth > 1) section = headingText(token);
      continue;
    }
    if (token.type !== 'list') continue;
    let open: ImportedTask | null = null;
    for (const item of (token as Tokens.List).items) {
      const text = listItemText(item);
      if (item.task) {
        open = item.checked ? null : makeTask(ctx, text, section);
        if (open) tasks.push(open);
        continue;
      }
      // `[-]` is "skipped"; any other plain bullet right after an open task is a
      // continuation that lost its indentation: keep it (and its #tags) with the task.
      if (/^\[-\]/.test(text)) {
        open = null;
        continue;
      }
      if (open) {
        open.description = `${open.description}\n${text}`;
        applyTags(open, text);
      }
    }
  }
  return tasks;
}

function makeTask(ctx: TaskContext, text: string, section: string | null): ImportedTask {
  const withoutTags = text.replace(HASHTAG, '').replace(/[ \t]+/g, ' ');
  const title = clauseTitle(withoutTags) || clauseTitle(text) || 'Untitled task';
  const task: ImportedTask = {
    id: ctx.ids.next(slugId(`${ctx.prefix}-task`, title, 50)),
    title,
    description: text,
    labels: [],
    section,
    createdAt: null,
    source: ctx.source,
  };
  applyTags(task, text);
  return task;
}

function applyTags(task: ImportedTask, text: string): void {
  const withoutCode = text.replace(/`[^`\n]*`/g, '');
  for (const match of withoutCode.matchAll(HASHTAG)) {
    const key = match[1]!.replace(/[.\-/]+$/, '');
    const value = match[2]?.replace(/[.:\-/]+$/, '');
    if (value !== undefined && DATE_VALUE.test(value)) {
      // Dates are metadata, not labels; `#added:` is when the task was created.
      if (key === 'added') task.createdAt ??= ctxStampToIso(value);
      continue;
    }
    const tag = value === undefined ? key : `${key}:${value}`;
    if (key !== '' && !task.labels.includes(tag)) task.labels.push(tag);
  }
}
