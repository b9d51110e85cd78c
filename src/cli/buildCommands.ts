import { assembleContext, MEANING_OFF, MEANING_ON, renderExplain, toContractJson, type AssembleRequest } from '../core/assemble';
import { markStale } from '../core/git';
import { isTokenizerName, TOKENIZERS, UserError } from '../core/model';
import { type OptionSpecs, listOption, listOfValues, stringOption } from './args';
import { type Command, type CommandContext, IMPORT_FORMAT_NAMES, isJson, printJson, withRead, withWrite } from './commands';
import * as path from 'node:path';
import { defaultDatabasePath } from '../node/files';

const BUILD_OPTIONS: OptionSpecs = {
  budget: { type: 'string', value: 'tokens', description: 'Token budget for the whole output (default: 8000).' },
  'task-title': { type: 'string', value: 'text', description: 'What the agent is about to do.' },
  'task-description': { type: 'string', value: 'text', description: 'More about the task.' },
  label: { type: 'string', multiple: true, description: 'A task label (bug, security, ...); repeatable.' },
  path: { type: 'string', multiple: true, description: 'A workspace-relative file in play; repeatable.' },
  task: { type: 'string', value: 'task-id', description: 'Build for this stored task (default: the active task, unless --task-title is given).' },
  stage: { type: 'string', description: "Override the task's stage (plan, develop, review, test, ...)." },
  now: { type: 'string', value: 'ISO-8601', description: 'The time to build at (for reproducible output and benchmarks).' },
  tokenizer: { type: 'string', value: TOKENIZERS.join('|'), description: 'Tokenizer that counts the budget (default: o200k_base).' },
  'no-workflow': { type: 'boolean', description: 'Leave out workflow memory (layer 4; also --no-l4).' },
  'no-instructions': { type: 'boolean', description: 'Leave out knowledge-production instructions (layer 5; also --no-l5).' },
  'no-l4': { type: 'boolean', description: 'The same as --no-workflow.' },
  'no-l5': { type: 'boolean', description: 'The same as --no-instructions.' },
  'no-log': { type: 'boolean', description: 'Do not record this build in the assembly log (read-only).' },
  meaning: { type: 'boolean', description: "Match records by meaning as well as by words (latent semantic analysis of the ledger; the default)." },
  'no-meaning': { type: 'boolean', description: 'Match by words alone.' },
  unreviewed: {
    type: 'string',
    value: 'include|hold',
    description: 'Agent-written knowledge nobody approved: include it under an "unreviewed" marker (default) or hold it back until approved.',
  },
  sources: { type: 'string', value: 'code,docs,git,deployment,logs|all', description: 'Bring in live sources from the workspace (off unless given). With logs, output piped into the command is read too.' },
  'log-file': { type: 'string', multiple: true, value: 'glob', description: 'Workspace log files the logs source reads (default **/*.log, **/logs/**/*.txt); repeat or comma-separate.' },
  profile: { type: 'string', value: 'auto|bugfix|feature|refactor|infrastructure|research', description: 'Task profile that weighs the live sources (default: detected from the task).' },
};

function parseUnreviewed(raw: string | undefined): 'include' | 'hold' | undefined {
  if (raw === undefined || raw === 'include' || raw === 'hold') return raw;
  throw new UserError(`--unreviewed must be "include" or "hold", not "${raw}".`, 'For example --unreviewed hold.');
}

function parseBudget(raw: string | undefined): number {
  if (raw === undefined) return 8000;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || !Number.isInteger(value)) {
    throw new UserError(`--budget must be a whole number of tokens, not "${raw}".`);
  }
  return value;
}

function parseNow(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw new UserError(`--now is not a date: "${raw}".`, 'Use ISO 8601, e.g. 2026-07-15T21:10:07Z.');
  return new Date(time);
}

/** Turns CLI flags into the one request every way of building context uses. */
function requestFromOptions(context: CommandContext, trigger: string): { request: AssembleRequest; taskId?: string; log: boolean } {
  const { options } = context;
  const tokenizer = stringOption(options, 'tokenizer') ?? 'o200k_base';
  if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer "${tokenizer}".`, `Use one of: ${TOKENIZERS.join(', ')}.`);
  const title = stringOption(options, 'task-title');
  const description = stringOption(options, 'task-description');
  const labels = listOfValues(options, 'label');
  const stage = stringOption(options, 'stage');
  const taskId = stringOption(options, 'task');
  const unreviewed = parseUnreviewed(stringOption(options, 'unreviewed'));
  const adHoc = title !== undefined || description !== undefined || labels.length > 0;
  const request: AssembleRequest = {
    budget: parseBudget(stringOption(options, 'budget')),
    tokenizer,
    now: parseNow(stringOption(options, 'now')),
    paths: listOption(options, 'path'),
    trigger,
    options: {
      ...(options['no-workflow'] === true || options['no-l4'] === true ? { includeWorkflow: false } : {}),
      ...(options['no-instructions'] === true || options['no-l5'] === true ? { includeInstructions: false } : {}),
      ...(unreviewed ? { unreviewed } : {}),
      ...(options['no-meaning'] === true ? { meaning: { ...MEANING_OFF } } : options.meaning === true ? { meaning: { ...MEANING_ON } } : {}),
    },
  };
  if (adHoc) request.task = { title, description, labels, stage };
  return { request, taskId, log: options['no-log'] !== true };
}

/** The workspace the ledger belongs to: the folder holding `.context-ledger/`, else the current folder. */
function workspaceRoot(context: CommandContext): string {
  const found = defaultDatabasePath(context.cwd);
  return found.found ? path.dirname(path.dirname(found.file)) : context.cwd;
}

async function build(context: CommandContext, trigger: string, withStaleness = false) {
  const { request, taskId, log } = requestFromOptions(context, trigger);
  const rawSources = stringOption(context.options, 'sources');
  // The source adapters load the Markdown lexer: only for builds that ask for them.
  const sources = rawSources === undefined ? undefined : await import('../node/sources/index.js');
  const kinds = rawSources === undefined || !sources ? undefined : sources.parseSourceKinds(rawSources);
  const profile = stringOption(context.options, 'profile');
  if (profile !== undefined && kinds === undefined) throw new UserError('--profile weighs live sources; add --sources too.', 'e.g. --sources all --profile bugfix');
  const run = async (store: Parameters<typeof assembleContext>[0]) => {
    if (taskId !== undefined) {
      const task = store.requireTask(taskId);
      request.task = { id: task.id, title: task.title, description: task.description, labels: task.labels, stage: stringOption(context.options, 'stage') ?? task.stage };
    }
    if (kinds && sources) {
      const task = request.task ?? store.getActiveTask();
      const logGlobs = listOfValues(context.options, 'log-file');
      // Piped input is read only when logs are named: `--sources all` from a script with an idle stdin must not wait on it.
      const piped = rawSources !== undefined && /(?:^|,)\s*logs\s*(?:,|$)/i.test(rawSources) ? await sources.readPipedInput() : undefined;
      const candidates = sources.collectLiveSources({
        root: workspaceRoot(context),
        kinds,
        ...(task ? { task } : {}),
        paths: request.paths ?? [],
        ...(logGlobs.length > 0 ? { logGlobs } : {}),
        ...(piped ? { logInputs: [{ origin: 'stdin' as const, label: 'stdin', text: piped }] } : {}),
        ...(request.now ? { now: request.now } : {}),
      });
      request.sources = { candidates, ...(profile !== undefined ? { profile } : {}) };
    }
    // Taken before the build: its log row is a write, after which the store would read every row again.
    const artifacts = withStaleness ? store.latestArtifacts() : [];
    const result = await assembleContext(store, { ...request, log });
    if (!withStaleness) return result;
    // Only explain and JSON show the flags: plain builds do not pay for a git log.
    const { staleFlagsFor } = await import('../node/git.js');
    return markStale(result, await staleFlagsFor(workspaceRoot(context), artifacts));
  };
  // Logging writes the assembly_log row, so it goes through the locked write path.
  return log ? withWrite(context, run, false) : withRead(context, run);
}

const buildCommand: Command = {
  name: 'build',
  summary: 'Build the context an agent should get for a task and files, within a token budget.',
  usage: 'context-ledger build [--budget <tokens>] [--task-title <text>] [--task-description <text>] [--label <l>]... [--path <p>]... [--sources <list>] [--format json]',
  options: BUILD_OPTIONS,
  details: 'Prints Markdown by default; --format json prints the contract object (items, excluded, tokensUsed, text).',
  async run(context) {
    const result = await build(context, 'cli', isJson(context));
    if (isJson(context)) return printJson(context, toContractJson(result));
    context.out(result.text);
    context.err(`${result.tokensUsed}/${result.budget} tokens (${result.tokenizer}); ${result.items.length} items, ${result.excluded.length} left out.`);
    // An empty output with no hint reads as a bug; an empty ledger is the usual first run.
    if (result.candidates === 0 && result.excluded.length > 0) {
      // A full ledger where nothing matched is not an empty one: say how to widen the build.
      context.err(
        `Nothing in the ledger matched this build (${result.excluded.length} artifacts left out). Widen it: describe the task with --task-title/--task-description, name the files with --path, or see why each was left out with \`context-ledger explain\` and the same options.`,
      );
    } else if (result.candidates === 0) {
      context.err(`The ledger holds no knowledge yet: add some with \`context-ledger add\`, or bring in what the team keeps with \`context-ledger import --from <${IMPORT_FORMAT_NAMES}> <folder>\`.`);
    }
  },
};

const explainCommand: Command = {
  name: 'explain',
  summary: 'Explain a build: per artifact, its score components and why it is in, cut or out.',
  usage: 'context-ledger explain [same options as build]',
  options: BUILD_OPTIONS,
  async run(context) {
    const result = await build(context, 'cli-explain', true);
    if (isJson(context)) return printJson(context, result);
    context.out(renderExplain(result));
  },
};

export const BUILD_COMMANDS: readonly Command[] = [buildCommand, explainCommand];
