/** Slugs for ids, file names and section anchors: no dependencies, so the assembler can use them without the formats' parsers. */

/**
 * ASCII slug: accents folded, everything but [a-z0-9] collapsed to '-', at most `max`
 * characters (cut at a '-' when one is near). May be empty (an all-CJK title).
 */
export function slugify(text: string, max = 60): string {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (folded.length <= max) return folded;
  const cut = folded.slice(0, max);
  const dash = cut.lastIndexOf('-');
  return (dash >= max / 2 ? cut.slice(0, dash) : cut).replace(/-+$/, '');
}
