import { type PackEntry, type PackState, packGreedy } from '../assemble/pack';
import { redactSecrets } from '../assemble/redact';
import { demoteHeadings, type SectionKey } from '../assemble/render';
import { type CompressionLevel, compressText, taskTerms } from '../compress';
import { UserError, oneLine } from '../model';
import { contentHash, type TokenCounter } from '../tokens';
import { SourceCache } from './cache';
import { type ProfileTask, detectProfile, resolveProfileRules, resolveSourceSettings } from './profiles';
import { type RankedLive, liveQuery, rankLive } from './rank';
import type { LiveExcluded, LiveItem, LiveMode, LiveReport, LiveSourcesRequest } from './report';
import { type LiveCandidate, type SourceKind, type SourcesSettings, SOURCE_KINDS, isSourceKind } from './types';

/** Within a source, how much more the best match is worth than a weaker one. */
const VALUE_EXPONENT = 1.5;
/** Share of what is left after the fixed tier that live sources may take before the ledger's layers. */
const LIVE_SHARE = 0.4;
/** A compression that keeps more than this share of the tokens is not worth a level of its own. */
const WORTHWHILE = 0.9;
/** Medium keeps more than this share: go straight to heavy. */
const MEDIUM_ENOUGH = 0.6;

interface Form {
  body: string;
  tokens: number;
  level?: CompressionLevel;
}

/** Candidate texts as shown (secrets masked) and their hashes, by text: collectors hand the same texts to every build. */
const prepared = new SourceCache<{ text: string; redactions: Record<string, number>; hash: string }>(1000);

/** Compressed texts survive between builds (the status bar rebuilds often): keyed by content and task terms. */
const compressions = new SourceCache<string>(4000);

interface LiveEntry {
  entry: PackEntry;
  ranked: RankedLive;
  title: string;
  /** Full text as rendered (after redaction; light compression for prose). */
  full: () => Form;
  /** The compressed form for the middle level, or undefined when compression saves too little. */
  compressed: () => Form | undefined;
  redactions: Record<string, number>;
}

function fence(body: string, language: string | undefined): string {
  let ticks = '```';
  while (body.includes(ticks)) ticks += '`';
  return `${ticks}${language ?? ''}\n${body.replace(/\s+$/, '')}\n${ticks}`;
}

function sourceLabel(source: SourceKind): string {
  return source === 'diagnostics' ? 'problems' : source;
}

/**
 * Live candidates ranked for the task and turned into pack entries: level 3 is the full
 * text, level 2 its compressed form (medium, or heavy when medium saves too little), level
 * 1 a title line. The same packer and the same final count as artifacts decide what fits.
 */
export class LivePlan {
  readonly report: LiveReport;
  readonly settings: SourcesSettings;
  private readonly entries = new Map<SourceKind, LiveEntry[]>();
  private readonly byEntry = new Map<PackEntry, LiveEntry>();

  constructor(
    request: LiveSourcesRequest,
    task: ProfileTask | undefined,
    private readonly counter: TokenCounter,
    options: { redact: boolean; redactAllow: readonly string[]; titles: boolean },
  ) {
    if (request === null || typeof request !== 'object' || !Array.isArray(request.candidates)) {
      throw new UserError('"sources" must be an object with a "candidates" list.');
    }
    this.settings = resolveSourceSettings(request.settings);
    const detected = detectProfile(task, resolveProfileRules(request.profileRules), request.profile);
    const seen = new Set<string>();
    const candidates: LiveCandidate[] = [];
    for (const c of request.candidates) {
      if (!c || typeof c.key !== 'string' || typeof c.text !== 'string' || typeof c.title !== 'string' || !isSourceKind(String(c.source))) {
        throw new UserError('A live source candidate needs a key, a source, a title and a text.');
      }
      if (seen.has(c.key)) continue;
      seen.add(c.key);
      candidates.push(c);
    }
    const query = liveQuery(task);
    const queryKey = [...query.keys()].sort().join(' ');
    const terms = taskTerms(`${task?.title ?? ''}\n${task?.description ?? ''}\n${(task?.labels ?? []).join(' ')}`);
    const ranked = rankLive(candidates, query, detected.profile, this.settings);
    const redactKey = JSON.stringify([options.redact, options.redactAllow]);
    const excluded: LiveExcluded[] = [];
    const best = new Map<SourceKind, number>();
    for (const r of ranked) if (r.passed) best.set(r.candidate.source, Math.max(best.get(r.candidate.source) ?? 0, r.relevance));
    for (const r of ranked) {
      const c = r.candidate;
      if (!r.passed) {
        excluded.push({ key: c.key, source: c.source, title: c.title, reason: this.settings[c.source].enabled ? 'below-threshold' : 'source-off', relevance: r.relevance, detail: r.reason });
        continue;
      }
      const { text, redactions, hash } = prepared.get(c.text, redactKey, () => {
        const red = options.redact ? redactSecrets(c.text, options.redactAllow) : { text: c.text, kinds: {} };
        return { text: red.text, redactions: red.kinds, hash: contentHash(red.text) };
      });
      const title = options.redact ? redactSecrets(c.title, options.redactAllow).text : c.title;
      const prose = c.kind === 'markdown' || c.kind === 'text';
      const compressedOf = (level: CompressionLevel): string =>
        compressions.get(`${c.key}|${level}|${level === 'medium' ? queryKey : ''}`, hash, () =>
          compressText({ text, kind: c.kind, ...(c.language ? { language: c.language } : {}), ...(c.path ? { path: c.path } : {}), query: terms, ...(c.outline ? { outline: c.outline } : {}) }, level),
        );
      const render = (body: string): string => (c.kind === 'code' || c.kind === 'config' ? fence(body, c.language) : c.kind === 'markdown' ? demoteHeadings(body) : body);
      let full: Form | undefined;
      const fullForm = (): Form => {
        if (!full) {
          const body = render(prose ? compressedOf('light') : text);
          full = { body, tokens: this.count(this.block(c, title, body, undefined)) };
        }
        return full;
      };
      let middle: Form | null | undefined;
      const compressedForm = (): Form | undefined => {
        if (middle === undefined) {
          const before = fullForm().tokens;
          const medium = compressedOf('medium');
          let level: CompressionLevel = 'medium';
          let body = render(medium);
          let tokens = this.count(this.block(c, title, body, { level, ratio: 0, tokensBefore: before }));
          if (tokens > before * MEDIUM_ENOUGH) {
            level = 'heavy';
            body = render(compressedOf('heavy'));
            tokens = this.count(this.block(c, title, body, { level, ratio: 0, tokensBefore: before }));
          }
          middle = tokens <= before * WORTHWHILE && body.trim() !== '' ? { body, tokens, level } : null;
        }
        return middle ?? undefined;
      };
      const exact = new Set<number>();
      const chars = text.length + title.length + 40;
      const section = c.source as SectionKey;
      const entry: PackEntry = {
        key: c.key,
        value: Math.pow(r.relevance / Math.max(1e-9, best.get(c.source) ?? 1), VALUE_EXPONENT) * r.relevance,
        updatedMs: 0,
        section,
        allowed: [true, options.titles, true, true],
        cost: (level, wantExact) => {
          if (level === 1) {
            exact.add(1);
            return this.count(this.titleLine(c, title)) + 1;
          }
          if (wantExact || exact.has(level)) {
            exact.add(level);
            if (level === 3) return fullForm().tokens + 2;
            const form = compressedForm();
            // No worthwhile compression: the middle level costs as much as the full text.
            return (form ?? fullForm()).tokens + 2;
          }
          return Math.ceil((level === 3 ? chars : chars * 0.3) / 4.5);
        },
        isExact: (level) => exact.has(level),
        level: 0,
      };
      const live: LiveEntry = { entry, ranked: r, title, full: fullForm, compressed: compressedForm, redactions };
      const list = this.entries.get(c.source) ?? [];
      list.push(live);
      this.entries.set(c.source, list);
      this.byEntry.set(entry, live);
    }
    this.report = { profile: detected.profile, profileReason: detected.reason, priorities: detected.priorities, items: [], excluded };
  }

  private count(text: string): number {
    return this.counter.count(text);
  }

  private block(c: LiveCandidate, title: string, body: string, compression: LiveItem['compression'] | undefined): string {
    const how = compression ? `, compressed (${compression.level})` : '';
    const head = `### ${oneLine(title)}\n${sourceLabel(c.source)}${how} · ${oneLine(c.origin)}`;
    return body === '' ? head : `${head}\n\n${body}`;
  }

  private titleLine(c: LiveCandidate, title: string): string {
    return `- ${oneLine(title)} (${sourceLabel(c.source)})`;
  }

  /** All pack entries (for the final degrade-until-it-fits loop). */
  allEntries(): PackEntry[] {
    return [...this.byEntry.keys()];
  }

  has(entry: PackEntry): boolean {
    return this.byEntry.has(entry);
  }

  /** Tokens the live sources may want: the sum of their caps, for the reserve. */
  wanted(): number {
    let total = 0;
    for (const [source, list] of this.entries) if (list.length > 0) total += this.settings[source].maxTokens;
    return total;
  }

  /**
   * Packs each source within its cap, in the profile's order, from a reserve of the budget
   * left after the fixed tier. Returns the tokens spent per source.
   */
  pack(state: PackState, available: number): Map<SourceKind, { budget: number; used: number }> {
    const usage = new Map<SourceKind, { budget: number; used: number }>();
    let reserve = Math.min(this.wanted(), Math.floor(available * LIVE_SHARE));
    for (const source of this.report.priorities) {
      const list = this.entries.get(source);
      if (!list || list.length === 0) continue;
      const cap = Math.min(this.settings[source].maxTokens, reserve);
      const spent = packGreedy(
        list.map((l) => l.entry),
        state,
        cap,
      );
      reserve -= spent;
      usage.set(source, { budget: cap, used: spent });
    }
    return usage;
  }

  /** Rendered block and section of an entry at its current level. */
  rendered(entry: PackEntry): { section: SectionKey | 'noted'; block: string } | undefined {
    const live = this.byEntry.get(entry);
    if (!live || entry.level === 0) return undefined;
    const c = live.ranked.candidate;
    if (entry.level === 1) return { section: 'noted', block: this.titleLine(c, live.title) };
    if (entry.level === 3) return { section: entry.section, block: this.block(c, live.title, live.full().body, undefined) };
    const form = live.compressed();
    if (!form) return { section: entry.section, block: this.block(c, live.title, live.full().body, undefined) };
    return { section: entry.section, block: this.block(c, live.title, form.body, { level: form.level!, ratio: 0, tokensBefore: live.full().tokens }) };
  }

  /** Items and exclusions after the final fit, with per-source usage and the secrets masked in what was shown. */
  finish(): { items: LiveItem[]; layers: Map<SourceKind, number>; redactions: Record<string, number> } {
    const items: LiveItem[] = [];
    const layers = new Map<SourceKind, number>();
    const redactions: Record<string, number> = {};
    for (const source of SOURCE_KINDS) {
      for (const live of this.entries.get(source) ?? []) {
        const { entry, ranked } = live;
        const c = ranked.candidate;
        if (entry.level === 0) {
          this.report.excluded.push({ key: c.key, source, title: c.title, reason: 'budget', relevance: ranked.relevance, detail: ranked.reason });
          continue;
        }
        const tokens = entry.cost(entry.level, true);
        layers.set(source, (layers.get(source) ?? 0) + tokens);
        const form = entry.level === 2 ? live.compressed() : undefined;
        const mode: LiveMode = entry.level === 1 ? 'title' : form ? 'compressed' : 'full';
        const redacted = entry.level > 1 && Object.keys(live.redactions).length > 0;
        if (redacted) for (const [k, n] of Object.entries(live.redactions)) redactions[k] = (redactions[k] ?? 0) + n;
        const before = live.full().tokens;
        items.push({
          key: c.key,
          source,
          title: c.title,
          mode,
          tokens,
          relevance: ranked.relevance,
          ...(form?.level ? { compression: { level: form.level, ratio: Math.round((form.tokens / before) * 1000) / 1000, tokensBefore: before } } : {}),
          reason: mode === 'title' ? `${ranked.reason}; title only: the text did not fit` : mode === 'compressed' ? `${ranked.reason}; compressed (${form!.level}) to fit` : ranked.reason,
          ...(redacted ? { redacted: true } : {}),
        });
      }
    }
    this.report.items = items;
    return { items, layers, redactions };
  }
}
