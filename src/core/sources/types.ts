import type { ContentKind } from '../compress/types';

/**
 * Live sources: what the workspace says is true now, beside what the ledger says the team
 * decided. Adapters only supply candidates; the assembler ranks, compresses and packs them
 * with the same budget as artifacts. Each source is its own layer in the breakdown.
 */
export const SOURCE_KINDS = ['code', 'diagnostics', 'logs', 'docs', 'deployment', 'git', 'conversation'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export function isSourceKind(value: string): value is SourceKind {
  return (SOURCE_KINDS as readonly string[]).includes(value);
}

export interface LiveCandidate {
  /** Unique within a build and stable across builds: `code:src/a.ts`, `docs:README.md#install`. */
  key: string;
  source: SourceKind;
  title: string;
  /** The text as an agent would read it (secrets already withheld by the adapter). */
  text: string;
  kind: ContentKind;
  /** Workspace-relative path the candidate comes from, when it is one file. */
  path?: string;
  language?: string;
  /**
   * 0..1: how strongly the adapter ties the candidate to the task on its own, before any
   * text matching (a file named in the task, the active editor, an error in a file in play).
   */
  prior: number;
  /** Why the adapter offered it, shown in the explain output. */
  origin: string;
  /** A ready outline (an editor's symbol provider) that heavy compression uses. */
  outline?: string;
  /** Secrets the adapter withheld from `text` (names kept, values gone). */
  withheld?: number;
}

/** Per-source settings (`contextLedger.sources.<kind>`). */
export interface SourceSettings {
  enabled: boolean;
  /** Minimum relevance (0..1) after the task profile's weighting. */
  threshold: number;
  /** Most tokens the source may take in one build. */
  maxTokens: number;
}

export type SourcesSettings = Record<SourceKind, SourceSettings>;

/**
 * Thresholds in the spirit of the design (conversation 0.3, docs 0.4, code 0.5,
 * deployment 0.6, logs 0.7); git sits with code. Caps keep one source from crowding out
 * the ledger's own knowledge.
 */
export const DEFAULT_SOURCE_SETTINGS: Readonly<SourcesSettings> = Object.freeze({
  code: Object.freeze({ enabled: true, threshold: 0.5, maxTokens: 4000 }),
  diagnostics: Object.freeze({ enabled: true, threshold: 0.7, maxTokens: 1500 }),
  logs: Object.freeze({ enabled: true, threshold: 0.7, maxTokens: 1500 }),
  docs: Object.freeze({ enabled: true, threshold: 0.4, maxTokens: 2000 }),
  deployment: Object.freeze({ enabled: true, threshold: 0.6, maxTokens: 1500 }),
  git: Object.freeze({ enabled: true, threshold: 0.5, maxTokens: 1000 }),
  conversation: Object.freeze({ enabled: true, threshold: 0.3, maxTokens: 1500 }),
});
