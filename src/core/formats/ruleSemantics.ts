/**
 * What each tool makes of one of its rule files: one table, read by the importer (what the
 * file becomes), `which` (whether it fires for a file) and the Inspector (what the agent
 * loads on its own). Each entry reads the file's front matter the way its tool documents it
 * (sources in docs/formats.md); a value the tool does not document is kept and reported as
 * unknown, never read as a neighbouring value.
 */
import type { ArtifactInput } from '../model';
import { booleanValue, globList, globsUnder, isEverythingGlob, scopeForGlobs, shortHash, slugify, type SourceFile, splitFrontMatter, splitOutsideBraces, stringValue } from './common';
import { classifyRuleFile } from './ruleFiles';
import type { RuleFileKind, RuleFileMatch } from './ruleFiles';

/**
 * What Cline makes of a rule's `paths`, as its VS Code extension evaluates it
 * (`evaluatePathsConditional` in apps/vscode/src/core/context/instructions/user-instructions/
 * rule-conditionals.ts, cline/cline at 21cb8d2): no `paths` → every request; a value that is
 * not a list of non-empty strings (one string, `paths: ["src/**", ""]`, a number, `paths:`
 * with nothing) → ignored ("fail-open"), so every request as well; a list whose globs all trim
 * to nothing, `paths: []` included → never ("fail-closed", its documented way to turn a rule
 * off); otherwise those globs.
 */
export type ClinePaths = { kind: 'none' } | { kind: 'ignored' } | { kind: 'off' } | { kind: 'globs'; globs: string[] };

export function clinePaths(data: Record<string, unknown>): ClinePaths {
  if (!('paths' in data)) return { kind: 'none' };
  const value = data.paths;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.length > 0)) return { kind: 'ignored' };
  const globs = globList(value);
  return globs.length === 0 ? { kind: 'off' } : { kind: 'globs', globs };
}

/**
 * When the tool loads the file:
 * - `always`: for every file of the folder it applies to;
 * - `globs`: for files matching these globs (relative to that folder); `orRequested` is the
 *   description by which the agent may also ask for it (Continue's `alwaysApply: false`);
 * - `requested`: only when the agent asks for it by its description;
 * - `manual`: only when a person attaches it (@-mention, `#name`);
 * - `mode`: whenever Roo Code works in that mode (a condition, not a path);
 * - `never`: not loaded at all (`why` says so);
 * - `unknown`: a value the tool does not document (kept as written, reported).
 */
export type Activation =
  | { kind: 'always' }
  | { kind: 'globs'; globs: string[]; orRequested?: string }
  | { kind: 'requested'; description: string }
  | { kind: 'manual' }
  | { kind: 'mode'; mode: string }
  | { kind: 'never'; why: string }
  | { kind: 'unknown'; field: string; value: string };

export interface RuleReading {
  tool: string;
  activation: Activation;
  /** Written by the author as always-on (Cursor's `alwaysApply: true`, Kiro's `inclusion: always`, …): pinned at the root. */
  explicitAlways: boolean;
  /** Continue's `regex`: the rule also needs the file's text to match one of these. */
  regex?: string[];
  /** What the tool reads otherwise than the author likely meant, or does not know. */
  notes: { field: string; problem: string }[];
}

type Reader = (data: Record<string, unknown>, match: RuleFileMatch) => Omit<RuleReading, 'tool'>;

const always = (explicitAlways = false): Omit<RuleReading, 'tool'> => ({ activation: { kind: 'always' }, explicitAlways, notes: [] });

/** Read only at the workspace root: a nested copy is not loaded. */
function rootOnly(what: string): Reader {
  return (_data, match) =>
    match.appliesTo === ''
      ? always()
      : { activation: { kind: 'never', why: `${what} reads it at the workspace root only` }, explicitAlways: false, notes: [{ field: 'location', problem: `${what} reads it at the workspace root only: this copy in ${match.appliesTo}/ is not loaded` }] };
}

/** A description, or a note that the mode needs one (then the rule is manual only). */
function byDescription(data: Record<string, unknown>, field: string, value: string, tool: string): Omit<RuleReading, 'tool'> {
  const description = stringValue(data.description);
  if (description) return { activation: { kind: 'requested', description }, explicitAlways: false, notes: [] };
  return { activation: { kind: 'manual' }, explicitAlways: false, notes: [{ field, problem: `${value} without a description: ${tool} has nothing to decide by, so it is attached by hand only` }] };
}

function unknownValue(field: string, raw: unknown, tool: string, known: readonly string[]): Omit<RuleReading, 'tool'> {
  const value = raw === undefined ? '(none)' : typeof raw === 'string' ? raw : JSON.stringify(raw);
  const problem =
    raw === undefined
      ? `missing; ${tool} documents ${known.join(', ')} and no default: the ledger does not guess (kept global, not always-on)`
      : `"${value}" is not one of ${tool}'s values (${known.join(', ')}): kept as written and not read as any of them`;
  return { activation: { kind: 'unknown', field, value }, explicitAlways: false, notes: [{ field, problem }] };
}

/** Kiro's `fileMatchPattern`: one glob (brace groups allowed) or a YAML list of globs; a comma outside braces is part of the glob. */
function kiroPatterns(raw: unknown, notes: RuleReading['notes']): string[] {
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const globs: string[] = [];
  for (const item of items) {
    const text = stringValue(item)?.trim();
    if (!text) continue;
    if (splitOutsideBraces(text).length > 1) {
      notes.push({ field: 'fileMatchPattern', problem: `"${text}" has a comma outside braces; Kiro documents one glob or a YAML list, so this is kept as one glob: write a list ["${splitOutsideBraces(text).map((part) => part.trim()).join('", "')}"] or "{a,b}"` });
    }
    globs.push(text.replace(/^(?:\.\/)+/, ''));
  }
  return globs;
}

/** Continue's `regex`: a pattern or a list; patterns that do not compile are reported and dropped. */
function continueRegex(raw: unknown, notes: RuleReading['notes']): string[] {
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const out: string[] = [];
  for (const item of items) {
    const text = stringValue(item);
    if (!text) continue;
    try {
      new RegExp(text);
      out.push(text);
    } catch (error) {
      notes.push({ field: 'regex', problem: `"${text}" is not a valid regular expression (${error instanceof Error ? error.message : String(error)})` });
    }
  }
  return out;
}

const KIRO_INCLUSIONS = ['always', 'fileMatch', 'manual', 'auto'] as const;
const WINDSURF_TRIGGERS = ['always_on', 'glob', 'model_decision', 'manual'] as const;
const AUGMENT_TYPES = ['always_apply', 'manual', 'agent_requested'] as const;

/** The table: one reader per kind of rule file. */
const READERS: Record<RuleFileKind, Reader> = {
  'copilot-global': () => always(),
  'copilot-instructions': (data) => {
    const raw = data.applyTo;
    if (raw === undefined || raw === null) return { activation: { kind: 'manual' }, explicitAlways: false, notes: [] };
    // VS Code reads applyTo as a scalar only: a YAML list is no applyTo (ruleSimulator lints it).
    if (Array.isArray(raw)) return { activation: { kind: 'manual' }, explicitAlways: false, notes: [] };
    return { activation: { kind: 'globs', globs: globList(raw) }, explicitAlways: false, notes: [] };
  },
  'cursor-mdc': (data) => {
    if (booleanValue(data.alwaysApply) === true) return always(true);
    const globs = Array.isArray(data.globs) ? [] : globList(data.globs);
    if (globs.length > 0) return { activation: { kind: 'globs', globs }, explicitAlways: false, notes: [] };
    const description = stringValue(data.description);
    return { activation: description ? { kind: 'requested', description } : { kind: 'manual' }, explicitAlways: false, notes: [] };
  },
  'cursor-legacy': () => always(),
  'claude-md': () => always(),
  'claude-rules': (data) => {
    const globs = globList(data.paths ?? data.globs);
    return globs.length > 0 ? { activation: { kind: 'globs', globs }, explicitAlways: false, notes: [] } : always();
  },
  'agents-md': () => always(),
  cline: (data) => {
    const paths = clinePaths(data);
    if (paths.kind === 'off') return { activation: { kind: 'never', why: 'paths: [] — Cline never loads it' }, explicitAlways: false, notes: [] };
    return paths.kind === 'globs' ? { activation: { kind: 'globs', globs: paths.globs }, explicitAlways: false, notes: [] } : always();
  },
  'kiro-steering': (data) => {
    if (!('inclusion' in data)) return always();
    const inclusion = data.inclusion;
    switch (inclusion) {
      case 'always':
        return always(true);
      case 'fileMatch': {
        const notes: RuleReading['notes'] = [];
        const globs = kiroPatterns(data.fileMatchPattern, notes);
        if (globs.length === 0) return { activation: { kind: 'never', why: 'inclusion: fileMatch with no fileMatchPattern' }, explicitAlways: false, notes: [...notes, { field: 'fileMatchPattern', problem: 'missing: a fileMatch steering file with no pattern matches no file' }] };
        return { activation: { kind: 'globs', globs }, explicitAlways: false, notes };
      }
      case 'manual':
        return { activation: { kind: 'manual' }, explicitAlways: false, notes: [] };
      case 'auto':
        return byDescription(data, 'inclusion', 'inclusion: auto', 'Kiro');
      default:
        return unknownValue('inclusion', inclusion, 'Kiro', KIRO_INCLUSIONS);
    }
  },
  'windsurf-rule': (data) => {
    const trigger = data.trigger;
    switch (trigger) {
      case 'always_on':
        return always(true);
      case 'glob': {
        const globs = globList(data.globs);
        if (globs.length === 0) return { activation: { kind: 'never', why: 'trigger: glob with no globs' }, explicitAlways: false, notes: [{ field: 'globs', problem: 'missing: a glob rule with no globs matches no file' }] };
        return { activation: { kind: 'globs', globs }, explicitAlways: false, notes: [] };
      }
      case 'model_decision':
        return byDescription(data, 'trigger', 'trigger: model_decision', 'Windsurf');
      case 'manual':
        return { activation: { kind: 'manual' }, explicitAlways: false, notes: [] };
      default:
        return unknownValue('trigger', trigger, 'Windsurf', WINDSURF_TRIGGERS);
    }
  },
  'windsurf-legacy': () => always(),
  'gemini-md': () => always(),
  junie: rootOnly('Junie (by default, `.junie/guidelines.md` of the project root)'),
  'continue-rule': (data) => {
    const notes: RuleReading['notes'] = [];
    const raw = data.alwaysApply;
    const alwaysApply = raw === undefined || raw === null ? undefined : booleanValue(raw);
    if (alwaysApply === null) notes.push({ field: 'alwaysApply', problem: `"${typeof raw === 'string' ? raw : JSON.stringify(raw)}" is not true or false: kept as written; read as not set` });
    const globs = globList(data.globs);
    const regex = continueRegex(data.regex, notes);
    const withRegex = regex.length > 0 ? { regex } : {};
    if (alwaysApply === true) return { ...always(true), notes };
    const description = stringValue(data.description) ?? undefined;
    if (globs.length > 0) {
      const orRequested = alwaysApply === false ? description : undefined;
      return { activation: { kind: 'globs', globs, ...(orRequested ? { orRequested } : {}) }, explicitAlways: false, notes, ...withRegex };
    }
    if (alwaysApply === false && regex.length === 0) {
      const read = byDescription(data, 'alwaysApply', 'alwaysApply: false', 'Continue');
      return { ...read, notes: [...notes, ...read.notes] };
    }
    // No globs: Continue includes it (when its regex, if any, matches the file's text).
    return { activation: { kind: 'always' }, explicitAlways: false, notes, ...withRegex };
  },
  'roo-rule': rootOnly('Roo Code'),
  'roo-mode-rule': (data, match) => (match.appliesTo === '' ? { activation: { kind: 'mode', mode: match.mode ?? '' }, explicitAlways: false, notes: [] } : rootOnly('Roo Code')(data, match)),
  'roo-legacy': (data, match) => (match.mode && match.appliesTo === '' ? { activation: { kind: 'mode', mode: match.mode }, explicitAlways: false, notes: [] } : rootOnly('Roo Code')(data, match)),
  'amazonq-rule': rootOnly('Amazon Q (project-root/.amazonq/rules)'),
  'augment-rule': (data, match) => {
    if (match.appliesTo !== '') return rootOnly('Augment')(data, match);
    const type = data.type;
    switch (type) {
      case 'always_apply':
        return always(true);
      case 'agent_requested':
        return byDescription(data, 'type', 'type: agent_requested', 'Augment');
      case 'manual':
        return { activation: { kind: 'manual' }, explicitAlways: false, notes: [] };
      default:
        return unknownValue('type', type, 'Augment', AUGMENT_TYPES);
    }
  },
  'augment-legacy': rootOnly('Augment'),
  'zed-rules': rootOnly('Zed (the top level of the worktree)'),
  skill: (data) => {
    const read = byDescription(data, 'description', 'a skill', 'the agent');
    return stringValue(data.name) ? read : { ...read, notes: [...read.notes, { field: 'name', problem: 'missing: the Agent Skills format requires a name (the folder name is used)' }] };
  },
};

/**
 * The kinds the importer and `which` read through this table. The kinds supported before it
 * (Copilot, Cursor, Claude Code, AGENTS.md, Cline) keep their own, tested reading there, which
 * the table mirrors for the Inspector and for the import report's wording.
 */
export const TABLE_KINDS: ReadonlySet<RuleFileKind> = new Set<RuleFileKind>([
  'kiro-steering',
  'windsurf-rule',
  'windsurf-legacy',
  'gemini-md',
  'junie',
  'continue-rule',
  'roo-rule',
  'roo-mode-rule',
  'roo-legacy',
  'amazonq-rule',
  'augment-rule',
  'augment-legacy',
  'zed-rules',
  'skill',
]);

/** Each kind's tool, as `which` and the Inspector name it. */
export const TOOL_OF: Readonly<Record<RuleFileKind, string>> = {
  'copilot-global': 'Copilot',
  'copilot-instructions': 'Copilot',
  'cursor-mdc': 'Cursor',
  'cursor-legacy': 'Cursor',
  'claude-md': 'Claude Code',
  'claude-rules': 'Claude Code',
  'agents-md': 'An agent that reads AGENTS.md',
  cline: 'Cline',
  'kiro-steering': 'Kiro',
  'windsurf-rule': 'Windsurf',
  'windsurf-legacy': 'Windsurf',
  'gemini-md': 'Gemini CLI',
  junie: 'Junie',
  'continue-rule': 'Continue',
  'roo-rule': 'Roo Code',
  'roo-mode-rule': 'Roo Code',
  'roo-legacy': 'Roo Code',
  'amazonq-rule': 'Amazon Q',
  'augment-rule': 'Augment',
  'augment-legacy': 'Augment',
  'zed-rules': 'Zed',
  skill: 'An agent that reads Agent Skills',
};

/** What the file's tool makes of it, from its front matter (`data`) and where it sits (`match`). */
export function readRule(match: RuleFileMatch, data: Record<string, unknown>): RuleReading {
  return { tool: TOOL_OF[match.kind], ...READERS[match.kind](data, match) };
}

/**
 * The files Zed reads at the root of a worktree, in order: it loads the first one present
 * and no other ([Zed: rules](https://zed.dev/docs/ai/rules)).
 */
export const ZED_RULE_FILES = ['.rules', '.cursorrules', '.windsurfrules', '.clinerules', '.github/copilot-instructions.md', 'AGENT.md', 'AGENTS.md', 'CLAUDE.md', 'GEMINI.md'] as const;

/** The file Zed loads among the workspace's root files, or null. */
export function zedRuleFile(workspacePaths: Iterable<string>): string | null {
  const present = new Set<string>();
  for (const path of workspacePaths) present.add(path);
  // `.clinerules` may be a folder: Zed reads a file only.
  return ZED_RULE_FILES.find((name) => present.has(name)) ?? null;
}

/**
 * Roo Code reads `.roorules` only where `.roo/rules/` holds no file, and `.roorules-<mode>`
 * only where `.roo/rules-<mode>/` holds none: the file that takes its place, or null.
 */
export function rooShadowedBy(match: RuleFileMatch, path: string, workspacePaths: Iterable<string>): string | null {
  if (match.kind !== 'roo-legacy') return null;
  const folder = `${match.appliesTo === '' ? '' : `${match.appliesTo}/`}.roo/rules${match.mode ? `-${match.mode}` : ''}/`;
  for (const other of workspacePaths) if (other !== path && other.startsWith(folder)) return other;
  return null;
}

/** A skill's name: its front matter `name`, or its folder's. */
export function skillName(path: string, data: Record<string, unknown>): string {
  const parts = path.split('/');
  return stringValue(data.name) ?? parts[parts.length - 2] ?? 'skill';
}

/**
 * The same skill kept in several tools' folders (`.claude/skills/x`, `.github/skills/x`,
 * `.agents/skills/x`): one skill, imported once, from `.agents/skills` (the folder the Agent
 * Skills format shares across tools) or else the first by path. Each other copy with the same
 * text → why it is not imported again. A copy of the same name with other text is a different
 * skill for the tools that read its folder: it is imported as its own entry, and noted.
 */
export function skillCopies(files: readonly SourceFile[]): { copies: Map<string, string>; notes: Map<string, string> } {
  const groups = new Map<string, SourceFile[]>();
  for (const file of files) {
    const match = classifyRuleFile(file.path);
    if (match?.kind !== 'skill') continue;
    const key = `${match.appliesTo}\n${skillName(file.path, splitFrontMatter(file.content).data)}`;
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  const copies = new Map<string, string>();
  const notes = new Map<string, string>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const kept = group.find((file) => /(?:^|\/)\.agents\/skills\//.test(file.path)) ?? group[0]!;
    const keptBody = splitFrontMatter(kept.content).body.trim();
    for (const file of group) {
      if (file === kept) continue;
      if (splitFrontMatter(file.content).body.trim() === keptBody) copies.set(file.path, `the same skill as ${kept.path} (same name and text): imported once, from there`);
      else notes.set(file.path, `a skill of the same name as ${kept.path} with different text: imported as its own entry (the tools reading this folder see this text)`);
    }
  }
  return { copies, notes };
}

/**
 * Scope, pin, conditions and tags of a file read through the table of tool semantics: what
 * the tool loads on its own stays so (always-on written by the author → pinned at the root
 * and tagged `always`, as Cursor's `alwaysApply: true`); what it loads on request keeps
 * Cursor's `agent-requested` / `manual` tags (never always-on, never exported as such); a Roo
 * mode becomes a label condition (the ledger's own way to say "only in this kind of task");
 * a value the tool does not document is tagged `unknown-activation` and left as a plain
 * global artifact, neither pinned nor exported.
 */
export function fromReading(match: RuleFileMatch, reading: RuleReading): { scope: Pick<ArtifactInput, 'scope' | 'paths'>; pinned: boolean; conditions?: ArtifactInput['conditions']; tags: string[] } {
  // A skill is knowledge the agent asks for by its description, wherever it sits: never path-scoped.
  const folder: Pick<ArtifactInput, 'scope' | 'paths'> =
    match.appliesTo === '' || match.kind === 'skill' ? { scope: 'global', paths: [] } : { scope: 'path', paths: [`${match.appliesTo}/**`] };
  const root = match.appliesTo === '';
  const tags = [...(match.kind === 'skill' ? ['skill'] : []), ...(reading.regex ? ['regex'] : [])];
  const activation = reading.activation;
  switch (activation.kind) {
    case 'always':
      return { scope: folder, pinned: reading.explicitAlways && root, tags: reading.explicitAlways ? [...tags, 'always'] : tags };
    case 'globs':
      if (activation.globs.every(isEverythingGlob)) return { scope: folder, pinned: root, tags: [...tags, 'always'] };
      return { scope: scopeForGlobs(globsUnder(match.appliesTo, activation.globs)), pinned: false, tags };
    case 'requested':
      return { scope: folder, pinned: false, tags: [...tags, 'agent-requested'] };
    case 'mode':
      return { scope: folder, pinned: false, conditions: { labels: [activation.mode] }, tags: [...tags, `mode-${slugify(activation.mode, 40) || shortHash(activation.mode)}`] };
    case 'unknown':
      return { scope: folder, pinned: false, tags: [...tags, 'unknown-activation'] };
    default:
      return { scope: folder, pinned: false, tags: [...tags, 'manual'] };
  }
}


/** The front matter fields each tool decides by (none: the tool loads the file whole). */
const ACTIVATION_FIELDS: Partial<Record<RuleFileKind, readonly string[]>> = {
  'copilot-instructions': ['applyTo'],
  'cursor-mdc': ['alwaysApply', 'globs', 'description'],
  'claude-rules': ['paths'],
  cline: ['paths'],
  'kiro-steering': ['inclusion', 'fileMatchPattern'],
  'windsurf-rule': ['trigger', 'globs'],
  'continue-rule': ['alwaysApply', 'globs', 'regex'],
  'augment-rule': ['type'],
  skill: ['name', 'description'],
};

function shortValue(value: unknown): string {
  const text = Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]` : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * What an imported file became and why, in its tool's terms: "path-scoped to src/**\/*.ts
 * (trigger: glob, globs: src/**\/*.ts)". `first` is its first artifact, `count` how many.
 */
export function describeImport(match: RuleFileMatch, data: Record<string, unknown>, reading: RuleReading, first: ArtifactInput, count: number): string {
  const fields = ACTIVATION_FIELDS[match.kind] ?? [];
  const shown = fields.filter((field) => field in data && field !== 'description').map((field) => `${field}: ${shortValue(data[field])}`);
  const because =
    match.mode !== undefined
      ? `a ${match.kind === 'roo-legacy' ? `.roorules-${match.mode} file` : `.roo/rules-${match.mode}/ file`}`
      : fields.length === 0
        ? `${reading.tool} loads this file whole`
        : shown.length > 0
          ? shown.join(', ')
          : `no ${fields.filter((field) => field !== 'description' && field !== 'name').join(' or ') || 'front matter'}: ${reading.tool}'s default`;
  const where = match.appliesTo === '' ? 'the whole workspace' : `${match.appliesTo}/`;
  const activation = reading.activation;
  let what: string;
  switch (activation.kind) {
    case 'always':
      what = `always on for ${where}${first.pinned ? ' (pinned, tagged always)' : ''}${reading.regex ? '; its regex gates it on the file\'s text, which the ledger cannot: tagged regex' : ''}`;
      break;
    case 'globs':
      what = first.scope === 'path' ? `path-scoped to ${(first.paths ?? []).join(', ')}` : `always on: its globs match every file${first.pinned ? ' (pinned)' : ''}`;
      if (activation.orRequested) what += ', or when the agent asks for it by its description';
      break;
    case 'requested':
      what = match.kind === 'skill' ? 'on-demand knowledge (tagged skill, agent-requested): the agent loads it by its description, never always on' : 'agent-requested (tagged agent-requested): loaded when the agent asks for it by its description, never always on';
      break;
    case 'mode':
      what = `for Roo Code's "${activation.mode}" mode only (condition: task label "${activation.mode}")`;
      break;
    case 'unknown':
      what = `a plain global entry, neither pinned nor exported (tagged unknown-activation): ${activation.field} "${activation.value}" is not a value ${reading.tool} documents`;
      break;
    default:
      what = 'manual (tagged manual): attached by hand only, never always on';
  }
  return `${count > 1 ? `${count} sections, ` : ''}${what} (${because})`;
}
