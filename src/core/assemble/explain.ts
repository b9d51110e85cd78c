import { describeStale } from '../git';
import { oneLine } from '../model';
import type { LiveReport } from '../sources/report';
import type { AssembleResult, ScoreComponents } from './types';

/** The JSON of `context-ledger build --format json` (cli-contract.md), with the explain data alongside. */
export function toContractJson(result: AssembleResult): object {
  return {
    budget: result.budget,
    tokenizer: result.tokenizer,
    tokensUsed: result.tokensUsed,
    items: result.items.map((i) => ({
      id: i.id,
      mode: i.mode,
      layer: i.layer,
      tokens: i.tokens,
      score: i.score,
      title: i.title,
      type: i.type,
      reason: i.reason,
      components: i.components,
      ...(i.redacted ? { redacted: true } : {}),
      ...(i.unreviewed ? { unreviewed: true, source: i.source } : {}),
      ...(i.stale ? { stale: i.stale } : {}),
    })),
    excluded: result.excluded.map((e) => ({
      id: e.id,
      reason: e.reason,
      ...(e.detail ? { detail: e.detail } : {}),
      ...(e.score !== undefined ? { score: e.score } : {}),
      ...(e.stale ? { stale: e.stale } : {}),
    })),
    text: result.text,
    layers: result.layers,
    redactions: result.redactions,
    candidates: result.candidates,
    durationMs: result.durationMs,
    outputHash: result.outputHash,
    ...(result.invalidGlobs.length ? { invalidGlobs: result.invalidGlobs } : {}),
    ...(result.live ? { sources: result.live } : {}),
    ...(result.logId !== undefined ? { logId: result.logId } : {}),
  };
}

function fmt(n: number): string {
  return n.toFixed(2);
}

function components(c: ScoreComponents): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(c) as Array<[keyof ScoreComponents, number]>) {
    if (value !== 0) parts.push(`${name} ${value > 0 ? '+' : ''}${fmt(value)}`);
  }
  return parts.length ? parts.join(', ') : 'no signal';
}

/** Excluded artifacts shown per reason before the rest are only counted. */
const EXCLUDED_SHOWN = 15;

/** Human-readable account of a build: the budget by layer, every item with its score and why, and what was left out. */
export function renderExplain(result: AssembleResult): string {
  const lines: string[] = [];
  lines.push(`Context: ${result.tokensUsed} of ${result.budget} tokens (${result.tokenizer}), ${result.items.length} items from ${result.candidates} candidates, ${fmt(result.durationMs)} ms.`);
  if (result.task) lines.push(`Task: ${result.task.title || '(untitled)'}${result.task.id ? ` [${result.task.id}]` : ''}${result.task.stage ? `, stage ${result.task.stage}` : ''}.`);
  else lines.push('Task: none (ranked by type, recency and paths only).');
  lines.push('');
  lines.push('Budget by layer (used / share):');
  for (const [layer, { budget, used }] of Object.entries(result.layers)) {
    if (budget === 0 && used === 0) continue;
    // Past its share is not past the budget: say where the extra came from.
    const over = used - budget;
    const why = over <= 0 ? '' : layer === 'fixed' ? `  (+${over}: rules, pins and the task brief are always in)` : `  (+${over}: back-filled from shares other layers left unused)`;
    lines.push(`  ${layer.padEnd(12)} ${String(used).padStart(6)} / ${budget}${why}`);
  }
  if (result.redactions.count > 0) {
    const kinds = Object.entries(result.redactions.kinds).map(([k, n]) => `${k} x${n}`).join(', ');
    lines.push('', `Secrets masked: ${result.redactions.count} (${kinds}).`);
  }
  const shownUnreviewed = result.items.filter((i) => i.unreviewed).length;
  const held = result.excluded.filter((e) => e.reason === 'unreviewed').length;
  if (shownUnreviewed + held > 0) {
    const parts = [shownUnreviewed > 0 ? `${shownUnreviewed} included under the "unreviewed" marker` : '', held > 0 ? `${held} held back until approved` : ''];
    lines.push('', `Unreviewed agent-written knowledge: ${parts.filter(Boolean).join(', ')} (decide with \`context-ledger review approve|reject <id>\`).`);
  }
  const stale = result.items.filter((i) => i.stale).length + result.excluded.filter((e) => e.stale).length;
  if (stale > 0) {
    lines.push('', `Possibly stale: ${stale} module memor${stale === 1 ? 'y' : 'ies'} whose paths changed in commits after ${stale === 1 ? 'its' : 'their'} last update (check and update ${stale === 1 ? 'it' : 'them'}).`);
  }
  lines.push('', 'Included:');
  if (result.items.length === 0) lines.push('  (nothing)');
  for (const item of result.items) {
    lines.push(`  [${item.mode}]${item.unreviewed ? ` UNREVIEWED (${item.source})` : ''}${item.stale ? ' POSSIBLY STALE' : ''} ${oneLine(item.title)} (${item.type}, ${item.layer}) ${item.id}`);
    lines.push(`      ${item.tokens} tokens, score ${fmt(item.score)} = ${components(item.components)}`);
    lines.push(`      why: ${item.reason}`);
    if (item.stale) lines.push(`      ${oneLine(describeStale(item.stale))}`);
  }
  const byReason = new Map<string, typeof result.excluded>();
  for (const e of result.excluded) {
    const list = byReason.get(e.reason) ?? [];
    list.push(e);
    byReason.set(e.reason, list);
  }
  if (byReason.size > 0) lines.push('', 'Left out:');
  for (const [reason, list] of [...byReason.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`  ${reason} (${list.length}):`);
    const sorted = [...list].sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || (a.id < b.id ? -1 : 1));
    for (const e of sorted.slice(0, EXCLUDED_SHOWN)) {
      const score = e.score !== undefined ? `, score ${fmt(e.score)}${e.components ? ` = ${components(e.components)}` : ''}` : '';
      lines.push(`    ${e.title} (${e.type}) ${e.id}${score}${e.detail ? ` — ${e.detail}` : ''}${e.stale ? `; ${oneLine(describeStale(e.stale))}` : ''}`);
    }
    if (sorted.length > EXCLUDED_SHOWN) lines.push(`    … and ${sorted.length - EXCLUDED_SHOWN} more`);
  }
  if (result.live) renderLive(result.live, lines);
  if (result.invalidGlobs.length > 0) {
    lines.push('', 'Invalid globs (ignored):');
    for (const g of result.invalidGlobs) lines.push(`  ${g.id}: ${JSON.stringify(g.glob)} — ${g.error}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Live sources: the profile that weighed them, each shown item with its compression, and what stayed out. */
function renderLive(live: LiveReport, lines: string[]): void {
  lines.push('', `Live sources (profile ${live.profile}: ${live.profileReason}; order ${live.priorities.join(', ')}):`);
  if (live.items.length === 0) lines.push('  (nothing included)');
  for (const item of live.items) {
    const compression = item.compression ? `, ${item.compression.level} compression to ${Math.round(item.compression.ratio * 100)}% of ${item.compression.tokensBefore} tokens` : '';
    lines.push(`  [${item.mode}] ${item.title} (${item.source}) ${item.key}`);
    lines.push(`      ${item.tokens} tokens, relevance ${fmt(item.relevance)}${compression}`);
    lines.push(`      why: ${item.reason}`);
  }
  if (live.excluded.length > 0) {
    lines.push('  Left out:');
    const sorted = [...live.excluded].sort((a, b) => b.relevance - a.relevance || (a.key < b.key ? -1 : 1));
    for (const e of sorted.slice(0, EXCLUDED_SHOWN)) lines.push(`    ${e.reason}: ${e.title} (${e.source}) — ${e.detail}`);
    if (sorted.length > EXCLUDED_SHOWN) lines.push(`    … and ${sorted.length - EXCLUDED_SHOWN} more`);
  }
}
