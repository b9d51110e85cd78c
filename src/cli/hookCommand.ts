/**
 * `context-ledger hook <event> --agent <agent>`: what an agent's hook runs (installed hooks run
 * the same command through the light client, dist/hook.cjs: hookMain.ts). The run itself is
 * hookFront.ts; this file is the command: its options, `--last` (the log) and `--serve`.
 */
import { HOOK_AGENTS, HOOK_EVENTS, isHookAgent, isHookEvent } from '../core/hooks/agents';
import { UserError } from '../core/model';
import { readHookLog } from '../node/hooks/hookFiles';
import { stringOption } from './args';
import { type Command, type CommandContext, isJson, printJson } from './commandContext';
import { cliScript } from './hookClient';
import { runHook } from './hookFront';

function showLog(context: CommandContext): void {
  const raw = context.positionals[0];
  if (raw !== undefined && !/^\d+$/.test(raw)) throw new UserError(`\`hook --last\` takes a number of entries, not "${raw}".`);
  const count = raw === undefined ? 20 : Number(raw);
  const { file, entries } = readHookLog(context.cwd, count);
  if (isJson(context)) return printJson(context, { file, entries });
  if (entries.length === 0) {
    context.out(`No hook has run here yet (log: ${file}).`);
    return;
  }
  context.out(`Hook log: ${file}`);
  for (const e of entries) {
    const what = e.outcome === 'added' ? `added ${e.tokens ?? 0} tokens (${e.chars ?? 0} chars): ${(e.items ?? []).join(', ')}` : e.outcome;
    context.out(`${e.at}  ${e.agent} ${e.event}  ${e.ms} ms${e.server === true ? ` (hook server, CPU ${e.cpuMs ?? '?'} ms${e.refreshMs !== undefined ? `, ${e.refreshMs} ms of it reading in changed files` : ''})` : ''}  ${what}${e.detail ? `  — ${e.detail}` : ''}`);
  }
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "Answer an agent's hook: the ledger's context for this moment of its loop, never blocking it.",
  usage: `context-ledger hook <${HOOK_EVENTS.join('|')}> --agent <${HOOK_AGENTS.join('|')}> [--budget <tokens>] [--now <time>]   |   context-ledger hook --last [<n>]`,
  positionals: [0, 1],
  options: {
    agent: { type: 'string', value: HOOK_AGENTS.join('|'), description: 'The agent that runs the hook: its payload and output format.' },
    budget: { type: 'string', value: 'tokens', description: 'Tokens the ledger may add at this event (defaults in docs/hooks.md).' },
    now: { type: 'string', value: 'ISO time', description: 'Build as at this time instead of the current one (reproducible benchmarks: recency is measured from it).' },
    serve: { type: 'boolean', description: 'Run the warm server that answers this workspace’s hooks (started by the first hook; see docs/hooks.md).' },
    last: { type: 'boolean', description: 'Print the newest entries of the hook log (`hook --last [<n>]`, default 20): what each hook added, or why it added nothing.' },
  },
  details: 'Reads the payload on stdin, prints the hook output on stdout, always exits 0. Set up with `context-ledger hooks install <agent>`; the reference is docs/hooks.md.',
  async run(context) {
    if (context.options.serve === true) {
      const script = cliScript();
      if (script === undefined) throw new UserError('The hook server runs from the built CLI (dist/cli.js).');
      return (await import('./hookServer.js')).serveHooks(context, script);
    }
    if (context.options.last === true) {
      showLog(context);
      return 0;
    }
    const [event] = context.positionals;
    const agent = stringOption(context.options, 'agent');
    // A person running it by hand gets told; an agent always gets exit 0 (its hook must not fail).
    if (event === undefined || !isHookEvent(event)) throw new UserError(`Name the event: one of ${HOOK_EVENTS.join(', ')}.`, 'For example `context-ledger hook prompt --agent claude-code`.');
    if (agent === undefined || !isHookAgent(agent)) throw new UserError(`--agent must be one of ${HOOK_AGENTS.join(', ')}.`);
    const budget = stringOption(context.options, 'budget');
    const now = stringOption(context.options, 'now');
    const db = stringOption(context.options, 'db');
    return runHook({
      agent,
      event,
      cwd: context.cwd,
      ...(budget !== undefined ? { budget } : {}),
      ...(now !== undefined ? { now } : {}),
      ...(db !== undefined ? { db } : {}),
      script: cliScript(),
      out: (text) => context.out(text),
      inline: async (job) => (await import('./hookRun.js')).runHookJob(job),
    });
  },
};
