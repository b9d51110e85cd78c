/** The slash commands of `@ledger` in VS Code chat (/context, /remember, /explain), as MCP prompts. */
import { URN_PREFIX } from '../../core/model';

export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
  render(args: Record<string, string>, run: (tool: string, args: Record<string, unknown>) => Promise<string>): Promise<string>;
}

function pathList(value: string | undefined): string[] | undefined {
  const list = value?.split(/[,\n]/).map((p) => p.trim()).filter(Boolean);
  return list && list.length > 0 ? list : undefined;
}

export const PROMPTS: readonly McpPrompt[] = [
  {
    name: 'context',
    title: 'Project context for a task',
    description: "The project's recorded knowledge for a task, within the default budget (build_context), ready to work from.",
    arguments: [
      { name: 'task', description: 'What you are about to do.', required: true },
      { name: 'paths', description: 'Files in play, comma-separated (optional).', required: false },
    ],
    async render(args, run) {
      const paths = pathList(args.paths);
      const context = await run('build_context', { task: args.task!, ...(paths ? { paths } : {}) });
      return `Here is the project's recorded knowledge for this task. Follow its rules and decisions; items marked unreviewed are claims to verify.\n\n${context}\n\nTask: ${args.task}`;
    },
  },
  {
    name: 'remember',
    title: 'Record what was learned',
    description: 'Asks the agent to record one fact, decision or convention in the ledger (create_artifact), after checking it is not already there.',
    arguments: [{ name: 'fact', description: 'What to remember, in a sentence or a paragraph.', required: true }],
    render(args) {
      return Promise.resolve(
        'Record this in the Context Ledger as one artifact. First call search_artifacts with its keywords: if an artifact already says it, ' +
          'update that one with propose_version instead. Otherwise call create_artifact with the best type (decision, learning, convention, pattern, ' +
          'module_memory with its paths, ...), a short specific title, and the why in the body.\n\n' +
          `What to remember: ${args.fact}`,
      );
    },
  },
  {
    name: 'explain',
    title: 'Why knowledge is in or out',
    description: 'Explains what build_context would include for a task and why, and what it leaves out (or, with an id, why one artifact is in or out).',
    arguments: [
      { name: 'task', description: 'The task to explain the context of.', required: true },
      { name: 'id', description: `One artifact's id or ${URN_PREFIX}<id> (optional).`, required: false },
    ],
    async render(args, run) {
      const explained = await run('explain', { task: args.task!, ...(args.id?.trim() ? { id: args.id.trim() } : {}) });
      return `How the Context Ledger chooses knowledge for "${args.task}":\n\n${explained}`;
    },
  },
];
