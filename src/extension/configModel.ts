/**
 * The extension's settings as one typed object, and how they map onto the assembler's
 * options. vscode-free: `config.ts` reads the raw values, this module validates them.
 */
import { ARTIFACT_TYPES, type ArtifactType, isTokenizerName, type TokenizerName } from '../core/model';
import type { PartialOptions, ScoreWeights } from '../core/assemble/types';
import { DEFAULT_STAGE_PROMPTS } from '../core/assemble/workflow';
import { MEANING_OFF } from '../core/assemble/options';
import { type SourceKind, type SourceSettings, SOURCE_KINDS } from '../core/sources/types';
import { type ProfileRule, type TaskProfile, isTaskProfile, resolveProfileRules } from '../core/sources/profiles';
import { RULE_FILE_BUDGET } from '../core/formats/ruleFileBudget';

export const DEFAULT_DATABASE_PATH = '.context-ledger/ledger.db';
export const DEFAULT_INSTRUCTIONS_PATH = '.github/instructions/context-ledger.instructions.md';
export const DEFAULT_BUDGET = 8000;
export const MIN_BUDGET = 256;
export const MAX_BUDGET = 2_000_000;

export interface ScopeSplit {
  global: number;
  task: number;
  path: number;
}

export interface ExtensionConfig {
  budget: number;
  tokenizer: TokenizerName;
  scopeSplit: ScopeSplit | undefined;
  typePriority: Partial<Record<ArtifactType, number>>;
  weights: Partial<ScoreWeights>;
  recencyHalfLifeDays: number | undefined;
  previews: boolean;
  /** `contextLedger.meaning`: match records by meaning as well as by words (on by default; docs/how-build-chooses.md). */
  meaning: boolean;
  /** `contextLedger.export.ruleFileBudget`: tokens per file that Export to Agent Rules writes. */
  ruleFileBudget: number;
  /** `commit`: let git see the file (else it is listed in the repository's .git/info/exclude). */
  autoInject: { enabled: boolean; path: string; commit: boolean };
  tracking: { enabled: boolean; exclude: string[]; halfLifeHours: number };
  databasePath: string;
  /** `contextLedger.import.watch`: refresh imported artifacts when their knowledge files change on disk. */
  importWatch: boolean;
  statusBar: { enabled: boolean };
  /** Live sources (`contextLedger.sources.*`): off unless enabled; per-source overrides of the defaults. */
  sources: {
    enabled: boolean;
    kinds: SourceKind[];
    /** Globs of workspace log files for the logs source (default: the collector's). */
    logFiles?: string[];
    settings: Partial<Record<SourceKind, Partial<SourceSettings>>>;
    profile: string;
    /** `contextLedger.sources.profileRules` when valid (each profile's labels and keywords); absent: the defaults. */
    profileRules?: Partial<Record<TaskProfile, Partial<ProfileRule>>>;
  };
  /** `contextLedger.agent.unreviewed`: agent-written knowledge nobody approved, shown marked or held back. */
  unreviewed: 'include' | 'hold';
  /** `contextLedger.stages`: the stages a task moves through, in order, each with its knowledge prompt. */
  stages: StageSetting[];
}

export interface StageSetting {
  name: string;
  prompt: string;
}

export const DEFAULT_STAGE_SETTINGS: readonly StageSetting[] = Object.entries(DEFAULT_STAGE_PROMPTS).map(([name, prompt]) => ({ name, prompt }));

/** Valid entries of the stages setting (a name, a text prompt, each name once); the defaults when none is valid. */
function stageSettings(value: unknown): StageSetting[] {
  const out: StageSetting[] = [];
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (entry === null || typeof entry !== 'object') continue;
      const { name, prompt } = entry as Record<string, unknown>;
      if (typeof name !== 'string' || name.trim() === '' || out.some((s) => s.name.toLowerCase() === name.trim().toLowerCase())) continue;
      out.push({ name: name.trim(), prompt: typeof prompt === 'string' ? prompt : '' });
    }
  }
  return out.length > 0 ? out : DEFAULT_STAGE_SETTINGS.map((s) => ({ ...s }));
}

/** Reads one raw setting; `undefined` when the user has not set it. */
export type RawSettings = (name: string) => unknown;

const WEIGHT_KEYS = ['relevance', 'reference', 'path', 'recency', 'type', 'feedback'] as const;

function num(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function nonEmptyString(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

function numberRecord<K extends string>(value: unknown, keys: readonly K[], min: number, max: number): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  if (value === null || typeof value !== 'object') return out;
  for (const key of keys) {
    const raw = (value as Record<string, unknown>)[key];
    if (typeof raw === 'number' && Number.isFinite(raw)) out[key] = Math.min(max, Math.max(min, raw));
  }
  return out;
}

/** Turns raw settings into a valid config: out-of-range numbers are clamped, bad values fall back to defaults. */
export function readConfig(get: RawSettings): ExtensionConfig {
  const split = numberRecord(get('scopeSplit'), ['global', 'task', 'path'] as const, 0, 1);
  const hasSplit = split.global !== undefined || split.task !== undefined || split.path !== undefined;
  const scopeSplit = hasSplit ? { global: split.global ?? 0.5, task: split.task ?? 0.3, path: split.path ?? 0.2 } : undefined;
  const tokenizer = get('tokenizer');
  const exclude = get('tracking.exclude');
  const halfLife = get('recencyHalfLifeDays');
  return {
    budget: Math.round(num(get('budget'), DEFAULT_BUDGET, MIN_BUDGET, MAX_BUDGET)),
    tokenizer: isTokenizerName(tokenizer) ? tokenizer : 'o200k_base',
    scopeSplit: scopeSplit && scopeSplit.global + scopeSplit.task + scopeSplit.path > 0 ? scopeSplit : undefined,
    typePriority: numberRecord(get('typePriority'), ARTIFACT_TYPES, 0, 100),
    weights: numberRecord(get('weights'), WEIGHT_KEYS, 0, 100),
    recencyHalfLifeDays: typeof halfLife === 'number' && Number.isFinite(halfLife) ? num(halfLife, 90, 1, 3650) : undefined,
    previews: bool(get('previews'), true),
    meaning: bool(get('meaning'), true),
    ruleFileBudget: Math.round(num(get('export.ruleFileBudget'), RULE_FILE_BUDGET.default, RULE_FILE_BUDGET.min, RULE_FILE_BUDGET.max)),
    autoInject: { enabled: bool(get('autoInject.enabled'), true), path: nonEmptyString(get('autoInject.path'), DEFAULT_INSTRUCTIONS_PATH), commit: bool(get('autoInject.commit'), false) },
    tracking: {
      enabled: bool(get('tracking.enabled'), true),
      exclude: Array.isArray(exclude) ? exclude.filter((g): g is string => typeof g === 'string' && g.trim() !== '') : [],
      halfLifeHours: num(get('tracking.halfLifeHours'), 24, 0.1, 24 * 365),
    },
    databasePath: nonEmptyString(get('databasePath'), DEFAULT_DATABASE_PATH),
    importWatch: bool(get('import.watch'), true),
    statusBar: { enabled: bool(get('statusBar.enabled'), true) },
    unreviewed: get('agent.unreviewed') === 'hold' ? 'hold' : 'include',
    stages: stageSettings(get('stages')),
    sources: readSources(get),
  };
}

/** Per-source settings: valid fields are kept, anything else falls back to the source's default. */
function readSources(get: RawSettings): ExtensionConfig['sources'] {
  const settings: Partial<Record<SourceKind, Partial<SourceSettings>>> = {};
  const kinds: SourceKind[] = [];
  for (const kind of SOURCE_KINDS) {
    const raw = get(`sources.${kind}`);
    const own: Partial<SourceSettings> = {};
    if (raw !== null && typeof raw === 'object') {
      const r = raw as Record<string, unknown>;
      if (typeof r.enabled === 'boolean') own.enabled = r.enabled;
      if (typeof r.threshold === 'number' && Number.isFinite(r.threshold)) own.threshold = Math.min(1, Math.max(0, r.threshold));
      if (typeof r.maxTokens === 'number' && Number.isFinite(r.maxTokens)) own.maxTokens = Math.max(0, Math.round(r.maxTokens));
    }
    if (Object.keys(own).length > 0) settings[kind] = own;
    // The chat history only exists inside a chat request.
    if (own.enabled !== false && kind !== 'conversation') kinds.push(kind);
  }
  const profile = get('sources.profile');
  const rules = get('sources.profileRules');
  let profileRules: ExtensionConfig['sources']['profileRules'];
  try {
    // Checked here as the assembler would check them: rules it would refuse fall back to the defaults.
    if (typeof rules === 'object' && rules !== null && Object.keys(rules).length > 0) {
      resolveProfileRules(rules);
      profileRules = rules;
    }
  } catch {
    profileRules = undefined;
  }
  const logFiles = get('sources.logFiles');
  return {
    enabled: bool(get('sources.enabled'), false),
    kinds,
    ...(Array.isArray(logFiles) && logFiles.every((g) => typeof g === 'string') ? { logFiles: (logFiles).filter((g) => g.trim() !== '') } : {}),
    settings,
    profile: typeof profile === 'string' && isTaskProfile(profile) ? profile : 'auto',
    ...(profileRules ? { profileRules } : {}),
  };
}

/** The assembler options the settings ask for; only what the user changed is passed on. */
export function toAssembleOptions(config: ExtensionConfig): PartialOptions {
  const options: PartialOptions = {};
  if (config.scopeSplit) options.split = { ...config.scopeSplit };
  if (Object.keys(config.typePriority).length > 0) options.typePriority = { ...config.typePriority };
  if (Object.keys(config.weights).length > 0) options.weights = { ...config.weights };
  if (config.recencyHalfLifeDays !== undefined) options.halfLifeDays = config.recencyHalfLifeDays;
  if (!config.previews) {
    options.previews = false;
    options.titles = false;
  }
  if (config.unreviewed === 'hold') options.unreviewed = 'hold';
  if (!config.meaning) options.meaning = { ...MEANING_OFF };
  options.stagePrompts = Object.fromEntries(config.stages.map((s) => [s.name, s.prompt]));
  return options;
}
