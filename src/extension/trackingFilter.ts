/**
 * Which documents count as "worked on": vscode-free rules the FileActivityTracker applies.
 */
import { Minimatch } from 'minimatch';
import { WORKSPACE_FILE_SCHEMES } from './workspaceUris';

/** Folders whose files are tooling, not the project's code (`.context-ledger` is the ledger's own). */
const ALWAYS_IGNORED_SEGMENTS = new Set(['.git', 'node_modules', '.context-ledger', '.vscode-test']);
/** Files "Export to Agent Rules" writes: the ledger's knowledge again, not work the user is doing. */
const EXPORTED_RULE_FILE = /^(\.github\/instructions|\.cursor\/rules)\/context-ledger-[^/]*$/;

export interface TrackingRules {
  /** Globs (workspace-relative) from `files.exclude` (enabled entries) and `contextLedger.tracking.exclude`. */
  exclude: readonly string[];
  /** Workspace-relative paths the extension itself writes (e.g. the instructions file). */
  ownFiles: readonly string[];
}

export class TrackingFilter {
  private readonly matchers: Minimatch[];
  private readonly own: Set<string>;

  constructor(rules: TrackingRules) {
    this.matchers = rules.exclude
      .map((glob) => glob.trim().replace(/\\/g, '/').replace(/^\.\//, ''))
      .filter((glob) => glob !== '')
      .flatMap((glob) => {
        try {
          // `files.exclude` globs like `**/.DS_Store` and bare names like `dist` both apply at any depth.
          return [new Minimatch(glob, { dot: true, matchBase: !glob.includes('/') })];
        } catch {
          return [];
        }
      });
    this.own = new Set(rules.ownFiles.map((p) => p.replace(/\\/g, '/')));
  }

  /**
   * Whether a document at `relPath` (workspace-relative, forward slashes; undefined when
   * outside every workspace folder) with URI scheme `scheme` is tracked.
   */
  accepts(scheme: string, relPath: string | undefined): boolean {
    if (!WORKSPACE_FILE_SCHEMES.has(scheme)) return false;
    if (relPath === undefined || relPath === '' || relPath.startsWith('../') || relPath.startsWith('/')) return false;
    if (this.own.has(relPath) || EXPORTED_RULE_FILE.test(relPath)) return false;
    const segments = relPath.split('/');
    if (segments.some((segment) => ALWAYS_IGNORED_SEGMENTS.has(segment))) return false;
    for (const matcher of this.matchers) {
      if (matcher.match(relPath)) return false;
      // An excluded folder excludes what is inside it.
      for (let i = 1; i < segments.length; i++) if (matcher.match(segments.slice(0, i).join('/'))) return false;
    }
    return true;
  }
}

/** The enabled globs of a `files.exclude`-style setting (`{ "**\/.git": true, "dist": false }`). */
export function enabledGlobs(setting: unknown): string[] {
  if (setting === null || typeof setting !== 'object') return [];
  return Object.entries(setting as Record<string, unknown>)
    .filter(([, value]) => value === true)
    .map(([glob]) => glob);
}
