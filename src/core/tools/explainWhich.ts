/** `explain` and `which`: why each artifact is in or out, and which apply to a file. */
import { z } from 'zod';
import { DEFAULT_BUDGET, renderExplain } from '../assemble';
import { artifactUrn, idFromRef, URN_PREFIX } from '../model';
import { MAX_PATH_CHARS, text, refSchema, args, errorResult, defineTool } from './tool';
import { READ_ONLY, workspaceRelative, oneLine } from './toolSupport';
import { taskArgs, splitPaths, assembleFor } from './buildContext';

// ------------------------------------------------------------------ explain and which

export const explainTool = defineTool({
  name: 'explain',
  lmName: 'contextLedger_explain',
  title: 'Explain a build',
  description:
    'Says why knowledge is in or out of build_context for a task: each included artifact with its score and reason, and what was left out and why ' +
    '(superseded, held unreviewed, other task, path mismatch, below threshold, budget). Give "id" to ask about one artifact. Writes nothing.',
  inputSchema: args({
    ...taskArgs,
    id: refSchema.optional().describe(`Only this artifact: its id, ${URN_PREFIX}<id> or its title.`),
  }),
  outputSchema: z.object({
    text: z.string().describe('The explanation, as in the text content.'),
    included: z.boolean().optional().describe('With "id": whether it is in the context.'),
    mode: z.string().optional(),
    reason: z.string().optional().describe('With "id": why it is in, or the reason it is left out.'),
  }),
  annotations: READ_ONLY,
  async handler(env, input) {
    const budget = input.budget ?? env.defaultBudget ?? DEFAULT_BUDGET;
    const { paths } = splitPaths(env, input.paths);
    const result = await assembleFor(env, input, paths, budget, env.tokenizer ?? 'o200k_base');
    if (input.id === undefined) {
      const all = renderExplain(result).trimEnd();
      return { text: all, data: { text: all } };
    }
    const asked = input.id;
    // Looked up once: by id, URN or title (the store's `find` tries the id first, as `get` does).
    const known = await env.ledger.read((store) => store.findArtifact(asked));
    const ref = known?.id ?? idFromRef(asked);
    const item = result.items.find((i) => i.id === ref);
    if (item) {
      const reply = `${artifactUrn(item.id)} "${oneLine(item.title)}" is IN (${item.mode}, ${item.layer} layer, ${item.tokens} tokens, score ${item.score.toFixed(2)}): ${item.reason}.`;
      return { text: reply, data: { text: reply, included: true, mode: item.mode, reason: item.reason } };
    }
    const out = result.excluded.find((e) => e.id === ref);
    if (out) {
      const reply = `${artifactUrn(out.id)} "${oneLine(out.title)}" is OUT: ${out.reason}${out.detail ? ` (${out.detail})` : ''}${out.score !== undefined ? `, score ${out.score.toFixed(2)}` : ''}.`;
      return { text: reply, data: { text: reply, included: false, reason: out.reason } };
    }
    if (!known) return errorResult(`No artifact "${ref}". Find it with search_artifacts.`);
    const reply = `${artifactUrn(known.id)} is an older version (version ${known.version}); only the latest version of each artifact is considered.`;
    return { text: reply, data: { text: reply, included: false, reason: 'older-version' } };
  },
});

export const whichTool = defineTool({
  name: 'which',
  lmName: 'contextLedger_which',
  title: 'Which rules apply to a file',
  description:
    "Says which of the workspace's rule files (AGENTS.md, CLAUDE.md, .cursor/rules, Copilot instructions, .clinerules, .cline/rules) and which ledger artifacts apply to one file, " +
    'and why each does or does not (its globs), with mistakes in rule globs. Use it when unsure whether a rule covers the file you are changing.',
  inputSchema: args({
    path: text('a workspace-relative file path', MAX_PATH_CHARS, { min: 1 }).describe('The file, e.g. "src/api/client.ts"; it need not exist yet.'),
  }),
  outputSchema: z.object({ text: z.string().describe('The report, as in the text content.'), path: z.string() }),
  annotations: READ_ONLY,
  async handler(env, input) {
    if (!env.which) return errorResult('which is not available here: it reads the workspace files, which this surface cannot.');
    const file = workspaceRelative(input.path, env.workspaceRoot);
    const artifacts = await env.ledger.read((store) => store.latestArtifacts());
    const report = (await env.which(file, artifacts)).trimEnd();
    return { text: report, data: { text: report, path: file } };
  },
});
