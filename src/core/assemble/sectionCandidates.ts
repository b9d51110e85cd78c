import { type Artifact, STANDING_RULE_TYPES } from '../model';
import { type BodySection, sectionRef, splitSections } from '../sections';
import { contentHash } from '../tokens';
import { type Candidate, type CandidateSet, compareCandidates, taskSources } from './candidates';
import { type PackEntry, type PackState, packGreedy, takeOut } from './pack';
import type { ActivePath } from './paths';
import { INDEX_BODY_CHARS, type SearchIndex, buildQuery } from './relevance';
import type { ResolvedTask } from './request';
import type { AssembleOptions } from './types';
import { forEachTerm } from './text';

/**
 * Bodies shorter than this (about 1,000 tokens, half the smallest budget people use) are
 * given whole or not at all. A longer one is also retrieved by its sections: the one part
 * of a long instructions file that matters should not arrive as the file's first lines
 * while weaker, shorter items get their full text.
 */
export const SECTION_MIN_CHARS = 4_000;

/** At most this many long candidates, best first, are split per build: what ranks lower cannot reach the text anyway. */
const MAX_SPLIT = 64;

/** How much denser than in the whole artifact the task's words must be in a section for it to be offered alone (besides the densest, see below). */
const MIN_LIFT = 2;

/** A word in at most 1/DISTINCTIVE_SHARE of an artifact's sections tells them apart. */
const DISTINCTIVE_SHARE = 3;

/**
 * The worth, as a share of its file's, of a part of a rule in scope that the task does not
 * single out. The tool loads the whole file for the files in play, so each part has the
 * evidence of the file's scope; but the task points to none of them, so the part is bought
 * only with room nothing else of worth can use: under the layer floor (`layerFloor`), it
 * waits for the last back-fill, where it never displaces what the ranking chose.
 */
const ROOM_LEFT_SHARE = 1e-3;

interface SectionDoc {
  section: BodySection;
  /** Its text in lower case, for the names of the files in play. */
  lowerText: string;
  /** The section as an artifact of its own: the parent's metadata, `<id>#<slug>`, the section's title and text. */
  artifact: Artifact;
  /** Its heading's and text's terms, counted. */
  terms: Map<string, number>;
}

/** Artifact objects live as long as the store's generation: a warm build splits and counts nothing again. */
const splits = new WeakMap<Artifact, SectionDoc[]>();

function sectionsOf(a: Artifact): SectionDoc[] {
  let known = splits.get(a);
  if (known === undefined) {
    known = splitSections(a.body).map((section) => {
      const title = section.heading === '' ? a.title : `${a.title} › ${section.heading}`;
      const artifact: Artifact = { ...a, id: sectionRef(a.id, section.slug), title, body: section.text, summary: null, contentHash: contentHash(section.text) };
      const terms = new Map<string, number>();
      const count = (term: string): void => void terms.set(term, (terms.get(term) ?? 0) + 1);
      forEachTerm(section.heading, count);
      forEachTerm(section.text.length > INDEX_BODY_CHARS ? section.text.slice(0, INDEX_BODY_CHARS) : section.text, count);
      return { section, artifact, terms, lowerText: section.text.toLowerCase() };
    });
    splits.set(a, known);
  }
  return known;
}

/**
 * The names of the files in play as a rule cites them: the file name with its extension, in
 * lower case, long enough (6 characters) that a word of prose is not taken for one.
 */
function namesInPlay(active: readonly ActivePath[]): string[] {
  const names = new Set<string>();
  for (const p of active) {
    if (p.isDir) continue;
    const name = p.path.slice(p.path.lastIndexOf('/') + 1).toLowerCase();
    if (name.length >= 6 && name.includes('.')) names.add(name);
  }
  return [...names];
}

/**
 * The sections stage: the sections of each long candidate that hold part of its match
 * with the task. A section is worth the share of its artifact's match it holds (the
 * task's words in it, weighted by their rarity in the ledger, repeats counting less and
 * less): the artifact's worth is divided among its parts, so a section never outranks its artifact, and the one part
 * where the task's words are costs a fraction of the whole. A section is shown whole or
 * not at all, beside its artifact's preview, never beside its full text (`settleSections`).
 */
export function addSectionCandidates(set: CandidateSet, task: ResolvedTask | undefined, searchIndex: () => SearchIndex, options: AssembleOptions, active: readonly ActivePath[], budget: number): void {
  // A pin longer than the fixed tier's share (about 4 characters a token) can never be shown
  // whole within it: split like a long rule, so its parts compete for the room beyond it.
  const fixedShareChars = budget * options.fixedShare * 4;
  // The paths say an artifact applies; the task's own words, and a file in play a part names,
  // say which part of it matters.
  const query = buildQuery(taskSources(task, options));
  if (query.size === 0) return;
  const queryTerms = [...query.keys()];
  const index = searchIndex();
  const fileNames = namesInPlay(active);
  const found: Candidate[] = [];
  const { candidates } = set;
  let split = 0;
  for (const c of candidates) {
    // Only standing rules are split: a rule file is a set of rules, each section standing
    // alone (as the AGENTS.md importer splits it), while a decision or a design note is an
    // argument whose parts lean on each other (context, options, outcome) and is read whole.
    // Rules and pins too: each is always named, but one longer than the fixed tier's share
    // would otherwise arrive as its first lines only; beyond that share its text is bought on
    // relevance like any other's, so its sections compete as the other layers' do.
    const minChars = c.layer === 'fixed' ? Math.min(SECTION_MIN_CHARS, fixedShareChars) : SECTION_MIN_CHARS;
    if (!STANDING_RULE_TYPES.has(c.artifact.type) || c.artifact.body.length < minChars) continue;
    if (split++ >= MAX_SPLIT) break;
    const sections = sectionsOf(c.artifact);
    if (sections.length === 0) continue;
    // A task word in most sections is the artifact's topic, not a part's: it says nothing
    // about which part matters. Words weigh by how few sections hold them (an idf within
    // the artifact), and a section is offered only if it holds a word few others do.
    const holding = (has: (s: SectionDoc) => boolean): number => sections.reduce((n, s) => n + (has(s) ? 1 : 0), 0);
    const holders = new Map<string, number>();
    for (const term of queryTerms) holders.set(term, holding((s) => s.terms.has(term)));
    const distinctive = Math.max(1, Math.floor(sections.length / DISTINCTIVE_SHARE));
    const mass = sections.map((s) => {
      let m = 0;
      for (const [term, weight] of query) {
        const tf = s.terms.get(term);
        if (tf) m += weight * index.idf(term) * Math.log((sections.length + 1) / (holders.get(term)! + 0.5)) * (1 + Math.log(tf));
      }
      return m;
    });
    const total = mass.reduce((sum, m) => sum + m, 0);
    const given = new Set<number>();
    const offerRest = (): void => {
      if (c.pathMatch === undefined) return;
      sections.forEach((s, i) => {
        if (!given.has(i)) found.push({ ...c, layer: c.layer === 'fixed' ? 'global' : c.layer, artifact: s.artifact, sectionOf: c, section: s.section, sectionShare: ROOM_LEFT_SHARE, roomLeft: true });
      });
    };
    if (total <= 0) {
      offerRest();
      continue;
    }
    const length = sections.reduce((sum, s) => sum + s.artifact.body.length, 0);
    const offer = (i: number, namesFile?: string): void => {
      const s = sections[i]!;
      const wordsShare = mass[i]! / total;
      // The evidence that the file applies to the work (its path match and what that earns)
      // belongs whole to the part that names a file in play; only the words' match is divided.
      const k = c.components;
      given.add(i);
      const share = namesFile !== undefined && c.score > 0 ? Math.min(1, (k.relevance * wordsShare + k.reference + Math.max(0, k.path)) / c.score) : wordsShare;
      found.push({ ...c, layer: c.layer === 'fixed' ? 'global' : c.layer, artifact: s.artifact, sectionOf: c, section: s.section, sectionShare: share, ...(namesFile !== undefined ? { namesFile } : {}) });
    };
    let offered = 0;
    let densest = -1;
    let densestLift = 1;
    // A file in play named by few parts, like a task word, tells them apart (a README.md that
    // every part of a README guide names does not).
    const telling = fileNames.filter((name) => holding((s) => s.lowerText.includes(name)) <= distinctive);
    sections.forEach((s, i) => {
      // A part that names a file in play (a rule citing `virtualmcpserver_controller.go` as the
      // pattern to copy) is the part about the work itself, however the task words it. It is
      // offered whatever its density and does not stand in for the densest part.
      const named = telling.find((name) => s.lowerText.includes(name));
      if (named !== undefined) {
        offer(i, named);
        return;
      }
      // Only a section holding a word few others hold is told apart by the task at all.
      if (!queryTerms.some((term) => s.terms.has(term) && holders.get(term)! <= distinctive)) return;
      // How much denser the task's words are here than in the whole.
      const lift = mass[i]! / total / (s.artifact.body.length / length);
      if (lift >= MIN_LIFT) {
        offer(i);
        offered++;
      } else if (lift > densestLift) {
        densest = i;
        densestLift = lift;
      }
    });
    // Where the task's words spread over the whole file, no part gathers them MIN_LIFT times
    // as densely, yet the file may be the task's best match: its densest part still stands for
    // it, so the best-ranked rule is not reduced to its first lines while weaker ones are given
    // whole. One part only: offering every part denser than the whole let one long file's
    // parts crowd out the shorter rules a task needs (docs/benchmarks.md).
    if (offered === 0 && densest >= 0) offer(densest);
    offerRest();
  }
  if (found.length === 0) return;
  // A part whose heading names the kind of change in play ("Linting" in a Go style guide) is a
  // rule titled for that kind, as the same section imported from an AGENTS.md would be: offered
  // and valued as one (`valuedAsRule`), whether or not the task's words single it out.
  for (const part of found) {
    const kind = part.pathMatch !== undefined ? set.titleKind(part.section!.heading) : undefined;
    if (kind === undefined) {
      delete part.titledForKind;
      continue;
    }
    part.titledForKind = kind;
    part.sectionShare = 1;
    delete part.roomLeft;
  }
  candidates.push(...found);
  candidates.sort(compareCandidates);
}

/**
 * An artifact and its sections are one piece of knowledge: shown in full, the artifact
 * makes its sections redundant, and the tokens they took go to the next best. Its preview
 * or title line stays beside its sections: it says what the whole is and where it is.
 */
export function settleSections(entries: readonly PackEntry[], entryOf: ReadonlyMap<PackEntry, Candidate>, state: PackState): void {
  const entryOfCandidate = new Map<Candidate, PackEntry>();
  for (const e of entries) entryOfCandidate.set(entryOf.get(e)!, e);
  for (let round = 0; round < 4; round++) {
    let changed = false;
    for (const e of entries) {
      const parent = entryOf.get(e)!.sectionOf;
      if (!parent || e.level === 0 || entryOfCandidate.get(parent)?.level !== 3) continue;
      takeOut(e, state);
      e.allowed = [true, false, false, false];
      changed = true;
    }
    if (!changed) break;
    packGreedy(entries, state, state.remaining);
  }
}

/** The artifacts at least one of whose sections is shown. */
export function shownBySections(entries: readonly PackEntry[], entryOf: ReadonlyMap<PackEntry, Candidate>): Set<Candidate> {
  const shown = new Set<Candidate>();
  for (const e of entries) {
    const parent = entryOf.get(e)!.sectionOf;
    if (parent && e.level > 0) shown.add(parent);
  }
  return shown;
}
