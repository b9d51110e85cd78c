/**
 * Sections as units of retrieval: a long rule file is offered by the sections where the
 * task's words gather, each whole and addressable as `ledger://artifact/<id>#<section>`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext } from '../../../src/core/assemble';
import { type AgentToolEnv, findAgentTool } from '../../../src/core/agentTools';
import { splitFrontMatter } from '../../../src/core/formats/common';
import { findSection, parseSectionRef, splitSections } from '../../../src/core/sections';
import type { LedgerStore } from '../../../src/core/store';
import { runForModel } from '../../../src/extension/agent/lmToolModel';
import { cli, fixedClock, memoryStore, ROOT, tempDir } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
// dotnet/aspire's 21,000-character Copilot instructions for XML documentation (fixtures/real/SOURCES.md).
const XMLDOC = splitFrontMatter(fs.readFileSync(path.join(ROOT, 'test/unit/fixtures/real/aspire/xmldoc.instructions.md'), 'utf8')).body;
const INTERNAL_TASK = {
  title: 'Trim the XML docs of internal helper classes',
  description: 'Internal classes and internal methods carry long remarks and examples; cut them to the brief summary internal APIs need.',
};
const CS_FILE = ['src/Aspire.Hosting/Dcp/DcpExecutor.cs'];

/** The sections an item shows because the task points to them (not for room left): their slugs, from its reason. */
function matchedSlugs(item: { reason?: string } | undefined): string[] {
  return [...(item?.reason ?? '').matchAll(/section "[^"]*" \(\d+% of its match[^)]*\) at ledger:\/\/artifact\/[^#\s]+#([\w-]+)/g)].map((m) => m[1]!);
}

async function aspireLedger(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  store.createArtifact({ id: 'copilot-xmldoc', type: 'convention', scope: 'path', paths: ['src/**/*.cs'], title: 'XML Documentation Standards for Aspire', body: XMLDOC });
  // Short rules that compete for the same budget.
  for (let i = 0; i < 6; i++) {
    store.createArtifact({ id: `rule-${i}`, type: 'convention', title: `Formatting rule ${i}`, body: `Run dotnet format before each commit; rule ${i} covers ${'whitespace and braces '.repeat(10)}.` });
  }
  return store;
}

describe('splitting a body into sections', () => {
  test('splits at the shallowest heading level that repeats; the single # title is not a split point', () => {
    const sections = splitSections('# Guide\n\nWhat this is.\n\n## Setup\n\nInstall it.\n\n### Linux\n\napt-get.\n\n## Usage\n\nRun it.\n');
    assert.deepEqual(
      sections.map((s) => [s.slug, s.heading]),
      [
        ['intro', ''],
        ['setup', 'Setup'],
        ['usage', 'Usage'],
      ],
    );
    assert.equal(sections[1]!.text, 'Install it.\n\n### Linux\n\napt-get.', 'the subsection stays inside its section; the heading line is the title');
  });

  test('a body with no repeated heading level is one unit: empty, plain, one heading', () => {
    assert.deepEqual(splitSections(''), []);
    assert.deepEqual(splitSections('Just prose, no headings at all.'), []);
    assert.deepEqual(splitSections('# One\n\nText.\n\n### Deep\n\nMore.'), []);
  });

  test('headings in fenced code are not headings; repeated and non-ASCII headings get distinct anchors', () => {
    const body = '## Build\n\n```sh\n## not a heading\n```\n\n## Build\n\nAgain.\n\n## Déploiement\n\nFR.\n\n## 日本語\n\nJA.\n\n## 中文\n\nZH.';
    assert.deepEqual(
      splitSections(body).map((s) => s.slug),
      ['build', 'build-2', 'deploiement', 'section', 'section-2'],
    );
    assert.match(findSection(body, 'build')!.text, /## not a heading/);
  });

  test('two # parts are the split level, their ## parts inside them; a section with no text of its own is left out', () => {
    const parts = splitSections('# Part one\n\n## A\n\na.\n\n## B\n\nb.\n\n# Part two\n\n## C\n\nc.\n');
    assert.deepEqual(
      parts.map((s) => s.heading),
      ['Part one', 'Part two'],
    );
    assert.match(parts[0]!.text, /## A[\s\S]*## B/);
    assert.deepEqual(
      splitSections('## A\n\na.\n\n## Empty\n\n## B\n\nb.').map((s) => s.slug),
      ['a', 'b'],
    );
  });

  test('deeply nested and huge bodies split in one pass', () => {
    const nested = Array.from({ length: 6 }, (_, i) => `${'#'.repeat(i + 1)} Level ${i + 1}\n\ntext ${i}\n`).join('\n');
    assert.deepEqual(splitSections(nested), [], 'no level repeats');
    const huge = Array.from({ length: 2000 }, (_, i) => `## Part ${i}\n\n${'word '.repeat(100)}`).join('\n\n');
    const started = performance.now();
    assert.equal(splitSections(huge).length, 2000);
    assert.ok(performance.now() - started < 2000);
  });

  test('a reference names a section after its first #; an empty section is the whole artifact', () => {
    assert.deepEqual(parseSectionRef('copilot-xmldoc#validation'), { id: 'copilot-xmldoc', section: 'validation' });
    assert.deepEqual(parseSectionRef('copilot-xmldoc'), { id: 'copilot-xmldoc' });
    assert.deepEqual(parseSectionRef('copilot-xmldoc#'), { id: 'copilot-xmldoc' });
  });
});

describe('building context by sections', () => {
  test("at a tight budget the section the task is about comes whole, beside the file's preview, and is reported as a cut", async () => {
    const store = await aspireLedger();
    const result = await assembleContext(store, { budget: 2000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    assert.ok(result.tokensUsed <= 2000);
    const item = result.items.find((i) => i.id === 'copilot-xmldoc');
    assert.ok(item, result.items.map((i) => i.id).join(' '));
    assert.equal(item.mode, 'preview', 'a section is never reported as the whole');
    assert.ok(item.sections?.some((s) => s.slug === 'documentation-for-internal-apis'), JSON.stringify(item.sections));
    assert.equal(result.items.filter((i) => i.id === 'copilot-xmldoc').length, 1, 'one item per artifact');
    const section = findSection(XMLDOC, 'documentation-for-internal-apis')!;
    const firstLines = section.text.split('\n').slice(0, 6).join('\n');
    assert.ok(result.text.includes(firstLines), 'the section is in the text');
    // The section's own URN is under its heading: the artifact's id before the '#' names the rest.
    assert.match(result.text, /### XML Documentation Standards for Aspire › Documentation for Internal APIs · convention\nledger:\/\/artifact\/copilot-xmldoc#documentation-for-internal-apis\n/);
    assert.match(item.reason, /section "Documentation for Internal APIs"/);
    // Without sections the whole file would not fit: before this stage it arrived as its first lines only.
    assert.ok(!result.text.includes(findSection(XMLDOC, 'templates-by-construct-type')!.text.slice(0, 200)), 'sections the task is not about stay out');
  });

  test('when the whole file fits it is given whole, with no section repeated beside it', async () => {
    const store = await aspireLedger();
    const result = await assembleContext(store, { budget: 20_000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    const item = result.items.find((i) => i.id === 'copilot-xmldoc')!;
    assert.equal(item.mode, 'full');
    assert.equal(item.sections, undefined);
    assert.doesNotMatch(result.text, /copilot-xmldoc#/);
  });

  test('a task whose words are spread evenly over the file gets its preview, not arbitrary sections', async () => {
    const store = await aspireLedger();
    const result = await assembleContext(store, { budget: 2000, now: NOW, task: { title: 'Aspire', description: '' }, paths: CS_FILE, log: false });
    const item = result.items.find((i) => i.id === 'copilot-xmldoc');
    assert.deepEqual(matchedSlugs(item), [], 'no part is offered as what the task is about');
    assert.ok(result.tokensUsed <= 2000);
  });

  test('the parts of a rule in scope the task does not single out fill room nothing else can use, and explain says so', async () => {
    // dotnet/aspire at 8,000 tokens (realbench): the XML-doc rule is loaded whole for a .cs file,
    // its "General Principles" graded for the task; only the part the task's words point to was
    // offered, the whole did not fit, and 1,600 tokens stayed unused.
    const store = await aspireLedger();
    const result = await assembleContext(store, { budget: 3000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    assert.ok(result.tokensUsed <= 3000);
    const item = result.items.find((i) => i.id === 'copilot-xmldoc')!;
    assert.ok(matchedSlugs(item).includes('documentation-for-internal-apis'), item.reason);
    assert.match(item.reason ?? '', /section "General Principles" \(a part of a rule in scope, given room nothing else could use\)/);
    assert.ok(result.text.includes(findSection(XMLDOC, 'general-principles')!.text.split('\n').slice(0, 4).join('\n')), 'the part is in the text whole');
    // With less room, the part the task points to comes before any part offered for the room.
    const tight = await assembleContext(store, { budget: 2000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    assert.ok(matchedSlugs(tight.items.find((i) => i.id === 'copilot-xmldoc')).includes('documentation-for-internal-apis'));
    // Out of scope (no file it applies to in play), its parts are not offered for the room.
    const elsewhere = await assembleContext(store, { budget: 3000, now: NOW, task: INTERNAL_TASK, paths: ['docs/README.md'], log: false });
    assert.doesNotMatch(elsewhere.text, /given room nothing else could use/);
    assert.doesNotMatch(JSON.stringify(elsewhere.items), /given room nothing else could use/);
  });

  test("where the task's words spread over a long rule, its densest part still stands for it, and only that part", async () => {
    // Eight parts of equal length. The task's words are each in several parts; "jitter", in
    // two, is the only one that tells parts apart. No part holds the match twice as densely as
    // the whole, so before, the best-matching rule arrived as its first lines only while the
    // shorter rules were given whole.
    const words: string[][] = [['worker', 'jitter'], ['worker', 'timeout'], ['worker', 'timeout', 'limit'], ['worker', 'timeout', 'limit'], ['worker', 'timeout', 'limit'], ['timeout', 'limit'], ['limit'], ['jitter']];
    const filler = 'Keep each handler small and readable, and name things for what they hold. ';
    const body = words.map((w, i) => `## Part ${i + 1}\n\n${filler.repeat(4)}This part covers the ${w.join(' and the ')}.\n\n${filler.repeat(4)}`).join('\n');
    assert.ok(body.length >= 4000);
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'queue-rules', type: 'convention', scope: 'path', paths: ['src/**/*.ts'], title: 'Queue rules', body });
    for (let i = 0; i < 6; i++) store.createArtifact({ id: `rule-${i}`, type: 'convention', title: `Formatting rule ${i}`, body: `Run the formatter before each commit; rule ${i} covers ${'whitespace and braces '.repeat(10)}.` });
    const task = { title: 'Add jitter to the worker timeout limit', description: '' };
    const result = await assembleContext(store, { budget: 1000, now: NOW, task, paths: ['src/queue/worker.ts'], log: false });
    const item = result.items.find((i) => i.id === 'queue-rules')!;
    assert.equal(item.mode, 'preview', 'the whole rule does not fit');
    assert.deepEqual(matchedSlugs(item), ['part-1'], JSON.stringify(item));
    assert.ok(result.text.includes('This part covers the worker and the jitter.'), 'the densest part is in the text whole');
    // The other part with the telling word is thinner: not offered as the task's match (other parts only fill room left).
    assert.ok(result.tokensUsed <= 1000);
  });

  test('a part that names a file in play is offered though the task words it otherwise, and explain says why', async () => {
    // toolhive's operator rules cite files as the pattern to copy; the part citing the
    // controller in play is the part about the work, though "retry" is in most parts.
    const filler = 'Keep each handler small and readable, and name things for what they hold. ';
    const parts = [
      'Retry with backoff and jitter; the backoff doubles on each attempt.',
      'Retry budgets are shared across workers in `shared_retry.go`.',
      'Retry only idempotent calls; `shared_retry.go` checks.',
      'Retry counts are logged by `shared_retry.go`.',
      'Reconcile twice and assert no write happened: see `worker_pool_controller.go`, the retry loop to copy.',
      'Name queues for what they carry.',
      'Close channels where they are made.',
      'Prefer table tests.',
    ];
    const body = parts.map((text, i) => `## Part ${i + 1}\n\n${filler.repeat(4)}${text}\n\n${filler.repeat(4)}`).join('\n');
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'operator-rules', type: 'convention', scope: 'path', paths: ['cmd/operator/**'], title: 'Operator rules', body });
    const task = { title: 'Add jitter to the retry backoff', description: '' };
    const shown = async (file: string): Promise<{ slugs: string[]; why: string }> => {
      const result = await assembleContext(store, { budget: 1000, now: NOW, task, paths: [`cmd/operator/controllers/${file}`], log: false });
      const item = result.items.find((i) => i.id === 'operator-rules')!;
      assert.equal(item.mode, 'preview', 'the whole rule does not fit');
      return { slugs: matchedSlugs(item), why: item.reason ?? '' };
    };
    const inPlay = await shown('worker_pool_controller.go');
    assert.deepEqual(inPlay.slugs.sort(), ['part-1', 'part-5'], inPlay.why);
    assert.match(inPlay.why, /section "Part 5" \(\d+% of its match; names worker_pool_controller\.go, in play\)/);
    const other = await shown('queue_controller.go');
    assert.deepEqual(other.slugs, ['part-1'], other.why);
    // A file most parts name tells none of them apart, as a word in most parts does not.
    const common = await shown('shared_retry.go');
    assert.deepEqual(common.slugs, ['part-1'], common.why);
  });

  test('a pinned rule longer than the fixed share is named, and the section the task is about comes whole under it', async () => {
    // Cursor's alwaysApply and a user's pin are always in; an 11,000-character one (growthbook's
    // permissions rule, bench/devset) used to arrive as its first lines at every budget under 20k.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'cursor-xmldoc', type: 'convention', pinned: true, title: 'XML Documentation Standards for Aspire', body: XMLDOC });
    for (let i = 0; i < 6; i++) {
      store.createArtifact({ id: `rule-${i}`, type: 'convention', title: `Formatting rule ${i}`, body: `Run dotnet format before each commit; rule ${i} covers ${'whitespace and braces '.repeat(10)}.` });
    }
    const result = await assembleContext(store, { budget: 2000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    assert.ok(result.tokensUsed <= 2000);
    const item = result.items.find((i) => i.id === 'cursor-xmldoc')!;
    assert.equal(item.mode, 'preview', 'the pin is named, its whole text does not fit');
    assert.ok(item.sections?.some((s) => s.slug === 'documentation-for-internal-apis'), JSON.stringify(item));
    const section = findSection(XMLDOC, 'documentation-for-internal-apis')!;
    assert.ok(result.text.includes(section.text.split('\n').slice(0, 6).join('\n')), 'the section is in the text');
    // Under the pin, beside its preview, not in another part of the document.
    const pinned = result.text.slice(result.text.indexOf('## Pinned'), result.text.indexOf('\n## ', result.text.indexOf('## Pinned') + 1) >>> 0);
    assert.match(pinned, /### XML Documentation Standards for Aspire › Documentation for Internal APIs/);
    assert.ok(!result.text.includes(findSection(XMLDOC, 'templates-by-construct-type')!.text.slice(0, 200)), 'sections the task is not about stay out');

    const roomy = await assembleContext(store, { budget: 20_000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    const whole = roomy.items.find((i) => i.id === 'cursor-xmldoc')!;
    assert.equal(whole.mode, 'full', 'with room the pin is whole');
    assert.doesNotMatch(roomy.text, /cursor-xmldoc#/, 'and no section of it is said twice');
  });

  test('a decision is read whole: its sections are never offered alone', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'adr-0007', type: 'decision', title: 'ADR-0007: XML documentation', body: XMLDOC });
    const result = await assembleContext(store, { budget: 1500, now: NOW, task: INTERNAL_TASK, paths: CS_FILE, log: false });
    assert.ok(result.items.every((i) => i.sections === undefined));
    assert.doesNotMatch(result.text, /adr-0007#/);
  });

  test('what is injected is counted against the artifact, not its section', async () => {
    const store = await aspireLedger();
    await assembleContext(store, { budget: 2000, now: NOW, task: INTERNAL_TASK, paths: CS_FILE });
    const fed = [...store.allFeedback().keys()];
    assert.ok(fed.includes('copilot-xmldoc'), fed.join(' '));
    assert.ok(fed.every((id) => !id.includes('#')), fed.join(' '));
  });
});

describe('fetching a section', () => {
  function env(store: LedgerStore): AgentToolEnv {
    return { ledger: { read: async (fn) => fn(store), write: (fn) => Promise.resolve(store.transaction(() => fn(store))) }, channel: 'mcp', workspaceRoot: '/work/project' };
  }

  test('get_artifact returns one section by its URN, and names the sections when one is not there', async () => {
    const store = await aspireLedger();
    const tool = findAgentTool('get_artifact')!;
    const text = await runForModel(tool, env(store), { id: 'ledger://artifact/copilot-xmldoc#documentation-for-internal-apis' });
    assert.match(text, /Section "Documentation for Internal APIs"/);
    assert.ok(text.includes(findSection(XMLDOC, 'documentation-for-internal-apis')!.text.slice(0, 300)));
    assert.ok(!text.includes(findSection(XMLDOC, 'validation')!.text.slice(0, 200)), 'only that section');
    const missing = await runForModel(tool, env(store), { id: 'copilot-xmldoc#../../etc/passwd' });
    assert.match(missing, /has no section "\.\.\/\.\.\/etc\/passwd" \(its sections: intro, purpose, general-principles/);
    const whole = await runForModel(tool, env(store), { id: 'copilot-xmldoc' });
    assert.ok(whole.includes(findSection(XMLDOC, 'purpose')!.text.slice(0, 200)) && whole.includes(findSection(XMLDOC, 'general-principles')!.text.slice(0, 200)), 'the bare id is the whole artifact');
  });

  test('the CLI shows one section, and a missing one is an error that says what to do', () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger.db');
    const body = path.join(dir, 'body.md');
    fs.writeFileSync(body, XMLDOC);
    assert.equal(cli(['add', '--db', db, '--id', 'copilot-xmldoc', '--type', 'convention', '--title', 'XML Documentation Standards for Aspire', '--body-file', body]).code, 0);
    const shown = cli(['show', 'ledger://artifact/copilot-xmldoc#validation', '--db', db]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /section: {2}Validation \(ledger:\/\/artifact\/copilot-xmldoc#validation\)/);
    assert.ok(shown.stdout.includes(findSection(XMLDOC, 'validation')!.text));
    assert.ok(!shown.stdout.includes(findSection(XMLDOC, 'purpose')!.text));
    const missing = cli(['show', 'copilot-xmldoc#nope', '--db', db]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no section "nope".*\n.*context-ledger show copilot-xmldoc/);
  });
});
