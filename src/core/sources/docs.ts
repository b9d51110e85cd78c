import { type Token, headingText, isHeading, lexMarkdown, rawOf, splitAtHeadings, hasContent } from '../formats/markdown';
import type { LiveCandidate } from './types';

export interface DocFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  text: string;
}

/** A section longer than this is split again at its sub-headings. */
const SPLIT_CHARS = 6000;

export interface DocSection {
  /** Heading path: `Install › From source`. */
  heading: string;
  slug: string;
  text: string;
}

function slugOf(heading: string): string {
  return (
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-') || 'section'
  );
}

/**
 * A Markdown file cut into sections at `#` and `##` headings (deeper ones too when a
 * section is long), each with its heading trail. Text before the first heading is the
 * file's introduction. Front matter is dropped.
 */
export function splitDoc(text: string): DocSection[] {
  const source = text.replace(/\r\n?/g, '\n').replace(/^(?:---\n[\s\S]*?\n---|\+\+\+\n[\s\S]*?\n\+\+\+)[ \t]*(?:\n|$)/, '');
  const tokens = lexMarkdown(source);
  const out: DocSection[] = [];
  const slugs = new Map<string, number>();
  const push = (trail: string[], body: readonly Token[], heading: Token | null): void => {
    const all = heading ? [heading, ...body] : [...body];
    if (!hasContent(body)) return;
    const label = trail.length > 0 ? trail.join(' › ') : 'Introduction';
    let slug = slugOf(trail[trail.length - 1] ?? 'introduction');
    const seen = slugs.get(slug) ?? 0;
    slugs.set(slug, seen + 1);
    if (seen > 0) slug = `${slug}-${seen + 1}`;
    out.push({ heading: label, slug, text: rawOf(all).trim() });
  };
  const walk = (list: readonly Token[], depth: number, trail: string[], parent: Token | null): void => {
    // Headings above the current one, so `## Install` under `# Guide` reads `Guide › Install`.
    const stack: Array<{ depth: number; text: string }> = [];
    for (const section of splitAtHeadings(list, depth)) {
      // The text before the first heading belongs to the parent (or introduces the file).
      if (!section.heading) {
        push(trail, section.tokens, parent);
        continue;
      }
      const level = section.heading.depth;
      while (stack.length > 0 && stack[stack.length - 1]!.depth >= level) stack.pop();
      const own = [...trail, ...stack.map((h) => h.text), headingText(section.heading)];
      stack.push({ depth: level, text: headingText(section.heading) });
      const long = rawOf(section.tokens).length > SPLIT_CHARS && section.tokens.some((t) => isHeading(t));
      if (long && depth < 6) walk(section.tokens, depth + 1, own, section.heading);
      else push(own, section.tokens, section.heading);
    }
  };
  walk(tokens, 2, [], null);
  return out;
}

export interface DocOptions {
  /** Paths named in the task or open in the editor. */
  inPlay?: readonly string[];
}

/** Workspace Markdown (README, docs/**) as one candidate per section, ranked like artifacts. */
export function docCandidates(files: readonly DocFile[], options: DocOptions = {}): LiveCandidate[] {
  return files.flatMap((file) => sectionCandidates(file.path, splitDoc(file.text), options));
}

/** Candidates of a file already split (callers cache `splitDoc` per file version). */
export function sectionCandidates(path: string, sections: readonly DocSection[], options: DocOptions = {}): LiveCandidate[] {
  const named = (options.inPlay ?? []).includes(path);
  const isReadme = /^readme(\.[a-z]+)?$/i.test(path);
  return sections.map((section) => ({
    key: `docs:${path}#${section.slug}`,
    source: 'docs',
    title: `${path} › ${section.heading}`,
    text: section.text,
    kind: 'markdown',
    path,
    prior: named ? 0.9 : isReadme ? 0.15 : 0.1,
    origin: named ? 'a document in play' : isReadme ? 'the workspace README' : 'workspace documentation',
  }));
}
