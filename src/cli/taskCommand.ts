import { UserError } from '../core/model';
import { moveTaskToStage } from '../core/stages';
import { listOfValues, stringOption } from './args';
import { type Command, isJson, printJson, withRead, withWrite } from './commandContext';

export const taskCommand: Command = {
  name: 'task',
  summary: 'Manage tasks: add, list, activate, stage, done.',
  usage: 'context-ledger task <add|list|activate|deactivate|stage|done|events> [args]',
  details: [
    'task add --title <text> [--description <text>] [--label <l>]... [--activate]',
    'task list',
    'task activate <task-id>          make it the active task (its context is built by default)',
    'task deactivate                  clear the active task',
    'task stage <task-id> <stage>     move it to a stage (plan, develop, review, test, ...)',
    'task done <task-id>',
    'task events <task-id>            the workflow memory recorded for it',
  ].join('\n'),
  options: {
    title: { type: 'string', description: 'Task title (add).' },
    description: { type: 'string', description: 'Task description (add).' },
    label: { type: 'string', multiple: true, description: 'A label; repeat or comma-separate (add).' },
    id: { type: 'string', description: 'An id of your own (add).' },
    activate: { type: 'boolean', description: 'Make the new task the active one (add).' },
  },
  positionals: [1, 3],
  async run(context) {
    const [action, first, second] = context.positionals;
    const { options } = context;
    const need = (value: string | undefined, what: string): string => {
      if (!value) throw new UserError(`Missing ${what}.`, `Usage: ${this.usage}`);
      return value;
    };
    switch (action) {
      case 'add': {
        const task = await withWrite(context, (store) => {
          const created = store.createTask({
            id: stringOption(options, 'id'),
            title: need(stringOption(options, 'title'), '--title'),
            description: stringOption(options, 'description'),
            labels: listOfValues(options, 'label'),
          });
          return options.activate === true ? store.setActiveTask(created.id)! : created;
        });
        if (isJson(context)) return printJson(context, task);
        return context.out(`Added task ${task.id}: ${task.title}${task.active ? ' (active)' : ''}`);
      }
      case 'list': {
        const tasks = await withRead(context, (store) => store.listTasks());
        if (isJson(context)) return printJson(context, tasks);
        return context.out(
          tasks.length === 0
            ? 'No tasks.'
            : tasks.map((t) => `${t.active ? '*' : ' '} ${t.id}  [${t.stage}/${t.status}]  ${t.title}${t.labels.length ? `  #${t.labels.join(' #')}` : ''}`).join('\n'),
        );
      }
      case 'activate':
      case 'deactivate': {
        const task = await withWrite(context, (store) => store.setActiveTask(action === 'activate' ? need(first, 'the task id') : undefined), false);
        if (isJson(context)) return printJson(context, task ?? null);
        return context.out(task ? `Active task: ${task.id} (${task.title})` : 'No active task.');
      }
      case 'stage': {
        const { task, summary } = await withWrite(context, (store) => moveTaskToStage(store, need(first, 'the task id'), need(second, 'the stage')), false);
        if (isJson(context)) return printJson(context, task);
        const produced = summary
          ? ` Recorded what stage ${summary.stage} produced: ${summary.artifactsCreated.length} artifact(s), ${summary.decisions.length} decision(s), ` +
            `${summary.commits.length} commit(s), ${summary.filesChanged.length} file(s) changed${summary.deliverable ? `, deliverable ${summary.deliverable.id}` : ''}.`
          : '';
        return context.out(`Task ${task.id} is now in stage ${task.stage}.${produced}`);
      }
      case 'done': {
        const task = await withWrite(context, (store) => store.updateTask(need(first, 'the task id'), { status: 'done' }), false);
        if (isJson(context)) return printJson(context, task);
        return context.out(`Task ${task.id} is done.`);
      }
      case 'events': {
        const events = await withRead(context, (store) => store.taskEvents(need(first, 'the task id')));
        if (isJson(context)) return printJson(context, events);
        return context.out(events.map((e) => `${e.at}  ${e.kind}  ${JSON.stringify(e.payload)}`).join('\n') || 'No events.');
      }
      default:
        throw new UserError(`Unknown task action "${action}".`, `Usage: ${this.usage}`);
    }
  },
};
