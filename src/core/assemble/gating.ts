import type { Conditions } from '../model';
import { type ActivePath, type CompiledGlob, compileGlob, matchGlob } from './paths';
import { foldForPhrase } from './text';

export interface GateContext {
  labels: ReadonlySet<string>;
  /** The task text folded by foldForPhrase, for keyword look-ups. */
  foldedText: string;
  paths: readonly ActivePath[];
}

export interface GateResult {
  pass: boolean;
  /** Which kind failed, for the explain output. */
  detail?: string;
  invalidGlobs: Array<{ glob: string; error: string }>;
}

const globMemo = new Map<string, CompiledGlob | { error: string }>();

export function cachedGlob(glob: string): CompiledGlob | { error: string } {
  let compiled = globMemo.get(glob);
  if (!compiled) {
    compiled = compileGlob(glob);
    if (globMemo.size > 50_000) globMemo.clear();
    globMemo.set(glob, compiled);
  }
  return compiled;
}

function keywordPresent(keyword: string, foldedText: string): boolean {
  const folded = foldForPhrase(keyword);
  return folded.trim() !== '' && foldedText.includes(folded);
}

/**
 * `conditions` gate an artifact: every non-empty kind must be satisfied (AND), and a kind
 * is satisfied by any one of its entries (OR). Labels compare case-insensitively, keywords
 * as whole words or phrases of the task text, paths as globs over the active paths.
 */
export function passesGate(conditions: Conditions, context: GateContext): GateResult {
  const invalidGlobs: GateResult['invalidGlobs'] = [];
  const labels = conditions.labels.filter((l) => l.trim() !== '');
  if (labels.length > 0 && !labels.some((l) => context.labels.has(l.trim().toLowerCase()))) {
    return { pass: false, detail: `needs label ${labels.join(' or ')}`, invalidGlobs };
  }
  const keywords = conditions.keywords.filter((k) => k.trim() !== '');
  if (keywords.length > 0 && !keywords.some((k) => keywordPresent(k, context.foldedText))) {
    return { pass: false, detail: `needs keyword ${keywords.join(' or ')} in the task`, invalidGlobs };
  }
  const globs = conditions.paths.filter((g) => g.trim() !== '');
  if (globs.length > 0) {
    let matched = false;
    for (const raw of globs) {
      const glob = cachedGlob(raw);
      if ('error' in glob) {
        invalidGlobs.push({ glob: raw, error: glob.error });
        continue;
      }
      if (context.paths.some((p) => matchGlob(glob, p))) {
        matched = true;
        break;
      }
    }
    if (!matched) return { pass: false, detail: `needs an active path matching ${globs.join(' or ')}`, invalidGlobs };
  }
  return { pass: true, invalidGlobs };
}
