/** `build_context`: the context for a task and files, within the budget as the model will count it. */
import { z } from 'zod';
import { assembleContext, DEFAULT_BUDGET, MAX_BUDGET, type AssembleResult } from '../assemble';
import { excludedSummaryOf } from '../assemble/report';
import { artifactUrn, DEFAULT_STAGES, type TokenizerName, UserError, URN_PREFIX } from '../model';
import { TokenCounter } from '../tokens';
import { type AgentToolEnv, type AgentToolResult, MAX_TITLE_CHARS, MAX_TAG_CHARS, MAX_PATH_CHARS, MAX_TASK_CHARS, MIN_BUDGET, describeValue, text, stringList, args, defineTool } from './tool';
import { READ_ONLY, workspaceRelative, oneLine, holds, withoutArtifactChanges } from './toolSupport';

// ------------------------------------------------------------------ build_context

export const BUDGET_LINE_RESERVE_MARGIN = 4;
/** Ignored paths listed by name in the answer; beyond this, a count (the note must fit small budgets). */
export const MAX_NOTED_PATHS = 5;

export interface ModeCounts {
  full: number;
  previews: number;
  titles: number;
}

export function modeCounts(result: AssembleResult): ModeCounts {
  const count = (mode: string) => result.items.filter((i) => i.mode === mode).length;
  return { full: count('full'), previews: count('preview'), titles: count('title') };
}

export function budgetLine(used: number, budget: number, tokenizer: TokenizerName, counts: ModeCounts): string {
  const parts = [
    `${counts.full} in full`,
    `${counts.previews} preview${counts.previews === 1 ? '' : 's'}`,
    `${counts.titles} title${counts.titles === 1 ? '' : 's'} only`,
  ];
  const more = counts.previews + counts.titles > 0 ? ` For the full text of a preview or title, call get_artifact with its id or ${URN_PREFIX}<id>.` : '';
  return `Context Ledger: ${used} of ${budget} tokens (${tokenizer}); ${parts.join(', ')}.${more}`;
}

/** Thrown when the caller gave up on a call: nothing more is computed and nothing is written. */
export class CancelledError extends Error {
  constructor() {
    super('The call was cancelled.');
  }
}

export function checkCancelled(env: AgentToolEnv): void {
  if (env.cancelled?.()) throw new CancelledError();
}

/** What build_context and explain share: the task as the assembler takes it, from the arguments and the active task. */
export const taskArgs = {
  task: text('what you are about to do', MAX_TASK_CHARS, { min: 1 }).describe(
    'What you are about to do, in a sentence or a paragraph: the goal, the feature or bug, the parts of the code involved.',
  ),
  title: text('a short task title', MAX_TITLE_CHARS).optional().describe('Optional short title of the task.'),
  labels: stringList('task labels', 30, MAX_TAG_CHARS).optional().describe('Optional labels, e.g. ["bug", "api"]; some knowledge applies only to labelled tasks, and a label naming a module folder (e.g. "journal") brings its notes forward.'),
  paths: stringList('workspace-relative file paths', 200, MAX_PATH_CHARS)
    .optional()
    .describe('Workspace-relative files or folders you are working on, e.g. ["src/upload/client.ts"].'),
  stage: z
    .enum(DEFAULT_STAGES, { error: (issue) => `${describeValue(issue.input)} is not a stage. Use one of: ${DEFAULT_STAGES.join(', ')}, or leave it out.` })
    .optional()
    .describe(`Optional: ${DEFAULT_STAGES.join(', ')}. Adds what to record at this stage.`),
  budget: z
    .number({ error: (issue) => `must be a number of tokens, not ${describeValue(issue.input)}.` })
    .int({ error: 'must be a whole number of tokens.' })
    .min(MIN_BUDGET, { error: `must be at least ${MIN_BUDGET} tokens.` })
    .max(MAX_BUDGET, { error: `must be at most ${MAX_BUDGET} tokens.` })
    .optional()
    .describe(`Most tokens the answer may use (default ${DEFAULT_BUDGET}). Use less when your context window is tight.`),
};

export type TaskArgs = z.output<z.ZodObject<typeof taskArgs>>;

/** The agent's paths made workspace-relative; those outside the workspace are `ignored` (and said so), not fatal. */
export function splitPaths(env: AgentToolEnv, raw: readonly string[] | undefined): { paths: string[]; ignored: string[] } {
  const paths: string[] = [];
  const ignored: string[] = [];
  for (const p of raw ?? []) {
    try {
      paths.push(workspaceRelative(p, env.workspaceRoot));
    } catch {
      ignored.push(p);
    }
  }
  return { paths, ignored };
}

/** Runs the assembler for the task the arguments describe (not logged). */
export async function assembleFor(env: AgentToolEnv, input: TaskArgs, agentPaths: readonly string[], budget: number, tokenizer: TokenizerName): Promise<AssembleResult> {
  const editorPaths = env.activePaths ? await env.activePaths() : [];
  const paths = [...new Set([...agentPaths, ...editorPaths])];
  checkCancelled(env);
  const result = await env.ledger.read(async (store) => {
    const active = store.getActiveTask();
    const stage = input.stage ?? active?.stage;
    const task = {
      title: input.title ?? active?.title ?? '',
      description: input.task,
      labels: [...new Set([...(input.labels ?? []), ...(active?.labels ?? [])])],
    };
    const sources = env.liveSources ? await env.liveSources(task) : undefined;
    checkCancelled(env);
    return assembleContext(store, {
      budget,
      tokenizer,
      task: {
        // The active task keeps its id, so its task-scope knowledge and workflow memory come along.
        ...(active ? { id: active.id } : {}),
        ...task,
        ...(stage ? { stage } : {}),
      },
      ...(paths.length > 0 ? { paths } : {}),
      ...(sources ? { sources } : {}),
      ...(env.assembleOptions ? { options: env.assembleOptions } : {}),
      trigger: env.channel,
      // Logged by the caller under the write lock: a read must not change the store.
      log: false,
    });
  });
  return result;
}

export const buildContextTool = defineTool({
  name: 'build_context',
  lmName: 'contextLedger_buildContext',
  title: 'Build project context',
  description:
    "Returns the project's recorded knowledge (rules, architecture decisions, patterns, module notes, learnings) that matters for a task, " +
    'as Markdown that fits a token budget. Call it at the start of a task, and again when the task or the files you work on change. ' +
    'Describe the task in "task" and name the files in play in "paths". Items that did not fit in full are previews or titles ending in ' +
    `${URN_PREFIX}<id>: fetch those with get_artifact. An item given whole is named by its heading's title, which the other tools take as they take an id. ` +
    'The last line says how many tokens were used.',
  inputSchema: args(taskArgs),
  outputSchema: z.object({
    text: z.string().describe('The context, as in the text content: Markdown within the budget.'),
    budget: z.number(),
    tokensUsed: z.number(),
    tokenizer: z.string(),
    unreviewedPolicy: z.enum(['include', 'hold']).describe('include: agent-written knowledge is in, marked unreviewed; hold: it is left out until approved.'),
    items: z.array(
      z.object({
        id: z.string(),
        urn: z.string(),
        title: z.string(),
        type: z.string(),
        mode: z.string().describe('full, preview or title: how much of it fitted.'),
        layer: z.string(),
        tokens: z.number(),
        unreviewed: z.boolean(),
      }),
    ),
    notes: z.array(z.string()).describe('What the server did with the arguments, e.g. paths it ignored.'),
    logId: z.number().optional(),
  }),
  annotations: READ_ONLY,
  async handler(env, input) {
    const budget = input.budget ?? env.defaultBudget ?? DEFAULT_BUDGET;
    const tokenizer = env.tokenizer ?? 'o200k_base';
    const counter = await TokenCounter.load(tokenizer);
    env.progress?.(0, 3, 'assembling');
    const { paths, ignored: ignoredRaw } = splitPaths(env, input.paths);
    const notes: string[] = [];
    if (ignoredRaw.length > 0) {
      const named = ignoredRaw.slice(0, MAX_NOTED_PATHS).map((p) => JSON.stringify(oneLine(p).slice(0, 80)));
      const more = ignoredRaw.length > MAX_NOTED_PATHS ? ` and ${ignoredRaw.length - MAX_NOTED_PATHS} more` : '';
      notes.push(`Ignored paths outside the workspace: ${named.join(', ')}${more}.`);
    }
    const noteText = notes.map((n) => `\n(${n})`).join('');
    // The notes say what the server did with the agent's own arguments: reserved first, so
    // no budget drops them. The budget line comes next, when the budget leaves room for it.
    const notesCost = noteText === '' ? 0 : counter.count(noteText) + 1;
    const worst = budgetLine(budget, budget, tokenizer, { full: 999, previews: 999, titles: 999 });
    const reserve = counter.count(`\n\n---\n${worst}`) + BUDGET_LINE_RESERVE_MARGIN;
    const afterNotes = Math.max(MIN_BUDGET / 2, budget - notesCost);
    const inner = afterNotes >= reserve * 3 ? afterNotes - reserve : afterNotes;

    const render = (result: AssembleResult, withLine = true): AgentToolResult => {
      const line = budgetLine(result.tokensUsed, budget, tokenizer, modeCounts(result));
      // The task brief alone is not an answer: say plainly when no knowledge matched.
      const nothing = `Nothing in the ledger matches this task yet (${result.candidates} artifacts considered).`;
      const body = result.items.length === 0 ? [result.text.trim(), nothing].filter(Boolean).join('\n\n') : result.text.trimEnd();
      if (!withLine) return { text: `${body}${noteText}`, data: answerData(env, result, `${body}${noteText}`, budget, notes) };
      let answer = `${body}\n\n---\n${line}${noteText}`;
      // The context, the budget line and the notes were each counted (the line at its longest,
      // plus a margin), and they meet at line breaks, where counts add up: when their sum fits,
      // the answer fits without counting its ~budget tokens again on every call.
      const surelyFits = result.tokensUsed + reserve + notesCost <= budget;
      if (!surelyFits && counter.count(answer) > budget) {
        // Tiny budgets: the rendered context and the notes are guaranteed to fit, the budget line is not.
        answer = `${result.text}${noteText}`;
      }
      return { text: answer, data: answerData(env, result, answer, budget, notes) };
    };

    const delivered = env.delivered;
    // What the surface adds (structure, escaping) comes out of the context's share, measured.
    const cost = (answer: AgentToolResult) => (delivered ? counter.count(delivered({ ...answer, data: { ...answer.data, logId: Number.MAX_SAFE_INTEGER } })) : 0);
    let share = inner;
    if (delivered) {
      const envelope = cost({ text: '', data: { budget, tokensUsed: budget, tokenizer, unreviewedPolicy: 'include', notes } });
      share = Math.max(MIN_FIT_BUDGET, Math.floor((inner - envelope) * DELIVERY_FIRST_GUESS));
    }
    let result = await assembleFor(env, input, paths, share, tokenizer);
    let answer = render(result);
    for (let tries = 0; delivered; tries++) {
      const whole = cost(answer);
      if (whole <= budget) break;
      if (tries === MAX_FIT_TRIES || share === MIN_FIT_BUDGET) {
        // The smallest budgets: the context and the notes, without the budget line.
        answer = render(result, false);
        if (cost(answer) > budget) answer = { text: `${result.text}${noteText}`, data: answerData(env, result, `${result.text}${noteText}`, budget, notes) };
        break;
      }
      // Escaping grows with the text: the share shrinks in proportion to the overshoot.
      share = Math.max(MIN_FIT_BUDGET, Math.floor((share * budget) / whole) - Math.ceil(share / 50));
      checkCancelled(env);
      result = await assembleFor(env, input, paths, share, tokenizer);
      answer = render(result);
    }
    env.progress?.(1, 3, 'logging the build');
    checkCancelled(env);
    await logAssembly(env, result);
    env.progress?.(2, 3, 'rendering');
    return result.logId !== undefined ? { ...answer, data: { ...answer.data, logId: result.logId } } : answer;
  },
});

/** How often build_context re-assembles to fit what the surface adds, and the least it assembles. */
export const MAX_FIT_TRIES = 4;
export const MIN_FIT_BUDGET = 20;
/** The context's first share of what the surface's structure leaves: JSON escaping (\\n, \\") costs Markdown 2–5 % more tokens (docs/how-build-chooses.md: 8,003 → 8,157). */
export const DELIVERY_FIRST_GUESS = 0.95;

export function answerData(env: AgentToolEnv, result: AssembleResult, text: string, budget: number, notes: string[]): Record<string, unknown> {
  return {
    text,
    budget,
    tokensUsed: result.tokensUsed,
    tokenizer: result.tokenizer,
    unreviewedPolicy: holds(env) ? 'hold' : 'include',
    items: result.items.map((i) => ({
      id: i.id,
      urn: artifactUrn(i.id),
      title: oneLine(i.title),
      type: i.type,
      mode: i.mode,
      layer: i.layer,
      tokens: i.tokens,
      unreviewed: i.unreviewed === true,
    })),
    notes,
  };
}

/**
 * The assembly log and injection counts, written as the assembler itself would with
 * `log: true`. A ledger this process may not write (read-only file or folder, a lock
 * held too long) still gets its answer: the log is a record of builds, not part of one.
 */
export async function logAssembly(env: AgentToolEnv, result: AssembleResult): Promise<void> {
  try {
    await env.ledger.write((store) =>
      withoutArtifactChanges(store, () => {
        // Another process may have deleted one since the build read it: count only what is there.
        const stored = store.existingArtifactIds(result.items.map((i) => i.id));
        const known = result.items.filter((i) => stored.has(i.id)).map((i) => i.id);
        result.logId = store.logAssembly({
          at: store.clock.now().toISOString(),
          taskId: result.task?.id ?? null,
          budget: result.budget,
          tokensUsed: result.tokensUsed,
          tokenizer: result.tokenizer,
          candidates: result.candidates,
          included: result.items.map((i) => ({ id: i.id, mode: i.mode, layer: i.layer, tokens: i.tokens, score: i.score })),
          degraded: result.items.filter((i) => i.mode !== 'full').map((i) => ({ id: i.id, mode: i.mode })),
          excluded: excludedSummaryOf(result),
          layers: result.layers,
          durationMs: result.durationMs,
          outputHash: result.outputHash,
          trigger: env.channel,
        });
        store.recordInjected(known);
        if (result.task?.id) store.addTaskEvent(result.task.id, 'context_built', { tokensUsed: result.tokensUsed, budget: result.budget, via: env.channel });
      }),
    );
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
  }
}
