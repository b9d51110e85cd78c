import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import { DEFAULT_STAGE_PROMPTS, workflowNarrative } from '../../../src/core/assemble/workflow';
import { readConfig, toAssembleOptions } from '../../../src/extension/configModel';
import { SETTINGS } from '../../../src/extension/ids';
import { moveTaskToStage } from '../../../src/core/stages';
import type { LedgerStore } from '../../../src/core/store';
import { cli, contributedSettings, fixedClock, memoryStore, tempDir } from '../helpers';

/** The "Workflow so far" section of a built context. */
function workflowSection(text: string): string {
  const match = /(?:^|\n)## Workflow so far\n\n([\s\S]*?)(?=\n\n## |\n?$)/.exec(text);
  return match ? match[1]! : '';
}

async function plannedTask(): Promise<{ store: LedgerStore; taskId: string }> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  const task = store.createTask({ id: 't1', title: 'Webhook retries book twice', description: 'Retried events create duplicate bookings.' });
  store.setActiveTask(task.id);
  store.createArtifact({
    id: 'plan-1',
    type: 'plan',
    scope: 'task',
    taskId: task.id,
    title: 'Plan: lock on the event id',
    body: 'Take a row lock on webhook_event.id before booking.\n## Steps\n1. Add the lock.\n2. Test a double delivery.',
  });
  store.createArtifact({ id: 'dec-1', type: 'decision', scope: 'task', taskId: task.id, title: 'Use SELECT FOR UPDATE, not an advisory lock', body: 'Advisory locks leak on pool reuse.' });
  store.createArtifact({ id: 'other', type: 'decision', title: 'Unrelated project decision', body: 'Not part of this task.' });
  store.addTaskEvent(task.id, 'commit', { sha: '0123456789abcdef', message: 'Sketch the lock\n\nlong body' });
  store.recordFileActivity('src/payments/webhook.ts', 'edit');
  return { store, taskId: task.id };
}

describe('stage summaries (workflow memory across stages)', () => {
  test('leaving a stage records its deliverable, decisions, artifacts, commits and changed files as one event', async () => {
    const { store, taskId } = await plannedTask();
    const { task, summary } = moveTaskToStage(store, taskId, 'develop');
    assert.equal(task.stage, 'develop');
    assert.ok(summary);
    assert.equal(summary.stage, 'plan');
    assert.equal(summary.to, 'develop');
    assert.equal(summary.deliverable?.id, 'plan-1');
    assert.match(summary.deliverable?.excerpt ?? '', /^Take a row lock on webhook_event\.id/);
    assert.deepEqual(summary.decisions.map((d) => d.id), ['dec-1']);
    assert.deepEqual(summary.artifactsCreated.map((a) => a.id), ['plan-1', 'dec-1']);
    assert.deepEqual(summary.commits, ['01234567 Sketch the lock']);
    assert.deepEqual(summary.filesChanged, ['src/payments/webhook.ts']);
    const events = store.taskEvents(taskId);
    assert.deepEqual(events.slice(-2).map((e) => e.kind), ['stage_summary', 'stage_entered']);
    assert.deepEqual(events.at(-2)?.payload, JSON.parse(JSON.stringify(summary)));
  });

  test("the next stage's context carries the summary as workflow memory; the next summary covers only its own stage", async () => {
    const { store, taskId } = await plannedTask();
    moveTaskToStage(store, taskId, 'develop');
    const result = await assembleContext(store, { budget: 8000, log: false, paths: [] });
    const section = workflowSection(result.text);
    assert.match(section, /^Stage plan \(left \d{4}-\d{2}-\d{2} for develop\)$/m);
    assert.match(section, /^ {2}Deliverable: "Plan: lock on the event id" plan-1: Take a row lock on webhook_event\.id/m);
    assert.match(section, /^ {2}Decisions: "Use SELECT FOR UPDATE, not an advisory lock" dec-1\.$/m);
    assert.match(section, /^ {2}Commits: 01234567 Sketch the lock\.$/m);
    assert.match(section, /^ {2}Files changed: src\/payments\/webhook\.ts\.$/m);
    assert.ok(!section.includes('Unrelated project decision'), section);
    // The plan's own heading is folded into one line: it cannot open a section of the context.
    assert.ok(!/^#/m.test(section), section);
    // Listed once: not again as a "Commits" line of its own.
    assert.equal(section.split('Sketch the lock').length - 1, 1, section);

    store.createArtifact({ id: 'mm-1', type: 'module_memory', scope: 'task', taskId, title: 'webhook.ts keeps the lock for the whole booking', body: 'The lock spans the booking transaction.' });
    const { summary } = moveTaskToStage(store, taskId, 'review');
    assert.equal(summary?.stage, 'develop');
    assert.equal(summary?.deliverable?.id, 'mm-1');
    assert.deepEqual(summary?.artifactsCreated.map((a) => a.id), ['mm-1']);
    assert.deepEqual(summary?.commits, []);
    const review = workflowSection((await assembleContext(store, { budget: 8000, log: false, paths: [] })).text);
    // Newest first.
    assert.ok(review.indexOf('Stage develop') < review.indexOf('Stage plan'), review);
  });

  test("the active task's own knowledge is in its task layer even when it shares no word with the task", async () => {
    const { store, taskId } = await plannedTask();
    // "Use SELECT FOR UPDATE…" has no word in common with "Webhook retries book twice".
    const result = await assembleContext(store, { budget: 8000, log: false, paths: [], options: { includeWorkflow: false } });
    const included = result.items.find((i) => i.id === 'dec-1');
    assert.equal(included?.layer, 'task', JSON.stringify(result.excluded));
    assert.equal(included?.mode, 'full');
    assert.ok((included?.components?.reference ?? 0) > 0, 'explained as named by the task');
    // Another task's knowledge stays out, however well its words match.
    const other = store.createTask({ id: 't2', title: 'Payouts' });
    store.createArtifact({ id: 'theirs', type: 'decision', scope: 'task', taskId: other.id, title: 'Webhook retries book twice', body: 'Webhook retries.' });
    const again = await assembleContext(store, { budget: 8000, log: false, paths: [] });
    assert.equal(again.excluded.find((e) => e.id === 'theirs')?.reason, 'other-task');
    assert.ok(again.items.some((i) => i.id === 'dec-1'));
    assert.equal(taskId, 't1');
  });

  test('moving to the same stage records nothing; an empty stage or an unknown task is a clear error', async () => {
    const { store, taskId } = await plannedTask();
    const before = store.taskEvents(taskId).length;
    assert.equal(moveTaskToStage(store, taskId, 'plan').summary, undefined);
    assert.equal(store.taskEvents(taskId).length, before);
    assert.throws(() => moveTaskToStage(store, taskId, '   '), /A stage needs a name/);
    assert.throws(() => moveTaskToStage(store, 'nope', 'develop'), /nope/);
    assert.equal(store.getTask(taskId)?.stage, 'plan');
  });

  test('many long summaries stay within the budget: the narrative shrinks, then drops, like any other layer', async () => {
    const { store, taskId } = await plannedTask();
    const stages = ['develop', 'review', 'test', 'plan', 'develop', 'review', 'test', 'release'];
    for (const [i, stage] of stages.entries()) {
      store.createArtifact({ type: 'plan', scope: 'task', taskId, title: `Plan ${i} ${'日本語🚀'.repeat(20)}`, body: `Step ${'detail '.repeat(2000)}` });
      for (let f = 0; f < 40; f++) store.recordFileActivity(`src/module${i}/file${f}.ts`, 'save');
      moveTaskToStage(store, taskId, stage);
    }
    for (const budget of [8000, 2000, 600, 150]) {
      const result = await assembleContext(store, { budget, log: false, paths: [] });
      assert.ok(result.tokensUsed <= budget, `${result.tokensUsed} > ${budget}`);
      assert.ok(result.layers.workflow.used <= Math.floor(budget * 0.08) + 1, `${budget}: ${JSON.stringify(result.layers.workflow)}`);
    }
    const full = workflowSection((await assembleContext(store, { budget: 8000, log: false, paths: [] })).text);
    assert.match(full, /^Stage test \(left .* for release\)$/m);
    assert.match(full, /earlier stage summaries left out/);
    const tight = workflowNarrative(store.taskEvents(taskId), 1);
    const roomy = workflowNarrative(store.taskEvents(taskId), 8);
    assert.ok(tight.length < roomy.length / 2, `${tight.length} vs ${roomy.length}`);
  });

  test('malformed summary payloads (hand-edited or imported) render without throwing', () => {
    const at = '2026-02-02T00:00:00.000Z';
    const text = workflowNarrative(
      [
        { id: 1, taskId: 't', kind: 'stage_summary', at, payload: { stage: 42, deliverable: 'x', decisions: 'nope', commits: [null, 7, 'abc'], filesChanged: [{}] } },
        { id: 2, taskId: 't', kind: 'stage_summary', at, payload: {} },
      ],
      8,
    );
    assert.match(text, /Stage 42 \(left 2026-02-02\)\n {2}Commits: 7; abc\./);
    assert.match(text, /Stage a stage \(left 2026-02-02\)\n {2}Nothing recorded\./);
  });
});

describe('stage knowledge prompts', () => {
  const instructions = (text: string): string => /(?:^|\n)## Recording what you learn\n\n([^\n]*)/.exec(text)?.[1] ?? '';

  test('by default plan asks for plans and ADRs, develop for patterns and module memories, review for observed patterns and quality decisions, test for nothing', async () => {
    const { store, taskId } = await plannedTask();
    const at = async (stage: string) => instructions((await assembleContext(store, { budget: 8000, log: false, paths: [], task: { id: taskId, stage } })).text);
    assert.match(await at('plan'), /^Stage plan\. Record the plan \(type plan\) and each choice that shapes the architecture as an ADR \(adr\)/);
    assert.match(await at('develop'), /patterns you followed or set \(pattern\) and how each module works and its traps \(module_memory/);
    assert.match(await at('review'), /patterns you observed \(pattern\) and the quality decisions the review took/);
    assert.equal(await at('test'), '');
    assert.match(await at('Deploy'), /^Stage Deploy\. Record decisions \(decision\)/);
  });

  test('prompts are editable: a custom one replaces the default, an empty one removes the section, a bad value is an error', async () => {
    const { store, taskId } = await plannedTask();
    const build = (stagePrompts: Record<string, string>, stage = 'plan') =>
      assembleContext(store, { budget: 8000, log: false, paths: [], task: { id: taskId, stage }, options: { stagePrompts } });
    assert.match(instructions((await build({ Plan: 'Write down the API quirks <b>&</b> 日本語.' })).text), /^Stage plan\. Write down the API quirks <b>&<\/b> 日本語\. One fact per artifact/);
    assert.equal(instructions((await build({ plan: '' })).text), '');
    assert.match(instructions((await build({ test: 'Record why tests failed (learning).' }, 'test')).text), /Record why tests failed/);
    await assert.rejects(build({ plan: 42 as unknown as string }), /Option "stagePrompts" must map stage names to text/);
  });

  test('contextLedger.stages: its default is the core default, edits reach the assembler, broken entries are skipped', () => {
    const declared = contributedSettings<{ default?: unknown }>()[`contextLedger.${SETTINGS.stages}`]?.default as Array<{ name: string; prompt: string }>;
    assert.deepEqual(Object.fromEntries(declared.map((s) => [s.name, s.prompt])), DEFAULT_STAGE_PROMPTS);
    const optionsFor = (value: unknown) => toAssembleOptions(readConfig((name) => (name === SETTINGS.stages ? value : undefined)));
    assert.deepEqual(optionsFor(undefined).stagePrompts, DEFAULT_STAGE_PROMPTS);
    assert.deepEqual(optionsFor([{ name: ' spike ', prompt: 'Record findings (learning).' }, { name: 'spike', prompt: 'dup' }, { prompt: 'no name' }, 7, { name: 'ship' }]).stagePrompts, {
      spike: 'Record findings (learning).',
      ship: '',
    });
    assert.deepEqual(optionsFor('garbage').stagePrompts, DEFAULT_STAGE_PROMPTS);
    assert.deepEqual(readConfig((name) => (name === SETTINGS.stages ? [{ name: 'a' }, { name: 'b' }] : undefined)).stages.map((s) => s.name), ['a', 'b']);
  });
});

describe('context-ledger task stage', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  test('records the summary of the stage it leaves, and build shows it', () => {
    const root = tempDir('ledger-stage-cli-');
    dirs.push(root);
    assert.equal(cli(['init'], { cwd: root }).code, 0);
    assert.equal(cli(['task', 'add', '--id', 't1', '--title', 'Webhook retries', '--activate'], { cwd: root }).code, 0);
    assert.equal(cli(['add', '--type', 'plan', '--scope', 'task', '--task', 't1', '--title', 'Plan the lock', '--body', 'Lock the event row first.'], { cwd: root }).code, 0);
    const moved = cli(['task', 'stage', 't1', 'develop'], { cwd: root });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /now in stage develop\. Recorded what stage plan produced: 1 artifact\(s\), 0 decision\(s\), 0 commit\(s\), 0 file\(s\) changed, deliverable /);
    assert.match(cli(['task', 'events', 't1'], { cwd: root }).stdout, /stage_summary .*"deliverable"/);
    const built = cli(['build', '--no-log'], { cwd: root });
    assert.match(built.stdout, /## Workflow so far[\s\S]*Deliverable: "Plan the lock" .*: Lock the event row first\./);
    assert.match(built.stdout, /## Recording what you learn/);
    // Layers 4 and 5 can be left out, by name or by number (the design's L4 / L5).
    for (const flags of [['--no-workflow', '--no-instructions'], ['--no-l4', '--no-l5']]) {
      const without = cli(['build', '--no-log', ...flags], { cwd: root });
      assert.equal(without.code, 0, without.stderr);
      assert.doesNotMatch(without.stdout, /## Workflow so far|## Recording what you learn/, flags.join(' '));
      assert.match(without.stdout, /Plan the lock/, 'the plan itself is still in the context');
    }
  });
});
