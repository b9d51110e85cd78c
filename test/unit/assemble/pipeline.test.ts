/**
 * Each stage of the assembler on its own, against a real sql.js store: what a newcomer
 * changing one stage can run to see that stage still does its job.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, type AdmitContext } from '../../../src/core/assemble/admit';
import { makeBuild } from '../../../src/core/assemble/blocks';
import { ledgerIndex, tokenCounter } from '../../../src/core/assemble/cache';
import { collectCandidates, type CandidateSet } from '../../../src/core/assemble/candidates';
import { compressLeftover } from '../../../src/core/assemble/compressLeftover';
import { fitBudget } from '../../../src/core/assemble/degrade';
import { resolveOptions } from '../../../src/core/assemble/options';
import { packContext } from '../../../src/core/assemble/packing';
import { renderContext } from '../../../src/core/assemble/renderContext';
import { reportResult } from '../../../src/core/assemble/report';
import { activePaths, checkRequest, pathsInText, resolveTask, taskTextOf } from '../../../src/core/assemble/request';
import { UserError } from '../../../src/core/model';
import type { LedgerStore } from '../../../src/core/store';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');

async function ledger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  store.createArtifact({ id: 'rule-sql', type: 'constitution', title: 'Never build SQL by string concatenation', body: 'Use parameters. '.repeat(40) });
  store.createArtifact({ id: 'dec-lock', type: 'decision', title: 'Webhook retries take a row lock', body: 'Retried webhook events lock webhook_event.id before booking, so a retry never books twice.' });
  store.createArtifact({ id: 'auth-note', type: 'learning', scope: 'path', paths: ['src/auth/**'], title: 'Auth tokens rotate hourly', body: 'Session tokens in src/auth rotate every hour.' });
  store.createArtifact({ id: 'old', type: 'decision', status: 'superseded', title: 'Webhook retries are ignored', body: 'We used to ignore retried webhooks.' });
  store.createArtifact({ id: 'unrelated', type: 'learning', title: 'Fonts load from the CDN', body: 'The marketing site loads its fonts from a CDN.' });
  return store;
}

function stages(store: LedgerStore, budget: number, title = 'Webhook retry books twice', paths = ['src/payments/webhook.ts']) {
  const checked = checkRequest(store, { budget, now: NOW });
  const task = resolveTask(store, { title, description: '' });
  const taskText = taskTextOf(task);
  const active = activePaths(store, paths, NOW, taskText);
  const idx = ledgerIndex(store, { fieldWeights: checked.options.fieldWeights, fieldB: checked.options.fieldB, k1: checked.options.k1 });
  const build = makeBuild(store, checked.options, tokenCounter(store, checked.tokenizer), checked.tokenizer, idx);
  const set = collectCandidates({ idx, options: checked.options, task, taskText, active, now: NOW, feedback: store.allFeedback() });
  return { checked, task, taskText, active, idx, build, set };
}

function ids(set: CandidateSet): string[] {
  return set.candidates.map((c) => c.artifact.id);
}

describe('assembler stages', () => {
  test('request: bad input is a user error; paths written in the task join the files in play once', async () => {
    const store = await ledger();
    assert.throws(() => checkRequest(store, { budget: -1 }), UserError);
    assert.throws(() => checkRequest(store, { budget: 10, tokenizer: 'nope' as never }), UserError);
    assert.throws(() => checkRequest(store, { budget: 10, paths: 'src' as never }), UserError);
    assert.deepEqual(pathsInText('Fix `internal/rc/` and .golangci.yml, not https://x.y/z'), ['internal/rc/', '.golangci.yml']);
    const active = activePaths(store, ['src/a.ts', 'src/a.ts'], NOW, 'see src/a.ts and docs/guide.md');
    assert.deepEqual(active.map((a) => a.path), ['src/a.ts', 'docs/guide.md']);
    assert.equal(resolveTask(store, undefined), undefined, 'no active task, none requested');
  });

  test('gating: superseded and path-scoped knowledge of other folders are left out with their reason', async () => {
    const store = await ledger();
    const { idx, checked, active } = stages(store, 2000);
    const ctx: AdmitContext = { options: checked.options, taskId: undefined, gate: { labels: new Set(), foldedText: ' ', paths: active }, active, supersededBy: new Map() };
    const doc = (id: string) => idx.docs.find((d) => d.artifact.id === id)!;
    const old = admit(doc('old'), ctx, []);
    assert.equal(old.admitted ? 'in' : old.excluded.reason, 'superseded');
    const auth = admit(doc('auth-note'), ctx, []);
    assert.ok(auth.admitted && auth.layer === 'global' && auth.unmatchedPath, 'ranked in global with the unmatched-path penalty');
    const onAuth = admit(doc('auth-note'), { ...ctx, active: activePaths(store, ['src/auth/session.ts'], NOW, '') }, []);
    assert.ok(onAuth.admitted && onAuth.layer === 'path' && onAuth.pathMatch !== undefined);
    const strict = admit(doc('auth-note'), { ...ctx, options: resolveOptions({ unmatchedPathArtifacts: 'exclude' }) }, []);
    assert.equal(strict.admitted ? 'in' : strict.excluded.reason, 'path-mismatch');
  });

  test('candidates and scoring: the matching decision ranks first, rules stay, what nothing points to is left out', async () => {
    const store = await ledger();
    const { set } = stages(store, 2000);
    assert.equal(ids(set).filter((id) => id !== 'rule-sql')[0], 'dec-lock');
    assert.ok(ids(set).includes('rule-sql'), 'a rule is a candidate whatever its score');
    assert.ok(!ids(set).includes('unrelated'));
    assert.ok(set.leftOut.some((e) => ('doc' in e ? e.artifact.id : e.id) === 'unrelated'));
    const scores = set.candidates.map((c) => c.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'best first');
  });

  test('packing: at a tight budget the rule is still named, and nothing is packed beyond the budget', async () => {
    const store = await ledger();
    const { build, task, set } = stages(store, 120);
    const packing = packContext({ build, budget: 120, task, candidates: set.candidates, livePlan: undefined });
    const rule = packing.fixedEntries.find((e) => e.key === 'rule-sql')!;
    assert.ok(rule.level >= 1, 'named at least');
    assert.ok(packing.state.remaining >= 0);
  });

  test('compression, rendering and degradation: the whole text fits the budget and says what was packed', async () => {
    const store = await ledger();
    for (const budget of [0, 60, 200, 400, 4000]) {
      const { build, task, taskText, set } = stages(store, budget);
      const packing = packContext({ build, budget, task, candidates: set.candidates, livePlan: undefined });
      const compressed = compressLeftover(build, packing, taskText);
      const fitted = fitBudget(build, packing, compressed);
      assert.ok(fitted.tokensUsed <= budget, `${fitted.tokensUsed} > ${budget}`);
      assert.equal(fitted.text, renderContext(build, packing, compressed, fitted.extras), 'the fitted text is the rendering of the final levels');
      const { result } = reportResult({ build, task, set, packing, compressed, fitted }, performance.now());
      for (const item of result.items) {
        if (item.mode === 'full') assert.ok(fitted.text.includes(store.getArtifact(item.id)!.body.trim().split('\n')[0]!), `${item.id} reported full is in the text`);
      }
      if (budget >= 400) assert.ok(result.items.some((i) => i.id === 'dec-lock' && i.mode === 'full'));
      assert.ok(result.excluded.some((e) => e.id === 'old' && e.reason === 'superseded'));
    }
  });
});
