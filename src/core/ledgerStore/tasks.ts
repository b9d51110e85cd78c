import type { SqlValue } from 'sql.js';
import { type Task, type TaskEvent, type TaskEventKind, type TaskStatus, UserError, TASK_EVENT_KINDS } from '../model';
import { stringList } from './artifactInput';
import { type Connection, parseJson } from './connection';

export interface TaskInput {
  id?: string;
  title: string;
  description?: string;
  labels?: string[];
  stage?: string;
  status?: TaskStatus;
}

/** Tasks (at most one active), their workflow stage, and the events of each. */
export class Tasks {
  constructor(private readonly conn: Connection) {}

  private rowToTask(row: Record<string, SqlValue>): Task {
    return {
      id: String(row.id),
      title: String(row.title),
      description: String(row.description),
      labels: parseJson<string[]>(row.labels, []),
      stage: String(row.stage),
      status: String(row.status) as TaskStatus,
      active: Number(row.active) === 1,
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
    };
  }

  create(input: TaskInput): Task {
    if (typeof input.title !== 'string' || input.title.trim() === '') throw new UserError('A task needs a non-empty title.');
    const now = this.conn.nowIso();
    let id = input.id ?? `task-${now.replace(/[-:TZ.]/g, '').slice(0, 14)}`;
    if (!input.id) for (let n = 2; this.get(id); n++) id = `task-${now.replace(/[-:TZ.]/g, '').slice(0, 14)}-${n}`;
    if (this.get(id)) throw new UserError(`A task with id "${id}" already exists.`);
    return this.conn.transaction(() => {
      this.conn.exec('INSERT INTO task (id, title, description, labels, stage, status, active, created_at, updated_at) VALUES (?,?,?,?,?,?,0,?,?)', [
        id, input.title.trim(), input.description ?? '', JSON.stringify(stringList(input.labels, 'labels')), input.stage ?? 'plan',
        input.status ?? 'open', now, now,
      ]);
      return this.get(id)!;
    });
  }

  get(id: string): Task | undefined {
    const row = this.conn.rows('SELECT * FROM task WHERE id = ?', [id])[0];
    return row ? this.rowToTask(row) : undefined;
  }

  require(id: string): Task {
    const task = this.get(id);
    if (!task) throw new UserError(`No task "${id}".`, 'List tasks with `context-ledger task list`.');
    return task;
  }

  list(): Task[] {
    return this.conn.rows('SELECT * FROM task ORDER BY active DESC, updated_at DESC, id').map((r) => this.rowToTask(r));
  }

  getActive(): Task | undefined {
    const row = this.conn.rows('SELECT * FROM task WHERE active = 1 LIMIT 1')[0];
    return row ? this.rowToTask(row) : undefined;
  }

  /** Makes `id` the one active task, or clears the active task with `undefined`. */
  setActive(id: string | undefined): Task | undefined {
    if (id !== undefined) this.require(id);
    return this.conn.transaction(() => {
      this.conn.exec('UPDATE task SET active = 0 WHERE active = 1');
      if (id === undefined) return undefined;
      this.conn.exec('UPDATE task SET active = 1, updated_at = ? WHERE id = ?', [this.conn.nowIso(), id]);
      return this.get(id);
    });
  }

  update(id: string, patch: Partial<Pick<Task, 'title' | 'description' | 'labels' | 'status'>>): Task {
    const task = this.require(id);
    const next = { ...task, ...patch };
    return this.conn.transaction(() => {
      this.conn.exec('UPDATE task SET title = ?, description = ?, labels = ?, status = ?, updated_at = ? WHERE id = ?', [
        next.title, next.description, JSON.stringify(next.labels), next.status, this.conn.nowIso(), id,
      ]);
      return this.get(id)!;
    });
  }

  /** Moves a task to `stage` and records a stage_entered event (workflow memory). */
  setStage(id: string, stage: string): Task {
    const task = this.require(id);
    if (task.stage === stage) return task;
    return this.conn.transaction(() => {
      const now = this.conn.nowIso();
      this.conn.exec('UPDATE task SET stage = ?, updated_at = ? WHERE id = ?', [stage, now, id]);
      this.addEvent(id, 'stage_entered', { stage, from: task.stage });
      return this.get(id)!;
    });
  }

  addEvent(taskId: string, kind: TaskEventKind, payload: Record<string, unknown> = {}, at?: string): void {
    if (!(TASK_EVENT_KINDS as readonly string[]).includes(kind)) throw new UserError(`Unknown task event kind "${kind}".`);
    this.conn.run('INSERT INTO task_event (task_id, kind, payload, at) VALUES (?, ?, ?, ?)', [taskId, kind, JSON.stringify(payload), at ?? this.conn.nowIso()]);
  }

  events(taskId: string): TaskEvent[] {
    return this.conn.rows('SELECT * FROM task_event WHERE task_id = ? ORDER BY at, id', [taskId]).map((row) => ({
      id: Number(row.id),
      taskId: String(row.task_id),
      kind: String(row.kind) as TaskEventKind,
      payload: parseJson<Record<string, unknown>>(row.payload, {}),
      at: String(row.at),
    }));
  }
}
