/**
 * The rule simulator behind `context-ledger which <path>`: which ledger artifacts apply
 * to a workspace file, which rule files their tools would load for it (Copilot, Cursor,
 * Claude, AGENTS.md and Cline by their own cases; Kiro, Windsurf, Gemini CLI, Junie,
 * Continue, Roo Code, Amazon Q, Augment, Zed and Agent Skills by the table of tool
 * semantics, with Roo's `.roorules` fallback and Zed's first-match list), and the glob mistakes that make rules silently miss
 * (a space after a comma, a YAML list where a tool reads one string, a pattern that
 * matches no file, a pattern that points outside the workspace).
 *
 * One verdict per rule file, and it agrees with the lint: a field the tool does not read
 * (Copilot's `applyTo` as a YAML list) does not make the file fire. For one file, only the
 * problems of the rule files that could apply to it are listed; the whole workspace's
 * lint is `lintRules` (`which --lint`).
 */
import { compileGlob, type CompiledGlob, matchGlob, toActivePath } from '../assemble/paths';
import type { Artifact } from '../model';
import { classifyRuleFile, clineFrontMatterNotes, clinePaths, isLedgerGenerated, ruleFrontMatter, type RuleFileKind, type RuleFileMatch } from './agentRules';
import { type SourceFile, booleanValue, globList, globsUnder, normalizePath, stringValue } from './common';
import { readRule, rooShadowedBy, TABLE_KINDS, ZED_RULE_FILES, zedRuleFile } from './ruleSemantics';

export interface ArtifactHit {
  id: string;
  title: string;
  type: string;
  why: string;
}

export interface RuleHit {
  path: string;
  kind: RuleFileKind;
  fires: boolean;
  why: string;
}

export interface GlobProblem {
  /** The rule file, or `ledger:<id>` for an artifact. */
  where: string;
  field: string;
  problem: string;
}

export interface WhichReport {
  path: string;
  artifacts: { path: ArtifactHit[]; global: number; pinned: number };
  rules: RuleHit[];
  /** Problems of the rule files that could apply to this path (those in one of its folders). */
  problems: GlobProblem[];
  /** Problems elsewhere in the workspace (other rule files, ledger artifacts): listed by `which --lint`. */
  otherProblems: number;
}

/**
 * The field each tool reads its globs from, and whether it reads only one string.
 * VS Code reads `applyTo` as a scalar only (PromptHeader.applyTo → getStringAttribute, which
 * gives undefined for a YAML sequence): a list is no `applyTo` at all. Cursor documents
 * `globs` as one comma-separated string. Claude Code's and Cline's `paths` are lists.
 * Sources: docs/formats.md.
 */
const GLOB_FIELD: Partial<Record<RuleFileKind, { field: string; oneString: boolean; tool: string }>> = {
  'copilot-instructions': { field: 'applyTo', oneString: true, tool: 'Copilot' },
  'cursor-mdc': { field: 'globs', oneString: true, tool: 'Cursor' },
  'claude-rules': { field: 'paths', oneString: false, tool: 'Claude Code' },
  cline: { field: 'paths', oneString: false, tool: 'Cline' },
  'windsurf-rule': { field: 'globs', oneString: false, tool: 'Windsurf' },
  'continue-rule': { field: 'globs', oneString: false, tool: 'Continue' },
};

function under(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** Checks globs as written; returns the ones the tool uses (trimmed): none from a list a tool reads as one string. */
function lintGlobs(where: string, spec: { field: string; oneString: boolean; tool: string }, raw: unknown, files: readonly string[], problems: GlobProblem[]): string[] {
  const { field } = spec;
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw) && raw.length > 0 && spec.oneString) {
    problems.push({
      where,
      field,
      problem: `is a YAML list; ${spec.tool} reads ${field} only as one string of comma-separated globs: write ${field}: "${raw.map(String).join(',')}"`,
    });
    return [];
  }
  const texts = Array.isArray(raw) ? raw.map((item) => stringValue(item) ?? '') : [stringValue(raw) ?? ''];
  for (const text of texts) {
    if (/,\s+\S/.test(text)) {
      problems.push({ where, field, problem: `"${text}" has a space after a comma; the glob after it starts with a space and matches nothing in tools that do not trim` });
    }
  }
  const globs = globList(raw);
  for (const glob of globs) checkGlob(where, field, glob, files, problems);
  return globs;
}

function checkGlob(where: string, field: string, glob: string, files: readonly string[], problems: GlobProblem[]): CompiledGlob | undefined {
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob) || glob.split('/').includes('..')) {
    problems.push({ where, field, problem: `"${glob}" points outside the workspace` });
    return undefined;
  }
  const compiled = compileGlob(glob);
  if ('error' in compiled) {
    problems.push({ where, field, problem: `"${glob}" is not a valid glob: ${compiled.error}` });
    return undefined;
  }
  if (!files.some((file) => compiled.matcher.match(file))) problems.push({ where, field, problem: `"${glob}" matches no file in the workspace` });
  return compiled;
}

function matchesAny(globs: readonly string[], path: string): string | undefined {
  for (const glob of globs) {
    const compiled = compileGlob(glob);
    if (!('error' in compiled) && compiled.matcher.match(path)) return glob;
  }
  return undefined;
}

/**
 * `path` and `workspaceFiles` are workspace-relative; `ruleFiles` are the workspace's
 * rule files with their text; `artifacts` the latest version of each chain.
 */
export function simulateRules(path: string, workspaceFiles: readonly string[], ruleFiles: readonly SourceFile[], artifacts: readonly Artifact[], targetText?: string): WhichReport {
  return simulate(path, workspaceFiles, ruleFiles, artifacts, targetText).report;
}

/** The glob problems of every rule file and path-scoped ledger artifact of the workspace (`which --lint`). */
export function lintRules(workspaceFiles: readonly string[], ruleFiles: readonly SourceFile[], artifacts: readonly Artifact[]): GlobProblem[] {
  return simulate('', workspaceFiles, ruleFiles, artifacts).all;
}

function simulate(
  path: string,
  workspaceFiles: readonly string[],
  ruleFiles: readonly SourceFile[],
  artifacts: readonly Artifact[],
  targetText?: string,
): { report: WhichReport; all: GlobProblem[] } {
  const target = normalizePath(path);
  const problems: GlobProblem[] = [];
  const report: WhichReport = { path: target, artifacts: { path: [], global: 0, pinned: 0 }, rules: [], problems: [], otherProblems: 0 };
  const concerns = new Set<string>();

  const active = toActivePath(target);
  for (const artifact of artifacts) {
    if (artifact.status !== 'active') continue;
    if (artifact.scope === 'global') {
      report.artifacts.global++;
      if (artifact.pinned) report.artifacts.pinned++;
      continue;
    }
    if (artifact.scope !== 'path') continue;
    let why: string | undefined;
    for (const glob of artifact.paths) {
      const compiled = checkGlob(`ledger:${artifact.id}`, 'paths', glob, workspaceFiles, problems);
      const match = compiled && active ? matchGlob(compiled, active) : undefined;
      if (match && why === undefined) why = `${glob} (${match.kind})`;
    }
    if (why) report.artifacts.path.push({ id: artifact.id, title: artifact.title, type: artifact.type, why });
  }

  const agentsMd: string[] = [];
  for (const file of [...ruleFiles].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const rel = normalizePath(file.path);
    const match = classifyRuleFile(rel);
    if (!match) continue;
    const cline = match.kind === 'cline';
    const front = ruleFrontMatter(match.kind, file.content);
    if (TABLE_KINDS.has(match.kind)) {
      if (under(match.appliesTo, target)) concerns.add(rel);
      if (front.error) problems.push({ where: rel, field: 'front matter', problem: front.error });
      const generated = isLedgerGenerated(file.content) ? ' (generated by Context Ledger)' : '';
      const verdict = tableVerdict(rel, match, front.data, { target, workspaceFiles, targetText, problems });
      report.rules.push({ path: rel, kind: match.kind, fires: verdict.fires, why: verdict.why + generated });
      continue;
    }
    if (cline) for (const note of clineFrontMatterNotes(front.data, front.error)) problems.push({ where: rel, ...note });
    else if (front.error) problems.push({ where: rel, field: 'front matter', problem: front.error });
    const spec = GLOB_FIELD[match.kind];
    const raw = spec ? front.data[spec.field] : undefined;
    // A Cline `paths` that Cline ignores has no globs to check: the note above says why.
    const clineRead = cline ? clinePaths(front.data).kind : undefined;
    const read = clineRead === 'ignored' ? undefined : raw;
    const globs = spec ? globsUnder(match.appliesTo, lintGlobs(rel, spec, read, workspaceFiles, problems)) : [];
    const inFolder = under(match.appliesTo, target);
    if (inFolder) concerns.add(rel);
    const unread = Array.isArray(raw) && raw.length > 0 && spec?.oneString === true;
    const generated = isLedgerGenerated(file.content) ? ' (generated by Context Ledger)' : '';
    const hit = (fires: boolean, why: string): void => void report.rules.push({ path: rel, kind: match.kind, fires, why: why + generated });
    switch (match.kind) {
      case 'copilot-instructions': {
        if (raw === undefined) hit(false, 'no applyTo: Copilot does not attach it on its own');
        else if (unread) hit(false, 'applyTo is a YAML list, which Copilot does not read: never attached');
        else {
          const glob = inFolder ? matchesAny(globs, target) : undefined;
          hit(glob !== undefined, glob ? `applyTo ${glob}` : 'applyTo does not match');
        }
        break;
      }
      case 'cursor-mdc': {
        if (booleanValue(front.data.alwaysApply) === true) hit(true, 'alwaysApply: true');
        else {
          const glob = globs.length > 0 && inFolder ? matchesAny(globs, target) : undefined;
          if (glob) hit(true, `globs ${glob}`);
          else if (stringValue(front.data.description)) hit(false, `not attached; the agent may ask for it by its description ("${stringValue(front.data.description)}")`);
          else if (unread) hit(false, 'globs is a YAML list, which Cursor does not read; no description: manual only');
          else hit(false, globs.length > 0 ? 'globs do not match' : 'manual only (no globs, no description, not alwaysApply)');
        }
        break;
      }
      case 'claude-rules':
      case 'cline': {
        if (!inFolder) hit(false, `applies to ${match.appliesTo}/ only`);
        else if (cline && front.error !== undefined) hit(true, 'front matter does not parse: Cline loads the whole file everywhere');
        else if (clineRead === 'off') hit(false, 'paths: [] — Cline never loads it');
        else if (clineRead === 'ignored') hit(true, 'paths is not a list of globs, which Cline ignores: loaded everywhere');
        else if (raw === undefined) hit(true, cline ? 'Cline rules apply everywhere' : 'no paths: always loaded');
        else {
          const glob = matchesAny(globs, target);
          hit(glob !== undefined, glob ? `paths ${glob}` : 'paths do not match');
        }
        break;
      }
      case 'agents-md':
        if (inFolder) agentsMd.push(rel);
        hit(inFolder, inFolder ? `in ${match.appliesTo || 'the workspace root'}, a folder of the file` : `applies to ${match.appliesTo}/ only`);
        break;
      default:
        hit(inFolder, inFolder ? (match.appliesTo ? `in ${match.appliesTo}/, a folder of the file` : 'applies to the whole workspace') : `applies to ${match.appliesTo}/ only`);
    }
  }
  // Several AGENTS.md on the way: the nearest one takes precedence where they disagree.
  if (agentsMd.length > 1) {
    const nearest = agentsMd.reduce((a, b) => (b.length > a.length ? b : a));
    for (const rule of report.rules) if (rule.path === nearest) rule.why += '; the nearest AGENTS.md, it wins where they disagree';
  }
  noteZed(report, workspaceFiles);
  for (const problem of problems) {
    if (concerns.has(problem.where)) report.problems.push(problem);
    else report.otherProblems++;
  }
  return { report, all: problems };
}

interface VerdictContext {
  target: string;
  workspaceFiles: readonly string[];
  targetText: string | undefined;
  problems: GlobProblem[];
}

/**
 * A file of a kind the table of tool semantics reads: does its tool load it for `target`?
 * Its notes (unknown values, a comma where a tool reads one glob) are its problems.
 */
function tableVerdict(rel: string, match: RuleFileMatch, data: Record<string, unknown>, context: VerdictContext): { fires: boolean; why: string } {
  const { target, workspaceFiles, targetText, problems } = context;
  const reading = readRule(match, data);
  const tool = reading.tool;
  for (const note of reading.notes) problems.push({ where: rel, ...note });
  const spec = GLOB_FIELD[match.kind];
  const shadow = rooShadowedBy(match, rel, workspaceFiles);
  if (shadow) return { fires: false, why: `Roo Code reads ${shadow} instead: ${rel.split('/').pop()} only where that folder holds no file` };
  const activation = reading.activation;
  if (activation.kind === 'never') return { fires: false, why: activation.why };
  // Globs are checked wherever the file sits (`which --lint` covers every rule file).
  const full = activation.kind === 'globs' ? globsUnder(match.appliesTo, activation.globs) : [];
  if (activation.kind === 'globs') {
    if (!spec) for (const glob of full) checkGlob(rel, 'globs', glob, workspaceFiles, problems);
    else lintGlobs(rel, spec, data[spec.field], workspaceFiles, problems);
  }
  if (!under(match.appliesTo, target)) return { fires: false, why: `applies to ${match.appliesTo}/ only` };
  // Continue's regex: the rule also needs the file's text to match.
  const textGate = (): string | null => {
    if (!reading.regex) return null;
    if (targetText === undefined) return `regex ${reading.regex.map((r) => `/${r}/`).join(', ')}: the file's text is not there to match`;
    const hitRegex = reading.regex.find((r) => new RegExp(r, 'm').test(targetText));
    return hitRegex === undefined ? `regex ${reading.regex.map((r) => `/${r}/`).join(', ')} does not match the file's text` : '';
  };
  switch (activation.kind) {
    case 'always': {
      const gate = textGate();
      if (gate) return { fires: false, why: gate };
      const where = match.appliesTo === '' ? `${tool} loads it for every file` : `in ${match.appliesTo}/, a folder of the file`;
      return { fires: true, why: `${where}${reading.explicitAlways ? ' (always-on in its front matter)' : ''}${gate === '' ? `; regex ${reading.regex!.join(', ')} matches` : ''}` };
    }
    case 'globs': {
      const glob = matchesAny(full, target);
      if (glob === undefined) {
        return { fires: false, why: activation.orRequested ? `globs do not match; the agent may still ask for it by its description ("${activation.orRequested}")` : 'globs do not match' };
      }
      const gate = textGate();
      if (gate) return { fires: false, why: `${glob} matches, but the ${gate}` };
      return { fires: true, why: `${match.kind === 'kiro-steering' ? 'fileMatchPattern' : 'globs'} ${glob}` };
    }
    case 'requested':
      return { fires: false, why: match.kind === 'skill' ? `on demand: the agent loads this skill when a task matches its description ("${activation.description}")` : `not attached; the agent may ask for it by its description ("${activation.description}")` };
    case 'manual':
      return { fires: false, why: `manual only: ${tool} attaches it when a person mentions it` };
    case 'mode':
      return { fires: true, why: `in Roo Code's "${activation.mode}" mode only (a mode, not a path: every file in that mode, none in the others)` };
    case 'unknown':
      return { fires: false, why: `${activation.field} "${activation.value}" is not a value ${tool} documents: the ledger does not guess whether it loads` };
  }
}

/**
 * Zed reads one file at the root: the first of its list present (`.rules`, `.cursorrules`,
 * …, `GEMINI.md`). Each root file of that list is told whether Zed reads it.
 */
function noteZed(report: WhichReport, workspaceFiles: readonly string[]): void {
  const zed = zedRuleFile(workspaceFiles);
  if (zed === null) return;
  const listed = new Set<string>(ZED_RULE_FILES);
  for (const rule of report.rules) {
    if (!listed.has(rule.path)) continue;
    rule.why += rule.path === zed ? `; Zed reads this file (the first of its list at the root)` : `; Zed reads ${zed} instead`;
  }
}

/** The report as plain text (the CLI's output and the editor's read-only document). */
export function renderWhichReport(report: WhichReport): string {
  const lines = [`${report.path}`, '', `Ledger artifacts: ${report.artifacts.global} global (${report.artifacts.pinned} pinned) apply everywhere; for this path:`];
  if (report.artifacts.path.length === 0) lines.push('  none path-scoped');
  for (const a of report.artifacts.path) lines.push(`  ${a.id}  ${a.type}  ${a.title}  <- ${a.why}`);
  lines.push('', 'Rule files:');
  if (report.rules.length === 0) lines.push('  none in the workspace');
  // Each rule file once: its verdict, then its own problems under it.
  for (const r of report.rules) {
    lines.push(`  ${r.fires ? 'fires  ' : 'silent '} ${r.path}  (${r.why})`);
    for (const p of report.problems) if (p.where === r.path) lines.push(`           ! ${p.field}: ${p.problem}`);
  }
  if (report.otherProblems > 0) {
    lines.push('', `${report.otherProblems} glob ${report.otherProblems === 1 ? 'problem' : 'problems'} in rule files or ledger artifacts that do not apply here: context-ledger which --lint`);
  }
  return lines.join('\n');
}

/** `which --lint` as plain text. */
export function renderLint(problems: readonly GlobProblem[]): string {
  if (problems.length === 0) return 'No glob problems in the rule files or the ledger.';
  return [`${problems.length} glob ${problems.length === 1 ? 'problem' : 'problems'}:`, ...problems.map((p) => `  ${p.where} ${p.field}: ${p.problem}`)].join('\n');
}
