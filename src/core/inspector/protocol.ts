/**
 * Messages between the Context Inspector webview and the extension. Both sides check
 * what they receive at run time: a webview is a web page, and a message is just JSON.
 */
import type { BuildDiff } from './history';
import type { InspectorModel } from './model';

/** Webview → extension. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'openArtifact'; id: string }
  | { type: 'openFile'; path: string }
  | { type: 'pin'; id: string; pinned: boolean }
  | { type: 'feedback'; id: string; verdict: 'useful' | 'not_useful' }
  | { type: 'tryBudget'; budget: number }
  | { type: 'setBudget'; budget: number };

/** Extension → webview. */
export type HostMessage =
  | { type: 'model'; model: InspectorModel }
  | { type: 'empty'; reason: string }
  | { type: 'trial'; budget: number; tokensUsed: number; diff: BuildDiff }
  | { type: 'notice'; text: string };

/** Ids are short printable strings; anything else is not from our page. */
const MAX_ID = 512;
const MAX_PATH = 4096;
export const MAX_TRIAL_BUDGET = 2_000_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID && !/\p{Cc}/u.test(value);
}

function isBudget(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TRIAL_BUDGET;
}

/** The message if it is a well-formed WebviewMessage, else undefined (extra fields are dropped). */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  switch (value.type) {
    case 'ready':
    case 'refresh':
      return { type: value.type };
    case 'openArtifact':
      return isId(value.id) ? { type: 'openArtifact', id: value.id } : undefined;
    case 'openFile':
      return typeof value.path === 'string' && value.path.length > 0 && value.path.length <= MAX_PATH && !value.path.split(/[\\/]/).includes('..') && !/^([\\/]|[A-Za-z]:)/.test(value.path)
        ? { type: 'openFile', path: value.path }
        : undefined;
    case 'pin':
      return isId(value.id) && typeof value.pinned === 'boolean' ? { type: 'pin', id: value.id, pinned: value.pinned } : undefined;
    case 'feedback':
      return isId(value.id) && (value.verdict === 'useful' || value.verdict === 'not_useful') ? { type: 'feedback', id: value.id, verdict: value.verdict } : undefined;
    case 'tryBudget':
    case 'setBudget':
      return isBudget(value.budget) ? { type: value.type, budget: value.budget } : undefined;
    default:
      return undefined;
  }
}

/** The message if it is a well-formed HostMessage (shape of the top level and the parts the page indexes). */
export function parseHostMessage(value: unknown): HostMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  switch (value.type) {
    case 'model': {
      const m = value.model;
      if (!isRecord(m) || !Array.isArray(m.rows) || !Array.isArray(m.segments) || !Array.isArray(m.history) || typeof m.budget !== 'number' || typeof m.tokensUsed !== 'number' || !isRecord(m.counts) || !isRecord(m.estimate) || !isRecord(m.current)) return undefined;
      return { type: 'model', model: m as unknown as InspectorModel };
    }
    case 'empty':
    case 'notice': {
      const text = value.type === 'empty' ? value.reason : value.text;
      if (typeof text !== 'string') return undefined;
      return value.type === 'empty' ? { type: 'empty', reason: text } : { type: 'notice', text };
    }
    case 'trial': {
      const d = value.diff;
      if (!isBudget(value.budget) || typeof value.tokensUsed !== 'number' || !isRecord(d) || !Array.isArray(d.entries)) return undefined;
      return { type: 'trial', budget: value.budget, tokensUsed: value.tokensUsed, diff: d as unknown as BuildDiff };
    }
    default:
      return undefined;
  }
}

/** What the webview keeps across reloads (vscode.getState/setState), checked when read back. */
export interface WebviewState {
  tab: 'items' | 'agent' | 'history';
  text: string;
  statuses: string[];
  sort: string;
  descending: boolean;
  page: number;
  trialBudget?: number;
}

export function parseWebviewState(value: unknown): Partial<WebviewState> {
  if (!isRecord(value)) return {};
  const out: Partial<WebviewState> = {};
  if (value.tab === 'items' || value.tab === 'agent' || value.tab === 'history') out.tab = value.tab;
  if (typeof value.text === 'string') out.text = value.text.slice(0, 500);
  if (Array.isArray(value.statuses)) out.statuses = value.statuses.filter((s): s is string => typeof s === 'string');
  if (typeof value.sort === 'string') out.sort = value.sort;
  if (typeof value.descending === 'boolean') out.descending = value.descending;
  if (typeof value.page === 'number' && Number.isInteger(value.page) && value.page >= 0) out.page = value.page;
  if (isBudget(value.trialBudget)) out.trialBudget = value.trialBudget;
  return out;
}
