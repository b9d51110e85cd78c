/**
 * Graphemes, so a cut never splits a surrogate pair, a combining sequence or an emoji.
 * Made on first use: creating a segmenter loads ICU data (about 10 ms), which commands
 * that never cut a preview (`add`, `list`) should not pay.
 */
let graphemes: Intl.Segmenter | undefined;

/** The longest prefix of `text` of at most `maxChars` UTF-16 units that ends on a grapheme boundary. */
export function cutAtGrapheme(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return '';
  // Between two ASCII characters there is always a grapheme boundary, except inside CR LF
  // (UAX #29: every extender, joiner, prepend mark and surrogate is outside ASCII). Most
  // cuts land there, and segmenting costs about as much as building the rest of a preview.
  const before = text.charCodeAt(maxChars - 1);
  const after = text.charCodeAt(maxChars);
  if (before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a)) return text.slice(0, maxChars);
  // Segment only the neighbourhood of the cut: grapheme clusters are short.
  const window = text.slice(0, maxChars + 64);
  let end = 0;
  for (const { index, segment } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(window)) {
    if (index + segment.length > maxChars) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** A record's status as written on its own: "Accepted", "Proposed (2024-05-01)", "Superseded by ADR-13". */
const STATUS_VALUE = String.raw`(?:accepted|proposed|deprecated|superseded|rejected|draft|approved|implemented|in progress)(?:\s*\(.*\)|\s*[-–—:,]?\s*\d{4}-\d{2}-\d{2}.*|\s+by\s+.*)?\s*`;
/**
 * A record's metadata line ("* Status: accepted", "**Date:** 2026-02-19", "Technical Story:
 * <url>", "Depends on: ADR-12"), or a status alone under a "Status" heading: says nothing
 * of the content, so a preview skips it.
 */
const METADATA_LINE = new RegExp(
  String.raw`^\s*(?:[-*]\s*)?(?:\*\*)?(?:(?:date|deciders|consolidated from|decision[- ]makers|technical story|authors?|owners?|reviewers?|consulted|informed|supersedes|superseded by|depends on|related(?: to)?|inspired by|created|updated|last updated)(?:\*\*)?\s*:(?:\*\*)?\s*\S.*|status(?:\*\*)?\s*:(?:\*\*)?\s*(?:\*\*)?${STATUS_VALUE}(?:\*\*)?|(?:\*\*)?${STATUS_VALUE}(?:\*\*)?)$`,
  'i',
);
const HEADING_LINE = /^\s*#{1,6}(\s|$)/;

function isNoiseParagraph(paragraph: string): boolean {
  const p = paragraph.trim();
  return (
    p === '' ||
    p.split('\n').every((line) => HEADING_LINE.test(line) || METADATA_LINE.test(line)) ||
    /^([-*_]\s*){3,}$/.test(p) ||
    /^(```|~~~)/.test(p) ||
    /^<!--[\s\S]*-->$/.test(p)
  );
}

/**
 * Where a record states its substance: a decision record's "Decision" or "Decision
 * Outcome" heading (Nygard, MADR) or "**Decision**:" paragraph, a learning's "Lesson" or
 * "Takeaway", a research finding's "Conclusions" or "Findings". The title asks the question; a preview of the answer serves the reader
 * better than one of the status line and the context.
 */
const SUBSTANCE_START =
  /^(?:#{1,6}[ \t]*(?:the[ \t]+)?(?:decision(?:[ \t]+outcome)?|lessons?(?:[ \t]+learned)?|takeaways?|conclusions?|findings?)[ \t]*:?[ \t]*$|\*\*(?:decision|lessons?(?: learned)?|takeaways?|conclusions?|findings?)(?::\*\*|\*\*[ \t]*:))/im;

/** A bold label with its colon inside or after it: "**Consequences**:" or "**Consequences:**". */
const BOLD_LABEL = String.raw`\*\*[^*\n]+(?::\*\*|\*\*[ \t]*:)`;
/** Where a section ends: the next heading or bold label. */
const SECTION_END = new RegExp(String.raw`\n[ \t]*(?:#{1,6}[ \t]|${BOLD_LABEL})`);
const LEADING_LABEL = new RegExp(String.raw`^\s*${BOLD_LABEL}`);

/** How much text a preview of `maxChars` reads: enough to skip headings and metadata, never a whole huge body. */
function previewWindow(maxChars: number): number {
  return maxChars * 8 + 1024;
}

function substanceOf(body: string, maxChars: number): string | undefined {
  const head = body.slice(0, 64 * 1024);
  const match = SUBSTANCE_START.exec(head);
  if (!match) return undefined;
  const from = match.index + match[0].length;
  const text = head.slice(from, from + previewWindow(maxChars));
  // The substance ends at the next heading or bold label ("**Consequences**:").
  const end = text.search(SECTION_END);
  let substance = (end >= 0 ? text.slice(0, end) : text).trim();
  // "We will add three surfaces:" followed by a subsection per surface: their headings are
  // the decision, so they join it ("...: 1. Task tabs; 2. Preview endpoint").
  const level = /^#+/.exec(match[0])?.[0].length ?? 0;
  if (end >= 0 && level > 0 && substance.endsWith(':')) {
    const parts = subheadings(text.slice(end), level);
    if (parts.length > 0) substance = `${substance} ${parts.join('; ')}`;
  }
  return substance === '' ? undefined : substance;
}

/** The headings deeper than `level` at the start of `text`, up to one at `level` or above (code blocks skipped). */
function subheadings(text: string, level: number): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^[ \t]*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^[ \t]*(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(line);
    if (!heading) continue;
    if (heading[1]!.length <= level) break;
    if (heading[2]) found.push(heading[2]);
  }
  return found;
}

/** A sentence shorter than this share of the preview is cut into instead (it would say too little). */
const SENTENCE_SHARE = 0.4;

/** Letters and digits only, lower-cased: "Cache it." and "cache it" say the same. */
function gist(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Where the last sentence that ends within `text` ends, or -1 ("e.g." and a list's "1." end none). */
function lastSentenceEnd(text: string): number {
  let end = -1;
  for (const match of text.matchAll(/(?<!\b(?:e\.g|i\.e|etc|vs|cf)|(?:^|[\s(])\d{1,3})[.!?](?=[\s"')\]]|$)|[。！？]/gu)) end = match.index + match[0].length;
  return end;
}

/**
 * The start of a body as one line: headings, rules, code fences and a paragraph that only
 * repeats the title skipped, paragraphs joined until there is enough to read, cut at the
 * end of a sentence when one ends far enough in, else at a grapheme (and preferably a
 * word) boundary.
 */
export function makePreview(body: string, maxChars: number, summary?: string | null, title?: string): string {
  // A decision that only restates the title ("**Decision**: <the title>") tells the reader
  // nothing new. Only text about as long as the title can say the same (and gist costs).
  const longest = 2 * (title?.length ?? 0) + 32;
  let titleGist: string | undefined;
  const repeatsTitle = (text: string): boolean => {
    if (title === undefined || text.length > longest) return false;
    titleGist ??= gist(title);
    return titleGist !== '' && gist(text) === titleGist;
  };
  let source = summary && summary.trim() !== '' ? summary : substanceOf(body, maxChars);
  if (source === undefined || repeatsTitle(source)) source = body.slice(0, previewWindow(maxChars));
  let text = source.replace(/^---\n[\s\S]*?\n---\n/, '');
  const all = text.split(/\n[ \t]*\n/);
  const content = all.filter((p) => !isNoiseParagraph(p) && !repeatsTitle(stripLabel(p)));
  // A body that is nothing but headings or metadata still previews as what it has.
  const paragraphs = content.length > 0 ? content : all;
  const parts: string[] = [];
  let length = 0;
  for (const paragraph of paragraphs) {
    // A heading inside a paragraph names what follows; the preview is what follows.
    const flat = (content.length > 0 ? paragraph.replace(/^\s*#{1,6}(?:\s.*)?$/gm, '') : paragraph.replace(/^\s*#{1,6}\s+/gm, '')).replace(/\s+/g, ' ').trim();
    if (!flat) continue;
    parts.push(flat);
    length += flat.length + 1;
    // A paragraph shorter than this (a status line, a one-word label) says too little alone.
    if (length >= Math.min(120, maxChars)) break;
  }
  text = parts.join(' ');
  if (text.length <= maxChars) return text;
  let cut = cutAtGrapheme(text, maxChars);
  // A whole sentence reads better than a cut one, and the URN after it says there is more.
  const sentence = lastSentenceEnd(cut);
  if (sentence >= maxChars * SENTENCE_SHARE) return cut.slice(0, sentence);
  const space = cut.lastIndexOf(' ');
  if (space > maxChars * 0.6) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

/** A paragraph without its bold label ("**Decision**: ..."), to compare with the title. */
function stripLabel(paragraph: string): string {
  return paragraph.replace(LEADING_LABEL, '');
}
