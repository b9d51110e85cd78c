import { terms } from '../assemble/text';
import { SourceCache } from './cache';
import { PROFILE_SOURCE_WEIGHTS, type TaskProfile } from './profiles';
import type { LiveCandidate, SourcesSettings } from './types';

/** Stemmed task terms with the weight of where they came from (title over description over labels). */
export type LiveQuery = ReadonlyMap<string, number>;

export function liveQuery(task: { title?: string; description?: string; labels?: readonly string[] } | undefined): LiveQuery {
  const query = new Map<string, number>();
  const add = (text: string | undefined, weight: number): void => {
    for (const term of terms(text ?? '')) query.set(term, Math.max(query.get(term) ?? 0, weight));
  };
  add(task?.title, 1);
  add(task?.description, 0.8);
  add(task?.labels?.join(' '), 0.5);
  return query;
}

export interface RankedLive {
  candidate: LiveCandidate;
  /** 0..1 after the profile's weighting: what the source's threshold is compared with. */
  relevance: number;
  /** 0..1: the share of the task's terms the candidate mentions (saturating). */
  textRelevance: number;
  /** The profile's weight for the candidate's source. */
  weight: number;
  passed: boolean;
  /** Why it passed or not, for the explain output. */
  reason: string;
}

/** Coverage at which text relevance saturates: a candidate naming most task terms is as relevant as it gets. */
const SATURATION = 0.6;

/** Distinct terms per text: collectors hand the same file texts to every build. */
const termSets = new SourceCache<Set<string>>(1000);

export function textRelevance(candidate: LiveCandidate, query: LiveQuery): number {
  if (query.size === 0) return 0;
  const found = new Set<string>();
  const scan = (text: string): void => {
    const present = termSets.get(text, '', () => new Set(terms(text)));
    for (const term of query.keys()) if (present.has(term)) found.add(term);
  };
  scan(candidate.title);
  if (candidate.path) scan(candidate.path.replace(/[/._-]+/g, ' '));
  scan(candidate.text.length > 200_000 ? candidate.text.slice(0, 200_000) : candidate.text);
  let total = 0;
  let hit = 0;
  for (const [term, weight] of query) {
    total += weight;
    if (found.has(term)) hit += weight;
  }
  return Math.min(1, hit / total / SATURATION);
}

/**
 * Scores live candidates against the task: the adapter's prior and the text relevance
 * combine as independent evidence (either can carry a candidate), then the task profile
 * weighs the source. A disabled source or a score under its threshold does not pass.
 * Sorted best first; ties by key, so the order is reproducible.
 */
export function rankLive(candidates: readonly LiveCandidate[], query: LiveQuery, profile: TaskProfile, settings: SourcesSettings): RankedLive[] {
  const ranked = candidates.map((candidate): RankedLive => {
    const setting = settings[candidate.source];
    const text = textRelevance(candidate, query);
    const prior = Math.min(1, Math.max(0, candidate.prior));
    const weight = PROFILE_SOURCE_WEIGHTS[profile][candidate.source];
    const relevance = Math.min(1, (1 - (1 - prior) * (1 - text)) * weight);
    const passed = setting.enabled && relevance >= setting.threshold;
    const why = `${candidate.origin}; relevance ${relevance.toFixed(2)} (prior ${prior.toFixed(2)}, text ${text.toFixed(2)}, ${profile} ×${weight})`;
    const reason = !setting.enabled ? `${why}; source ${candidate.source} is off` : passed ? why : `${why} < threshold ${setting.threshold}`;
    return { candidate, relevance: round(relevance), textRelevance: round(text), weight, passed, reason };
  });
  return ranked.sort((a, b) => b.relevance - a.relevance || (a.candidate.key < b.candidate.key ? -1 : a.candidate.key > b.candidate.key ? 1 : 0));
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}
