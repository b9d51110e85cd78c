/**
 * The rule files `export --to <tool>` writes, one entry per tool: where its files go and
 * the front matter that makes the tool load each one as the ledger means it (the global
 * group on every request, a path group for its globs). One table, read by the exporter
 * (ruleExport.ts) and by the writer that removes an earlier export's files
 * (node/ruleFileExport.ts). Sources for each tool's fields: docs/formats.md.
 */
import { splitOutsideBraces } from './common';

export type RuleTarget = 'copilot' | 'cursor' | 'agents-md' | 'kiro' | 'windsurf' | 'continue' | 'roo' | 'amazonq' | 'augment' | 'gemini';

export const RULE_TARGET_NAMES: readonly RuleTarget[] = ['copilot', 'cursor', 'agents-md', 'kiro', 'windsurf', 'continue', 'roo', 'amazonq', 'augment', 'gemini'];

/** A tool that reads a folder of rule files: one file per group (global, then each set of globs), then `-2`, `-3`… for what does not fit. */
export interface FolderTarget {
  layout: 'folder';
  /** Folder the files go in, and the start and end of their names: `<folder>/context-ledger-<slug><ext>`. */
  folder: string;
  ext: string;
  /** Front matter for a group (`globs` empty: the global group). */
  front: (globs: readonly string[]) => string;
  /** The tool has no field to scope a file by path: a path group is written always-on, under a heading that names its globs. */
  headingScope?: boolean;
  /** The tool's own limit on one file, in characters (Windsurf: 12,000). */
  maxChars?: number;
  label: string;
}

/** A tool that reads one file at the root: `<file>` holds the most important, `<stem>-2.md`… the rest, named in its "Also noted" line. */
export interface SingleFileTarget {
  layout: 'single';
  file: string;
  label: string;
}

export type RuleTargetSpec = FolderTarget | SingleFileTarget;

const describeGlobs = (globs: readonly string[]): string => `Context Ledger knowledge for files matching ${globs.join(', ')}`;
const GLOBAL_DESCRIPTION = 'Project knowledge from Context Ledger';

/** `src/**\/*.{ts,tsx}` → `src/**\/*.ts`, `src/**\/*.tsx` (tools that split globs on commas). */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) {
      const options = splitOutsideBraces(glob.slice(open + 1, i));
      if (options.length < 2) return [glob];
      return options.flatMap((option) => expandBraces(`${glob.slice(0, open)}${option}${glob.slice(i + 1)}`));
    }
  }
  return [glob];
}

/** Globs a tool reads as one comma-separated string: brace groups expanded, none holding a comma. */
const commaJoinable = (globs: readonly string[]): string[] => globs.flatMap(expandBraces).filter((glob) => !glob.includes(','));

export const RULE_TARGETS: Readonly<Record<RuleTarget, RuleTargetSpec>> = {
  copilot: {
    layout: 'folder',
    folder: '.github/instructions',
    ext: '.instructions.md',
    label: 'Copilot instructions',
    front: (globs) => `---\napplyTo: ${JSON.stringify(globs.length === 0 ? '**' : globs.join(','))}\ndescription: ${JSON.stringify(globs.length === 0 ? GLOBAL_DESCRIPTION : `Context Ledger knowledge for ${globs.join(', ')}`)}\n---\n`,
  },
  cursor: {
    layout: 'folder',
    folder: '.cursor/rules',
    ext: '.mdc',
    label: 'Cursor rules',
    // Bare, comma-joined, no spaces, brace groups expanded: as Cursor reads `globs`.
    front: (globs) => {
      const bare = commaJoinable(globs);
      return globs.length === 0
        ? `---\ndescription: ${GLOBAL_DESCRIPTION}\nglobs:\nalwaysApply: true\n---\n`
        : `---\ndescription: Context Ledger knowledge for files matching ${bare.join(' ')}\nglobs: ${bare.join(',')}\nalwaysApply: false\n---\n`;
    },
  },
  'agents-md': { layout: 'single', file: 'AGENTS.md', label: 'AGENTS.md' },
  gemini: { layout: 'single', file: 'GEMINI.md', label: 'GEMINI.md (Gemini CLI)' },
  // `inclusion: always`, or `fileMatch` with `fileMatchPattern` as a YAML list (brace groups kept: Kiro documents them).
  kiro: {
    layout: 'folder',
    folder: '.kiro/steering',
    ext: '.md',
    label: 'Kiro steering',
    front: (globs) => (globs.length === 0 ? '---\ninclusion: always\n---\n' : `---\ninclusion: fileMatch\nfileMatchPattern: ${JSON.stringify(globs)}\n---\n`),
  },
  // `trigger: always_on`, or `glob` with `globs` comma-joined (no spaces, braces expanded); 12,000 characters a file.
  windsurf: {
    layout: 'folder',
    folder: '.windsurf/rules',
    ext: '.md',
    label: 'Windsurf rules',
    maxChars: 12_000,
    front: (globs) =>
      globs.length === 0
        ? `---\ntrigger: always_on\ndescription: ${GLOBAL_DESCRIPTION}\n---\n`
        : `---\ntrigger: glob\ndescription: ${JSON.stringify(describeGlobs(globs))}\nglobs: ${commaJoinable(globs).join(',')}\n---\n`,
  },
  // `alwaysApply: true`, or `globs` as a list with no alwaysApply (Continue then includes it when they match).
  continue: {
    layout: 'folder',
    folder: '.continue/rules',
    ext: '.md',
    label: 'Continue rules',
    front: (globs) =>
      globs.length === 0
        ? `---\nname: ${GLOBAL_DESCRIPTION}\nalwaysApply: true\n---\n`
        : `---\nname: ${JSON.stringify(describeGlobs(globs))}\nglobs: ${JSON.stringify(globs)}\n---\n`,
  },
  // Roo Code and Amazon Q load every file of their folder for every request, with no path field.
  roo: { layout: 'folder', folder: '.roo/rules', ext: '.md', label: 'Roo Code rules', headingScope: true, front: () => '' },
  amazonq: { layout: 'folder', folder: '.amazonq/rules', ext: '.md', label: 'Amazon Q rules', headingScope: true, front: () => '' },
  // Augment has no path field: a path group is `agent_requested`, its description naming the globs.
  augment: {
    layout: 'folder',
    folder: '.augment/rules',
    ext: '.md',
    label: 'Augment rules',
    headingScope: true,
    front: (globs) =>
      globs.length === 0
        ? `---\ntype: always_apply\ndescription: ${GLOBAL_DESCRIPTION}\n---\n`
        : `---\ntype: agent_requested\ndescription: ${JSON.stringify(`${describeGlobs(globs)}: read it before working on them`)}\n---\n`,
  },
};

/** Whether `path` (workspace-relative) is a file an export to `target` writes: the ones an earlier export may leave behind. */
export function isExportedPath(target: RuleTarget, path: string): boolean {
  const spec = RULE_TARGETS[target];
  if (spec.layout === 'single') {
    const stem = spec.file.replace(/\.md$/, '');
    return path === spec.file || new RegExp(`^${stem}-\\d+\\.md$`).test(path);
  }
  if (!path.startsWith(`${spec.folder}/context-ledger-`) || !path.endsWith(spec.ext)) return false;
  return !path.slice(spec.folder.length + 1).includes('/');
}
