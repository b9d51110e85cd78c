/**
 * Sorting, filtering and paging of the items table. Runs in the webview on every
 * keystroke, so it is one pass over the rows and only the visible page is rendered.
 */
import type { ItemRow, RowStatus } from './model';

export const SORT_KEYS = ['status', 'title', 'type', 'layer', 'tokens', 'score'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface RowQuery {
  /** Case-insensitive words, all of which must appear in the title, id, type, layer or reason. */
  text: string;
  /** Empty: every status. */
  statuses: RowStatus[];
  sort: SortKey;
  descending: boolean;
  page: number;
  pageSize: number;
}

export const DEFAULT_QUERY: RowQuery = { text: '', statuses: [], sort: 'status', descending: false, page: 0, pageSize: 100 };

export interface RowPage {
  rows: ItemRow[];
  /** Rows that pass the filter (all pages). */
  total: number;
  page: number;
  pages: number;
}

const STATUS_ORDER: Record<RowStatus, number> = { full: 0, preview: 1, title: 2, excluded: 3 };

function compare(a: ItemRow, b: ItemRow, key: SortKey): number {
  switch (key) {
    case 'status':
      return STATUS_ORDER[a.status] - STATUS_ORDER[b.status];
    case 'title':
      return a.title.localeCompare(b.title);
    case 'type':
      return a.type.localeCompare(b.type);
    case 'layer':
      return (a.layer ?? '~').localeCompare(b.layer ?? '~');
    case 'tokens':
      return (a.tokens ?? -1) - (b.tokens ?? -1);
    case 'score':
      return (a.score ?? -Infinity) - (b.score ?? -Infinity);
  }
}

export function queryRows(all: readonly ItemRow[], query: RowQuery): RowPage {
  const words = query.text.toLowerCase().split(/\s+/).filter(Boolean);
  const statuses = new Set(query.statuses);
  const matching: Array<{ row: ItemRow; index: number }> = [];
  all.forEach((row, index) => {
    if (statuses.size > 0 && !statuses.has(row.status)) return;
    if (words.length > 0) {
      const hay = `${row.title}\n${row.id}\n${row.type}\n${row.layer ?? ''}\n${row.reason}`.toLowerCase();
      if (!words.every((w) => hay.includes(w))) return;
    }
    matching.push({ row, index });
  });
  const sign = query.descending ? -1 : 1;
  // The original order (placement, then score) breaks ties, so sorting is stable and meaningful.
  matching.sort((a, b) => sign * compare(a.row, b.row, query.sort) || a.index - b.index);
  const pageSize = Math.max(1, Math.floor(query.pageSize));
  const pages = Math.max(1, Math.ceil(matching.length / pageSize));
  const page = Math.min(Math.max(0, Math.floor(query.page)), pages - 1);
  return { rows: matching.slice(page * pageSize, (page + 1) * pageSize).map((m) => m.row), total: matching.length, page, pages };
}
