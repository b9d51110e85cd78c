/**
 * What a caller hands the assembler for live sources and what the assembler reports back.
 * Types only, so the inspector's webview can type-check against a result without Node.
 */
import type { CompressionLevel } from '../compress/types';
import type { TaskProfile } from './profiles';
import type { LiveCandidate, SourceKind } from './types';

/** What a caller hands `assembleContext` to bring live sources in (all collected beforehand). */
export interface LiveSourcesRequest {
  candidates: LiveCandidate[];
  /** Per-source on/off, threshold, token cap (`contextLedger.sources.*`); defaults fill the rest. */
  settings?: unknown;
  /** A task profile name, or `auto` / absent to detect it from the task. */
  profile?: string;
  /** Profile detection rules from settings (labels and keywords per profile). */
  profileRules?: unknown;
}

export type LiveMode = 'full' | 'compressed' | 'title';

export interface LiveItem {
  key: string;
  source: SourceKind;
  title: string;
  mode: LiveMode;
  tokens: number;
  relevance: number;
  /** For `compressed`: the level applied and tokens after / before. */
  compression?: { level: CompressionLevel; ratio: number; tokensBefore: number };
  reason: string;
  redacted?: boolean;
}

export interface LiveExcluded {
  key: string;
  source: SourceKind;
  title: string;
  reason: 'below-threshold' | 'source-off' | 'budget';
  relevance: number;
  detail: string;
}

export interface LiveReport {
  profile: TaskProfile;
  profileReason: string;
  /** Sources in the profile's order. */
  priorities: SourceKind[];
  items: LiveItem[];
  excluded: LiveExcluded[];
}
