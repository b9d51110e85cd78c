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

function isNoiseParagraph(paragraph: string): boolean {
  const p = paragraph.trim();
  return (
    p === '' ||
    /^#{1,6}(\s|$)/.test(p) && !p.includes('\n') ||
    /^([-*_]\s*){3,}$/.test(p) ||
    /^(```|~~~)/.test(p) ||
    /^<!--[\s\S]*-->$/.test(p)
  );
}

/**
 * The start of a body as one line: headings, rules and code fences skipped, paragraphs
 * joined until there is enough to read, cut at a grapheme (and preferably a word) boundary.
 */
export function makePreview(body: string, maxChars: number, summary?: string | null): string {
  const source = summary && summary.trim() !== '' ? summary : body.slice(0, maxChars * 8 + 1024);
  let text = source.replace(/^---\n[\s\S]*?\n---\n/, '');
  const paragraphs = text.split(/\n[ \t]*\n/).filter((p) => !isNoiseParagraph(p));
  const parts: string[] = [];
  let length = 0;
  for (const paragraph of paragraphs) {
    const flat = paragraph.replace(/^\s*#{1,6}\s+/gm, '').replace(/\s+/g, ' ').trim();
    if (!flat) continue;
    parts.push(flat);
    length += flat.length + 1;
    // A paragraph shorter than this (a status line, a one-word label) says too little alone.
    if (length >= Math.min(120, maxChars)) break;
  }
  text = parts.join(' ');
  if (text.length <= maxChars) return text;
  let cut = cutAtGrapheme(text, maxChars);
  const space = cut.lastIndexOf(' ');
  if (space > maxChars * 0.6) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}
