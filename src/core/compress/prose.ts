import { forEachTerm } from '../assemble/text';
import { type Token, type Tokens, isHtmlComment, lexMarkdown, listItemText, plainInline } from '../formats/markdown';
import { cutAtGrapheme } from '../assemble/preview';

/** Drops what an agent does not need to read prose: front matter, comments, images, padding. */
export function lightProse(text: string, markdown: boolean): string {
  let out = text.replace(/\r\n?/g, '\n');
  if (markdown) {
    out = out.replace(/^(?:---\n[\s\S]*?\n---|\+\+\+\n[\s\S]*?\n\+\+\+)[ \t]*(?:\n|$)/, '');
    out = mapOutsideFences(out, (chunk) =>
      chunk
        .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
        // Badges and images are links to pixels.
        .replace(/\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)/g, '')
        .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
        .replace(/<\/?(?:p|div|span|center|br|img|picture|source|sup|sub|details)\b[^>]*>/gi, '')
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
        .replace(/^[ \t]*(?:[-*_][ \t]*){3,}$/gm, '')
        // Table padding and alignment rows.
        .replace(/^[ \t]*\|.*\|[ \t]*$/gm, tableRow),
    );
  }
  return collapseBlank(out);
}

/** A table row without its padding; an alignment row shrinks to `|-|-|`. */
function tableRow(row: string): string {
  const cells = row.trim().slice(1, -1).split('|').map((c) => c.trim());
  if (cells.every((c) => /^:?-+:?$/.test(c))) return `|${cells.map(() => '-').join('|')}|`;
  return `| ${cells.join(' | ')} |`;
}

/** Trailing spaces gone, at most one blank line in a row, no blank lines at either end. */
export function collapseBlank(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .replace(/\n+$/, '');
}

/** Applies `fn` to the text outside fenced code blocks, which stay byte for byte. */
function mapOutsideFences(text: string, fn: (chunk: string) => string): string {
  const parts = text.split(/(^ {0,3}(?:`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}(?:`{3,}|~{3,})[ \t]*$|(?![\s\S])))/m);
  return parts.map((part, i) => (i % 2 === 1 ? part : fn(part))).join('');
}

/** One unit of prose the extractive summary keeps or drops. */
interface Unit {
  kind: 'heading' | 'sentence' | 'item' | 'block';
  text: string;
  /** Units of one paragraph are joined with a space when shown together. */
  paragraph: number;
  section: number;
  lead: boolean;
  score: number;
}

const SENTENCE_END = /(?<=[.!?…])[ \t\n]+(?=[\p{Lu}\p{N}"'“([`*_])|(?<=[。！？])/u;

export function splitSentences(paragraph: string): string[] {
  return paragraph
    .split(SENTENCE_END)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

function scoreOf(text: string, query: ReadonlySet<string>): number {
  if (query.size === 0) return 0;
  const hit = new Set<string>();
  let hits = 0;
  forEachTerm(text, (term) => {
    if (query.has(term)) {
      hit.add(term);
      hits++;
    }
  });
  return hit.size + 0.1 * Math.min(hits, 10);
}

function unitsOf(text: string, markdown: boolean, query: ReadonlySet<string>): Unit[] {
  const units: Unit[] = [];
  let paragraph = 0;
  let section = 0;
  let leadPending = true;
  const addParagraph = (raw: string): void => {
    paragraph++;
    for (const sentence of splitSentences(markdown ? plainInline(raw) : raw)) {
      units.push({ kind: 'sentence', text: sentence, paragraph, section, lead: leadPending, score: scoreOf(sentence, query) });
      leadPending = false;
    }
  };
  if (!markdown) {
    for (const p of text.split(/\n[ \t]*\n/)) if (p.trim()) addParagraph(p);
    return units;
  }
  const visit = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'space' || token.type === 'hr' || isHtmlComment(token)) continue;
      if (token.type === 'heading') {
        section++;
        paragraph++;
        leadPending = true;
        const heading = token as Tokens.Heading;
        units.push({ kind: 'heading', text: `${'#'.repeat(heading.depth)} ${plainInline(heading.text)}`, paragraph, section, lead: false, score: 0 });
      } else if (token.type === 'paragraph' || token.type === 'text') {
        addParagraph(token.raw);
      } else if (token.type === 'blockquote') {
        visit((token as Tokens.Blockquote).tokens);
      } else if (token.type === 'list') {
        for (const item of (token as Tokens.List).items) {
          paragraph++;
          const flat = plainInline(listItemText(item));
          units.push({ kind: 'item', text: flat, paragraph, section, lead: leadPending, score: scoreOf(flat, query) });
          leadPending = false;
        }
      } else if (token.type === 'code' || token.type === 'table' || token.type === 'html') {
        paragraph++;
        const raw = token.raw.replace(/\n+$/, '');
        // Code and tables are dear: kept only when the task names something in them.
        units.push({ kind: 'block', text: raw, paragraph, section, lead: false, score: scoreOf(raw, query) * 0.5 });
      } else if (token.raw.trim()) {
        addParagraph(token.raw);
      }
    }
  };
  visit(lexMarkdown(lightProse(text, true)));
  return units;
}

function render(units: readonly Unit[]): string {
  const out: string[] = [];
  let last: Unit | undefined;
  for (const unit of units) {
    if (unit.kind === 'heading') out.push(unit.text);
    else if (unit.kind === 'item') {
      const line = `- ${unit.text}`;
      if (last?.kind === 'item' && out.length > 0) out[out.length - 1] += `\n${line}`;
      else out.push(line);
    } else if (unit.kind === 'block') out.push(unit.text);
    else if (last && last.kind === 'sentence' && last.paragraph === unit.paragraph && out.length > 0) out[out.length - 1] += ` ${unit.text}`;
    else out.push(unit.text);
    last = unit;
  }
  return out.join('\n\n');
}

/** At most this share of the sentences and items survive a medium summary (besides the leads). */
const MEDIUM_SHARE = 0.35;
const HEAVY_UNIT_CHARS = 240;

/**
 * Extractive summary: every heading, the lead sentence of each section, and the sentences
 * (list items, code blocks) that contain the most task terms, in their original order.
 */
export function mediumProse(text: string, markdown: boolean, query: ReadonlySet<string>): string {
  const units = unitsOf(text, markdown, query);
  const body = units.filter((u) => u.kind !== 'heading');
  const limit = Math.max(1, Math.ceil(body.length * MEDIUM_SHARE));
  const chosen = new Set<Unit>(body.filter((u) => u.lead && u.kind !== 'block'));
  const ranked = body
    .filter((u) => u.score > 0 && !chosen.has(u))
    .map((u, i) => ({ u, i }))
    .sort((a, b) => b.u.score - a.u.score || a.i - b.i);
  for (const { u } of ranked) {
    if (chosen.size >= limit) break;
    chosen.add(u);
  }
  return render(units.filter((u) => u.kind === 'heading' || chosen.has(u)));
}

/**
 * Key points: headings, and per section its lead and its best-matching sentence, each cut
 * short; code blocks and tables go.
 */
export function heavyProse(text: string, markdown: boolean, query: ReadonlySet<string>): string {
  const units = unitsOf(text, markdown, query).filter((u) => u.kind !== 'block');
  const keep = new Set<Unit>();
  const bySection = new Map<number, Unit[]>();
  for (const u of units) {
    if (u.kind === 'heading') {
      keep.add(u);
      continue;
    }
    const list = bySection.get(u.section);
    if (list) list.push(u);
    else bySection.set(u.section, [u]);
  }
  for (const list of bySection.values()) {
    const lead = list.find((u) => u.lead) ?? list[0]!;
    keep.add(lead);
    let best: Unit | undefined;
    for (const u of list) if (u.score > 0 && (!best || u.score > best.score)) best = u;
    if (best) keep.add(best);
  }
  const cut = (u: Unit): Unit => {
    if (u.text.length <= HEAVY_UNIT_CHARS) return u;
    const head = cutAtGrapheme(u.text, HEAVY_UNIT_CHARS);
    const space = head.lastIndexOf(' ');
    return { ...u, text: `${(space > HEAVY_UNIT_CHARS * 0.6 ? head.slice(0, space) : head).replace(/[\s,;:]+$/, '')}…` };
  };
  // Headings of sections left empty below them still say what the document covers.
  return render(units.filter((u) => keep.has(u)).map(cut));
}
