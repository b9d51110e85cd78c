import { slugify } from './slug';

/**
 * The sections of a long Markdown body: the units a long artifact is retrieved by, each
 * addressable as `ledger://artifact/<id>#<slug>` and fetchable whole (get_artifact, show).
 * A light line scan, not the Markdown lexer: the assembler runs this on every long
 * candidate and must not load the formats' parsers.
 */
export interface BodySection {
  /** The anchor: the heading's slug, unique in the body (`-2`, `-3` for repeats); `intro` for text before the first heading. */
  slug: string;
  /** The heading's text; '' for the intro. */
  heading: string;
  /** The section's text without its own heading line. */
  text: string;
}

/** `<id>#<slug>`: one section of an artifact. The separator cannot occur in an id (ids are slugs and ULIDs). */
export const SECTION_MARK = '#';

export function sectionRef(id: string, slug: string): string {
  return `${id}${SECTION_MARK}${slug}`;
}

/** Splits `<id>#<slug>` (a URN's id part included) into the artifact id and the section, if any. */
export function parseSectionRef(ref: string): { id: string; section?: string } {
  const at = ref.indexOf(SECTION_MARK);
  if (at <= 0 || at === ref.length - 1) return { id: at === ref.length - 1 ? ref.slice(0, -1) : ref };
  return { id: ref.slice(0, at), section: ref.slice(at + 1) };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

interface Heading {
  level: number;
  text: string;
  /** Offsets of the heading line's start and of the line after it. */
  start: number;
  after: number;
}

/** Inline Markdown taken out of a heading: `code`, *emphasis*, [links](target), trailing #s. */
function headingText(raw: string): string {
  return raw
    .replace(/[ \t]+#+$/, '')
    .replace(/^#+$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function headingsOf(body: string): Heading[] {
  const headings: Heading[] = [];
  let fence: string | undefined;
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    const line = body.slice(start, end).replace(/\r$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = undefined;
    } else if (fence === undefined) {
      const atx = ATX.exec(line);
      if (atx) headings.push({ level: atx[1]!.length, text: headingText(atx[2] ?? ''), start, after: Math.min(body.length, end + 1) });
    }
    start = end + 1;
  }
  return headings;
}

/**
 * The body's sections at the shallowest heading level that occurs at least twice (a
 * document's single `#` title is not a split point; its `##` parts are). Text before the
 * first split point is the `intro` when it says more than a heading. Sections with no
 * text of their own are left out. Fewer than two sections: [] (the body is one unit).
 */
export function splitSections(body: string): BodySection[] {
  const headings = headingsOf(body);
  const counts = new Map<number, number>();
  for (const h of headings) counts.set(h.level, (counts.get(h.level) ?? 0) + 1);
  let depth = 0;
  for (let level = 1; level <= 6; level++) {
    if ((counts.get(level) ?? 0) >= 2) {
      depth = level;
      break;
    }
  }
  if (depth === 0) return [];
  const bounds = headings.filter((h) => h.level === depth);
  const sections: BodySection[] = [];
  const used = new Map<string, number>();
  const anchor = (base: string): string => {
    const slug = base === '' ? 'section' : base;
    const n = (used.get(slug) ?? 0) + 1;
    used.set(slug, n);
    return n === 1 ? slug : `${slug}-${n}`;
  };
  const intro = body.slice(0, bounds[0]!.start);
  const introText = intro
    .split('\n')
    .filter((line) => !ATX.test(line))
    .join('\n')
    .trim();
  if (introText !== '') sections.push({ slug: anchor('intro'), heading: '', text: intro.trim() });
  for (let i = 0; i < bounds.length; i++) {
    const h = bounds[i]!;
    const end = i + 1 < bounds.length ? bounds[i + 1]!.start : body.length;
    const text = body.slice(h.after, end).trim();
    if (text === '') continue;
    sections.push({ slug: anchor(slugify(h.text)), heading: h.text, text });
  }
  return sections.length >= 2 ? sections : [];
}

/** The section of `body` with this anchor, if the body has one. */
export function findSection(body: string, slug: string): BodySection | undefined {
  return splitSections(body).find((s) => s.slug === slug.toLowerCase());
}

/**
 * What a reference names: an artifact id or URN, or one section of an artifact
 * (`<id>#<slug>`). An id is looked up whole first, so an artifact whose id holds the mark
 * is still found. `missing`: the artifact exists but has no such section (its sections listed).
 */
export function resolveSectionRef<T extends { body: string }>(
  ref: string,
  lookup: (id: string) => T | undefined,
): { artifact: T | undefined; id: string; section?: BodySection; missing?: { slug: string; sections: string[] } } {
  const whole = lookup(ref);
  if (whole) return { artifact: whole, id: ref };
  const { id, section } = parseSectionRef(ref);
  const artifact = section === undefined ? undefined : lookup(id);
  if (!artifact || section === undefined) return { artifact: undefined, id: ref };
  const found = findSection(artifact.body, section);
  return found ? { artifact, id, section: found } : { artifact, id, missing: { slug: section, sections: splitSections(artifact.body).map((s) => s.slug) } };
}

/** Says which sections there are, for an error about one that is not. */
export function describeMissingSection(urn: string, missing: { slug: string; sections: string[] }): string {
  const listed = missing.sections.length === 0 ? 'it is not split into sections' : `its sections: ${missing.sections.slice(0, 30).join(', ')}${missing.sections.length > 30 ? ', …' : ''}`;
  return `${urn} has no section "${missing.slug}" (${listed}).`;
}
