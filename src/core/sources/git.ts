import type { LiveCandidate } from './types';

export interface GitChange {
  path: string;
  /** git's status letter: A added, M modified, D deleted, R renamed, ... */
  status: string;
  added?: number;
  deleted?: number;
  oldPath?: string;
}

export interface GitCommit {
  hash: string;
  subject: string;
  /** ISO date. */
  date?: string;
  files: string[];
}

export interface GitState {
  branch?: string;
  /** What the branch is compared with (`main`, `origin/main`, a merge base). */
  base?: string;
  /** Committed on the branch since the base, plus uncommitted work. */
  changes: GitChange[];
  /** Recent commits, newest first, with the files each touched. */
  commits: GitCommit[];
}

const MAX_CHANGES = 60;
const MAX_COMMITS = 15;

export interface GitOptions {
  inPlay?: readonly string[];
}

/** Two candidates: the branch's changes (a diff stat), and the recent commits on the files in play. */
export function gitCandidates(state: GitState, options: GitOptions = {}): LiveCandidate[] {
  const inPlay = new Set(options.inPlay ?? []);
  const touches = (path: string): boolean => inPlay.has(path) || [...inPlay].some((p) => p.endsWith('/') && path.startsWith(p));
  const out: LiveCandidate[] = [];
  if (state.changes.length > 0) {
    const changes = [...state.changes].sort((a, b) => Number(touches(b.path)) - Number(touches(a.path)) || (a.path < b.path ? -1 : 1));
    const lines = changes.slice(0, MAX_CHANGES).map((c) => {
      const stat = c.added !== undefined || c.deleted !== undefined ? ` +${c.added ?? 0} -${c.deleted ?? 0}` : '';
      return `- ${c.status} ${c.oldPath ? `${c.oldPath} → ` : ''}${c.path}${stat}`;
    });
    if (changes.length > MAX_CHANGES) lines.push(`- … and ${changes.length - MAX_CHANGES} more files`);
    const added = state.changes.reduce((n, c) => n + (c.added ?? 0), 0);
    const deleted = state.changes.reduce((n, c) => n + (c.deleted ?? 0), 0);
    const where = state.branch ? `branch ${state.branch}${state.base ? ` since ${state.base}` : ''}` : 'the working tree';
    const hitsInPlay = state.changes.some((c) => touches(c.path));
    out.push({
      key: 'git:changes',
      source: 'git',
      title: `Changes on ${where}: ${state.changes.length} file${state.changes.length === 1 ? '' : 's'}, +${added} -${deleted}`,
      text: lines.join('\n'),
      kind: 'text',
      prior: hitsInPlay ? 0.6 : 0.4,
      origin: hitsInPlay ? 'the branch changes files in play' : 'what the branch changed',
    });
  }
  const relevant = state.commits.filter((c) => c.files.some(touches));
  const commits = (relevant.length > 0 ? relevant : state.commits).slice(0, MAX_COMMITS);
  if (commits.length > 0) {
    const lines = commits.map((c) => {
      const files = c.files.filter(touches);
      const shown = (files.length > 0 ? files : c.files).slice(0, 4);
      const more = (files.length > 0 ? files : c.files).length - shown.length;
      return `- ${c.hash.slice(0, 8)}${c.date ? ` ${c.date.slice(0, 10)}` : ''} ${c.subject.replace(/\s+/g, ' ').trim()}${shown.length ? ` (${shown.join(', ')}${more > 0 ? `, +${more}` : ''})` : ''}`;
    });
    out.push({
      key: 'git:commits',
      source: 'git',
      title: relevant.length > 0 ? 'Recent commits on the files in play' : 'Recent commits',
      text: lines.join('\n'),
      kind: 'text',
      prior: relevant.length > 0 ? 0.6 : 0.3,
      origin: relevant.length > 0 ? `${relevant.length} recent commit${relevant.length === 1 ? '' : 's'} touch files in play` : 'recent history of the branch',
    });
  }
  return out;
}
