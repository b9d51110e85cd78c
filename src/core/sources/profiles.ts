import { UserError } from '../model';
import { terms } from '../assemble/text';
import { DEFAULT_SOURCE_SETTINGS, SOURCE_KINDS, type SourceKind, type SourcesSettings } from './types';

/**
 * Task-type profiles: what kind of work the task is decides which live sources matter
 * most (a bug fix wants diagnostics and the touched code first, infrastructure wants the
 * deployment files). Detected from labels and text; a task may name its profile.
 */
export const TASK_PROFILES = ['bugfix', 'feature', 'refactor', 'infrastructure', 'research'] as const;
export type TaskProfile = (typeof TASK_PROFILES)[number];

export function isTaskProfile(value: string): value is TaskProfile {
  return (TASK_PROFILES as readonly string[]).includes(value);
}

export interface ProfileRule {
  /** Labels (case-insensitive, exact) that mark the profile. */
  labels: string[];
  /** Words in the title or description (matched stemmed, like the ranking does). */
  keywords: string[];
}

export type ProfileRules = Record<TaskProfile, ProfileRule>;

export const DEFAULT_PROFILE_RULES: Readonly<ProfileRules> = Object.freeze({
  bugfix: {
    labels: ['bug', 'bugfix', 'fix', 'defect', 'regression', 'incident', 'hotfix', 'crash', 'type: bug', 'kind/bug'],
    keywords: ['bug', 'fix', 'broken', 'crash', 'error', 'exception', 'fails', 'failing', 'regression', 'wrong', 'stack trace', 'panic', 'null', 'undefined', 'leak', 'flaky', 'double'],
  },
  feature: {
    labels: ['feature', 'enhancement', 'feat', 'story', 'type: feature', 'kind/feature'],
    keywords: ['add', 'support', 'implement', 'new', 'allow', 'introduce', 'enable', 'feature', 'option'],
  },
  refactor: {
    labels: ['refactor', 'refactoring', 'tech-debt', 'cleanup', 'chore', 'kind/cleanup'],
    keywords: ['refactor', 'rename', 'extract', 'cleanup', 'clean up', 'simplify', 'restructure', 'move', 'split', 'deduplicate', 'reorganize'],
  },
  infrastructure: {
    labels: ['infra', 'infrastructure', 'devops', 'ops', 'ci', 'deployment', 'deploy', 'docker', 'kubernetes', 'k8s', 'build'],
    keywords: ['deploy', 'deployment', 'docker', 'dockerfile', 'kubernetes', 'k8s', 'helm', 'ci', 'pipeline', 'workflow', 'terraform', 'container', 'compose', 'staging', 'production', 'env', 'environment', 'infrastructure', 'nginx', 'release'],
  },
  research: {
    labels: ['research', 'question', 'spike', 'investigation', 'docs', 'documentation', 'rfc', 'design'],
    keywords: ['research', 'investigate', 'understand', 'explain', 'why', 'how', 'compare', 'evaluate', 'explore', 'document', 'spike', 'design'],
  },
});

/**
 * How much each source counts under each profile (multiplies relevance before the
 * threshold; above 1 lets weaker matches in). Deployment sits far below 1 outside
 * infrastructure work so it only comes in when the task points at it.
 */
export const PROFILE_SOURCE_WEIGHTS: Readonly<Record<TaskProfile, Readonly<Record<SourceKind, number>>>> = Object.freeze({
  bugfix: { logs: 1.4, diagnostics: 1.3, code: 1.2, git: 1.1, conversation: 1, docs: 0.8, deployment: 0.5 },
  feature: { code: 1.1, docs: 1, conversation: 1, git: 0.9, diagnostics: 0.8, logs: 0.8, deployment: 0.5 },
  refactor: { code: 1.25, git: 1.1, diagnostics: 0.9, conversation: 1, docs: 0.8, logs: 0.7, deployment: 0.4 },
  infrastructure: { deployment: 1.4, logs: 1.1, docs: 1, git: 1, conversation: 1, code: 0.8, diagnostics: 0.8 },
  research: { docs: 1.3, conversation: 1, code: 0.9, git: 0.8, diagnostics: 0.6, deployment: 0.6, logs: 0.5 },
});

export interface ProfileDetection {
  profile: TaskProfile;
  /** Why: the label or words that decided, or that nothing did. */
  reason: string;
  /** Sources in the order the profile puts them. */
  priorities: SourceKind[];
}

export interface ProfileTask {
  title?: string;
  description?: string;
  labels?: readonly string[];
}

const LABEL_WEIGHT = 5;
const TITLE_WEIGHT = 2;
const PROFILE_LABEL = /^(?:profile|type|kind)[:/ ]\s*(\S+)$/i;

/**
 * The task's profile: an explicit `override` (or a `profile:<name>` label) wins; then
 * labels (worth more than words); then words in the title (worth twice the description).
 * A tie goes to the earlier profile in TASK_PROFILES; no signal at all is `feature`.
 */
export function detectProfile(task: ProfileTask | undefined, rules: ProfileRules = DEFAULT_PROFILE_RULES, override?: string): ProfileDetection {
  const result = (profile: TaskProfile, reason: string): ProfileDetection => ({ profile, reason, priorities: prioritiesOf(profile) });
  if (override !== undefined && override !== '' && override !== 'auto') {
    if (!isTaskProfile(override)) throw new UserError(`Unknown task profile "${override}".`, `Use one of: ${TASK_PROFILES.join(', ')} (or auto).`);
    return result(override, 'set explicitly');
  }
  const labels = (task?.labels ?? []).map((l) => l.trim().toLowerCase()).filter(Boolean);
  for (const label of labels) {
    const named = PROFILE_LABEL.exec(label)?.[1];
    if (named && isTaskProfile(named)) return result(named, `label "${label}"`);
  }
  const titleTerms = new Set(terms(task?.title ?? ''));
  const descriptionTerms = new Set(terms(task?.description ?? ''));
  let best: { profile: TaskProfile; score: number; why: string[] } | undefined;
  for (const profile of TASK_PROFILES) {
    const rule = rules[profile];
    let score = 0;
    const why: string[] = [];
    for (const label of rule.labels) {
      if (labels.includes(label.toLowerCase())) {
        score += LABEL_WEIGHT;
        why.push(`label "${label}"`);
      }
    }
    for (const keyword of rule.keywords) {
      const keyTerms = terms(keyword);
      if (keyTerms.length === 0) continue;
      if (keyTerms.every((t) => titleTerms.has(t))) {
        score += TITLE_WEIGHT;
        why.push(`"${keyword}"`);
      } else if (keyTerms.every((t) => descriptionTerms.has(t))) {
        score += 1;
        why.push(`"${keyword}"`);
      }
    }
    if (score > 0 && (!best || score > best.score)) best = { profile, score, why };
  }
  if (!best) return result('feature', 'no label or words point elsewhere');
  return result(best.profile, best.why.slice(0, 4).join(', '));
}

export function prioritiesOf(profile: TaskProfile): SourceKind[] {
  const weights = PROFILE_SOURCE_WEIGHTS[profile];
  return [...SOURCE_KINDS].sort((a, b) => weights[b] - weights[a] || SOURCE_KINDS.indexOf(a) - SOURCE_KINDS.indexOf(b));
}

/** Rules from settings: each profile's labels and keywords replace the defaults when given. */
export function resolveProfileRules(patch: unknown): ProfileRules {
  const rules: ProfileRules = { ...DEFAULT_PROFILE_RULES };
  if (patch === undefined || patch === null) return rules;
  if (typeof patch !== 'object' || Array.isArray(patch)) throw new UserError('Task profile rules must be an object keyed by profile.');
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (!isTaskProfile(key)) throw new UserError(`Unknown task profile "${key}" in the profile rules.`, `Known: ${TASK_PROFILES.join(', ')}.`);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`Profile rule "${key}" must be an object with "labels" and/or "keywords".`);
    const v = value as Record<string, unknown>;
    const list = (name: 'labels' | 'keywords'): string[] => {
      const raw = v[name];
      if (raw === undefined) return DEFAULT_PROFILE_RULES[key][name];
      if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) throw new UserError(`Profile rule "${key}.${name}" must be a list of strings.`);
      return raw as string[];
    };
    rules[key] = { labels: list('labels'), keywords: list('keywords') };
  }
  return rules;
}

/** Per-source settings with the defaults filled in; bad values are a clear error, not a silent default. */
export function resolveSourceSettings(patch: unknown): SourcesSettings {
  const out = Object.fromEntries(SOURCE_KINDS.map((k) => [k, { ...DEFAULT_SOURCE_SETTINGS[k] }])) as SourcesSettings;
  if (patch === undefined || patch === null) return out;
  if (typeof patch !== 'object' || Array.isArray(patch)) throw new UserError('Source settings must be an object keyed by source.');
  for (const [kind, value] of Object.entries(patch as Record<string, unknown>)) {
    if (!(SOURCE_KINDS as readonly string[]).includes(kind)) throw new UserError(`Unknown source "${kind}".`, `Known: ${SOURCE_KINDS.join(', ')}.`);
    if (value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`Settings of source "${kind}" must be an object.`);
    const target = out[kind as SourceKind];
    for (const [field, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (field === 'enabled') {
        if (typeof v !== 'boolean') throw new UserError(`"${kind}.enabled" must be true or false.`);
        target.enabled = v;
      } else if (field === 'threshold') {
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw new UserError(`"${kind}.threshold" must be a number from 0 to 1; got ${JSON.stringify(v)}.`);
        target.threshold = v;
      } else if (field === 'maxTokens') {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new UserError(`"${kind}.maxTokens" must be a whole number of tokens >= 0; got ${JSON.stringify(v)}.`);
        target.maxTokens = v;
      } else throw new UserError(`Unknown setting "${kind}.${field}".`, 'Known: enabled, threshold, maxTokens.');
    }
  }
  return out;
}
