/**
 * The tracked-files view's data, vscode-free: activity ranked by recency, and which
 * module memory (if any) covers each file, matched the way the assembler matches paths.
 */
import { compileGlob, matchGlob, toActivePath } from '../core/assemble/paths';
import type { Artifact, FileActivity } from '../core/model';
import { rankActivity } from './activePaths';

export interface TrackedFile {
  activity: FileActivity;
  score: number;
  /** Active module memories whose globs match the path. */
  coveredBy: Array<Pick<Artifact, 'id' | 'title'>>;
}

export function moduleMemoriesCovering(path: string, artifacts: readonly Artifact[]): Array<Pick<Artifact, 'id' | 'title'>> {
  const active = toActivePath(path);
  if (!active) return [];
  const out: Array<Pick<Artifact, 'id' | 'title'>> = [];
  for (const artifact of artifacts) {
    if (artifact.type !== 'module_memory' || artifact.status !== 'active') continue;
    const matches = artifact.paths.some((raw) => {
      const glob = compileGlob(raw);
      return !('error' in glob) && matchGlob(glob, active) !== undefined;
    });
    if (matches) out.push({ id: artifact.id, title: artifact.title });
  }
  return out;
}

export function trackedFiles(activity: readonly FileActivity[], latest: readonly Artifact[], now: Date, halfLifeHours: number, limit = 100): TrackedFile[] {
  return rankActivity(activity, now, halfLifeHours)
    .slice(0, limit)
    .map(({ activity: a, score }) => ({ activity: a, score, coveredBy: moduleMemoriesCovering(a.path, latest) }));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "2 opens · 5 edits · 1 save" (kinds with no events left out). */
export function activitySummary(a: FileActivity): string {
  const parts: string[] = [];
  if (a.opens > 0) parts.push(plural(a.opens, 'open'));
  if (a.edits > 0) parts.push(plural(a.edits, 'edit'));
  if (a.saves > 0) parts.push(plural(a.saves, 'save'));
  return parts.join(' · ');
}

/** "just now", "5 min ago", "3 h ago", "2 d ago". */
export function timeAgo(iso: string | null, now: Date): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, (now.getTime() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return 'unknown';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

export function lastActivity(a: FileActivity): string | null {
  const times = [a.lastOpenedAt, a.lastEditedAt, a.lastSavedAt].filter((t): t is string => t !== null);
  if (times.length === 0) return null;
  return times.reduce((x, y) => (Date.parse(x) >= Date.parse(y) ? x : y));
}
