import type { LedgerStore } from '../store';
import { makeBuild } from './blocks';
import { carryIndexOverOwnWrites, ledgerIndex, tokenCounter } from './cache';
import { collectCandidates, keepOneTitledPerFile } from './candidates';
import { addSectionCandidates } from './sectionCandidates';
import { detectProfile, resolveProfileRules } from '../sources/profiles';
import { compressLeftover } from './compressLeftover';
import { fitBudget } from './degrade';
import { packContext } from './packing';
import { logBuild, reportResult } from './report';
import { activePaths, checkRequest, resolveTask, taskTextOf } from './request';
import type { AssembleRequest, AssembleResult } from './types';

export { pathsInText } from './request';

/**
 * Builds the context for a task within a token budget (DESIGN.md section 4), as a pipeline:
 *
 * 1. request: the request checked, the task resolved, the files in play gathered;
 * 2. candidates (gating, then scoring): every artifact admitted or left out with a reason,
 *    the admitted scored against the task and the paths (candidates.ts, gating.ts, score.ts);
 * 3. sections: the parts of long rule files where the task's words gather, as candidates
 *    of their own (sectionCandidates.ts);
 * 4. packing: brief, rules and pins, workflow memory, instructions, live sources, then the
 *    task / path / global layers with roll-over and back-fill, duplicates out (packing.ts);
 * 5. compression of what only fit as a preview, with what the packing left (compressLeftover.ts);
 * 6. rendering, final count and degradation until the whole text fits (degrade.ts, renderContext.ts);
 * 7. report and log: items, layers, redactions, exclusions (report.ts).
 */
export async function assembleContext(store: LedgerStore, request: AssembleRequest): Promise<AssembleResult> {
  const started = performance.now();
  const { budget, tokenizer, options, now, requestedPaths } = checkRequest(store, request);
  const counter = tokenCounter(store, tokenizer);
  // Live sources pull in the Markdown lexer and the compressors: loaded only when asked for.
  const liveModule = request.sources === undefined ? undefined : await import('../sources/live.js');

  // Everything below is synchronous, so no other write can slip in between reading and logging.
  const generationBefore = store.generation;
  const task = resolveTask(store, request.task);
  const taskText = taskTextOf(task);
  const active = activePaths(store, requestedPaths, now, taskText);
  const idx = ledgerIndex(store, { fieldWeights: options.fieldWeights, fieldB: options.fieldB, k1: options.k1 });
  const build = makeBuild(store, options, counter, tokenizer, idx);

  // The task's profile matters to the ledger's own knowledge only for research findings: asked once, when one is scored.
  let researchTask: boolean | undefined;
  const isResearchTask = (): boolean =>
    (researchTask ??= detectProfile(task, resolveProfileRules(request.sources?.profileRules), request.sources?.profile).profile === 'research');
  const set = collectCandidates({ idx, options, task, taskText, active, now, feedback: store.allFeedback(), isResearchTask, leaveOut: request.leaveOut });
  addSectionCandidates(set, task, () => idx.index, options, active, budget);
  keepOneTitledPerFile(set);
  const livePlan = request.sources === undefined || !liveModule ? undefined : new liveModule.LivePlan(request.sources, task, counter, options);
  const packing = packContext({ build, budget, task, candidates: set.candidates, livePlan });
  const compressed = compressLeftover(build, packing, `${taskText}\n${task?.labels.join(' ') ?? ''}`);
  const fitted = fitBudget(build, packing, compressed);
  const { result, liveItems } = reportResult({ build, task, set, packing, compressed, fitted }, started);

  if (request.log !== false) {
    result.logId = logBuild(store, result, task?.id, liveItems, request.trigger);
    store.recordInjected(result.items.map((i) => i.id));
    carryIndexOverOwnWrites(store, generationBefore);
  }
  return result;
}
