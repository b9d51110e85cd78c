/**
 * Path scope as the agent tools mean it: a standing rule (AGENTS.md, CLAUDE.md, Copilot,
 * Cursor or Cline instructions, imported as conventions) applies to the files of its scope,
 * the nearest folder's first; a record's paths only say what it concerns.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleContext, renderExplain } from '../../../src/core/assemble';
import { parseAgentRules } from '../../../src/core/formats/agentRules';
import type { LedgerStore } from '../../../src/core/store';
import { fixedClock, memoryStore } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const FILLER = 'The team discussed this at length and agreed to revisit it in the next planning round. ';

/** Eight long decision records (about 380 tokens each) that share the task's words: `adr-0` .. `adr-7`. */
function addSnapshotRecords(store: LedgerStore): void {
  for (let i = 0; i < 8; i++) {
    store.createArtifact({
      id: `adr-${i}`,
      type: 'adr',
      title: `ADR-00${i}: Thread snapshot lifecycle owner session ${i}`,
      body: `The thread snapshot lifecycle: hydration replay, resume seeding, one session object. ${`Variant ${i} weighs cost ${i * 7} against risk ${i * 3} in review. `.repeat(25)}`,
    });
  }
}

async function monorepo(): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
  // Nested AGENTS.md sections of two packages and of their parent folder.
  store.createArtifact({ id: 'py-changelog', type: 'convention', scope: 'path', paths: ['python/**'], title: 'Changelog Ownership', body: 'Only release managers edit CHANGELOG.md files.' });
  store.createArtifact({ id: 'py-agui-usage', type: 'convention', scope: 'path', paths: ['python/packages/ag-ui/**'], title: 'AG-UI Package: Usage', body: 'Run the AG-UI samples with uv run.' });
  store.createArtifact({ id: 'dotnet-pr', type: 'convention', scope: 'path', paths: ['dotnet/**'], title: 'Pull Requests', body: 'Run dotnet format and the snapshot lifecycle tests before a pull request.' });
  // Records that share the task's words, one scoped to another folder.
  addSnapshotRecords(store);
  store.createArtifact({ id: 'adr-dotnet', type: 'adr', scope: 'path', paths: ['dotnet/**'], title: 'ADR-0099: Snapshot lifecycle in the .NET runner', body: `Thread snapshot lifecycle in .NET. ${FILLER.repeat(3)}` });
  return store;
}

const TASK = { title: 'Give the thread snapshot lifecycle one owner', description: 'Move hydration replay and resume seeding into one session object.' };
const PATHS = ['python/packages/ag-ui/agent_framework_ag_ui/_snapshot_session.py'];

describe('path scope', () => {
  test("a standing rule of another folder stays out while files are in play, and explain says why; a record of another folder is still ranked", async () => {
    const store = await monorepo();
    const result = await assembleContext(store, { budget: 4000, now: NOW, task: TASK, paths: PATHS, log: false });
    const shown = result.items.map((i) => i.id);
    assert.ok(!shown.includes('dotnet-pr'), 'the dotnet rule shares task words but its folder is not in play');
    const why = result.excluded.find((e) => e.id === 'dotnet-pr');
    assert.equal(why?.reason, 'path-mismatch');
    assert.match(renderExplain(result), /dotnet-pr[^\n]*(its paths|match no active path)/);
    assert.ok(shown.includes('adr-dotnet'), "a decision's paths say what it concerns: it is ranked, not excluded");
  });

  test('the task naming a rule of another folder brings it in; with no file in play nothing is excluded by scope', async () => {
    const store = await monorepo();
    const named = await assembleContext(store, { budget: 4000, now: NOW, task: { ...TASK, description: `${TASK.description} Follow "Pull Requests" as for dotnet-pr.` }, paths: PATHS, log: false });
    assert.ok(named.items.some((i) => i.id === 'dotnet-pr'), 'named by its id in the task');
    const noFiles = await assembleContext(store, { budget: 4000, now: NOW, task: TASK, paths: [], log: false });
    assert.ok(!noFiles.excluded.some((e) => e.reason === 'path-mismatch'), noFiles.excluded.map((e) => `${e.id} ${e.reason}`).join('\n'));
  });

  test("the rules of the folders of the file in play are given whole before weaker text matches, the nearest folder's first", async () => {
    const store = await monorepo();
    const result = await assembleContext(store, { budget: 300, now: NOW, task: TASK, paths: PATHS, log: false });
    const mode = (id: string) => result.items.find((i) => i.id === id)?.mode;
    assert.equal(mode('py-agui-usage'), 'full', result.items.map((i) => `${i.id} ${i.mode} ${i.score}`).join('\n'));
    assert.equal(mode('py-changelog'), 'full', 'the parent folder rule shares no word with the task and is still loaded');
    const score = (id: string) => result.items.find((i) => i.id === id)!.score;
    assert.ok(score('py-agui-usage') > score('py-changelog'), 'nearest folder first');
    assert.ok(result.tokensUsed <= 300);
  });
});

describe('rules loaded for every file', () => {
  /** The monorepo with what a root AGENTS.md, a Cursor rule without globs and the ledger's own global note say about git. */
  async function withRootRules(): Promise<LedgerStore> {
    const store = await monorepo();
    store.createArtifact({ id: 'agents-md-git', type: 'convention', source: 'import:agents-md:AGENTS.md', title: 'Git', body: 'Sign off every commit with git commit -s.' });
    store.createArtifact({ id: 'cursor-style', type: 'convention', source: 'import:cursor:.cursor/rules/style.mdc', title: 'Style', body: 'Prefer early returns over nested branches.' });
    store.createArtifact({ id: 'team-note', type: 'convention', title: 'Release train', body: 'Releases leave on Tuesdays.' });
    return store;
  }

  test("a root AGENTS.md rule is loaded for any file in play, after the folders' own rules, and explain says why", async () => {
    const store = await withRootRules();
    const result = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, paths: PATHS, log: false });
    const item = (id: string) => result.items.find((i) => i.id === id);
    // It shares no word with the task: every agent tool loads it for this file all the same.
    assert.equal(item('agents-md-git')?.mode, 'full', result.items.map((i) => `${i.id} ${i.mode} ${i.score.toFixed(2)}`).join('\n'));
    assert.match(item('agents-md-git')!.reason, /loaded by its tool for every file/);
    assert.match(renderExplain(result), /agents-md-git\n.*\n\s+why: loaded by its tool for every file/);
    assert.ok(item('py-changelog')!.score > item('agents-md-git')!.score, "the folder's own rule first: it is nearer");
    // Cursor attaches a rule without globs only when asked for by its description; the ledger's own global note is ranked on its words.
    assert.equal(item('cursor-style'), undefined);
    assert.equal(item('team-note'), undefined);
    assert.ok(result.tokensUsed <= 8000);
  });

  test('records rich in the task\'s words do not push out the rules loaded for the file: they take the room rules and pins left unused first', async () => {
    // Eight long decision records share the task's words; three root AGENTS.md rules of about a
    // hundred tokens share none. Every agent tool loads those rules for this file; words alone
    // rank them under every record, and at 1,200 tokens the records' full texts and previews
    // would take all the room. The fixed tier's share, unused (no rule or pin is pinned), goes
    // to the rules in scope first: the folder's own rule, then the root's.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'py-changelog', type: 'convention', scope: 'path', paths: ['python/**'], title: 'Changelog Ownership', body: 'Only release managers edit CHANGELOG.md files.' });
    addSnapshotRecords(store);
    const rules: Array<[string, string, string]> = [
      ['agents-md-git', 'Git', 'Sign off every commit with git commit -s. Rebase on main before you push; never merge main into a feature branch. Squash fixups before review. '],
      ['agents-md-tdd', 'Test first', 'Write the failing test before the fix, one behaviour at a time, and run the whole suite with make check before you ask for review. '],
      ['agents-md-scope', 'Change scope', 'Change only what the task asks for: no drive-by refactors, no new defaults, no reformatting of untouched files. '],
    ];
    for (const [id, title, body] of rules) store.createArtifact({ id, type: 'convention', source: 'import:agents-md:AGENTS.md', title, body: body.repeat(3) });
    const result = await assembleContext(store, { budget: 1200, now: NOW, task: TASK, paths: PATHS, log: false });
    const mode = (id: string) => result.items.find((i) => i.id === id)?.mode;
    for (const [id] of rules) assert.equal(mode(id), 'full', result.items.map((i) => `${i.id} ${i.mode} ${i.score.toFixed(2)}`).join('\n'));
    assert.equal(mode('py-changelog'), 'full', "the folder's own rule too");
    assert.ok(result.items.some((i) => i.id.startsWith('adr-') && i.mode === 'full'), 'the records keep the rest of the room');
    assert.ok(result.tokensUsed <= 1200);
    // With the records gone there is nothing to push the rules out: the layers rank them as before.
    for (let i = 0; i < 8; i++) store.archive(`adr-${i}`);
    const rulesOnly = await assembleContext(store, { budget: 1200, now: NOW, task: TASK, paths: PATHS, log: false });
    for (const [id] of rules) assert.equal(rulesOnly.items.find((i) => i.id === id)?.mode, 'full');
  });

  test('beyond the room rules and pins left unused, the rules loaded for every file are worth what such rules were measured to be worth against records, unless a folder rule is in scope', async () => {
    // A pin fills the fixed tier's share, so no unused share is left for the rules in scope.
    // Three root AGENTS.md rules share no word with the task; eight long records share many.
    // On the records' steep worth curve the rules are worth a hundredth of a record and come
    // as previews at best; such rules held a unit the task needed about one time in four
    // (docs/benchmarks.md), and against the records they are worth that.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'house-pin', type: 'convention', pinned: true, title: 'House style', body: `Prefer tabs in Makefiles. ${FILLER.repeat(4)}` });
    addSnapshotRecords(store);
    const rules: Array<[string, string, string]> = [
      ['agents-md-git', 'Git', 'Sign off every commit with git commit -s. Rebase on main before you push. '],
      ['agents-md-tdd', 'Test first', 'Write the failing test before the fix and run make check before review. '],
      ['agents-md-scope', 'Change scope', 'Change only what the task asks for: no drive-by refactors. '],
    ];
    for (const [id, title, body] of rules) store.createArtifact({ id, type: 'convention', source: 'import:agents-md:AGENTS.md', title, body: body.repeat(6) });
    const build = (options?: { ruleWorth: { slope: number } }) => assembleContext(store, { budget: 1500, now: NOW, task: TASK, paths: PATHS, log: false, ...(options ? { options } : {}) });
    const result = await build();
    const mode = (r: typeof result, id: string) => r.items.find((i) => i.id === id)?.mode;
    const listing = (r: typeof result) => r.items.map((i) => `${i.id} ${i.mode} ${i.score.toFixed(2)}`).join('\n');
    for (const [id] of rules) assert.equal(mode(result, id), 'full', listing(result));
    assert.ok(result.items.some((i) => i.id.startsWith('adr-') && i.mode === 'full'), 'the records keep the rest of the room');
    assert.ok(result.tokensUsed <= 1500);
    // On the steep curve alone (the floor off) the records take that room.
    const steep = await build({ ruleWorth: { slope: 0 } });
    assert.ok(rules.some(([id]) => mode(steep, id) !== 'full'), listing(steep));
    // Among rules alone, or where a folder's own rule is in scope (the nearer word, first in the
    // packer's order), the floor does not apply: the rules are ranked as before.
    store.createArtifact({ id: 'py-changelog', type: 'convention', scope: 'path', paths: ['python/**'], title: 'Changelog Ownership', body: 'Only release managers edit CHANGELOG.md files.' });
    assert.equal((await build()).text, (await build({ ruleWorth: { slope: 0 } })).text);
    store.archive('py-changelog');
    for (let i = 0; i < 8; i++) store.archive(`adr-${i}`);
    assert.equal((await build()).text, (await build({ ruleWorth: { slope: 0 } })).text);
  });

  test('pins that do not all fit: the one the task is about gets its text, not the cheapest', async () => {
    // growthbook's always-on Cursor rules, imported as pins: a short "Project Overview" no task
    // needed and a longer "Development Guidelines" every task did. Every pin is named; which
    // one's text the room buys is decided by its worth to the task, as for every other item.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'overview', type: 'convention', pinned: true, title: 'Project Overview', body: `GrowthBook is an open source platform for feature flags and experiments. ${FILLER.repeat(3)}` });
    store.createArtifact({ id: 'guidelines', type: 'convention', pinned: true, title: 'Development Guidelines', body: `Run the snapshot lifecycle tests and the linter before review; keep one owner per session object. ${FILLER.repeat(5)}` });
    const result = await assembleContext(store, { budget: 200, now: NOW, task: TASK, paths: [], log: false });
    const mode = (id: string) => result.items.find((i) => i.id === id)?.mode;
    const listing = result.items.map((i) => `${i.id} ${i.mode} ${i.score.toFixed(2)} ${i.tokens}`).join('\n');
    assert.equal(mode('guidelines'), 'full', listing);
    assert.notEqual(mode('overview'), 'full', listing);
    assert.ok(mode('overview') !== undefined, `the other pin is still named: ${listing}`);
    assert.ok(result.tokensUsed <= 200);
  });

  test('a rule in scope titled for the kind of change in play (its commands, linting, testing) is worth what rules were measured to be worth, and explain says why', async () => {
    // Among rules alone, with no word of the task: "Build and Development Commands" governs every
    // code change, "Project History" none. On words alone both are worth a twentieth of the
    // architecture rule, and the cheaper one won the last room.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    const root = (id: string, title: string, body: string) => store.createArtifact({ id, type: 'convention', source: 'import:agents-md:AGENTS.md', title, body });
    root('agents-md-architecture', 'Architecture', `The thread snapshot lifecycle: hydration replay and resume seeding live in one session object. ${FILLER.repeat(4)}`);
    root('agents-md-commands', 'Build and Development Commands', 'Run `make check` before review; `uv run pytest -k name` runs one case; `make fmt` formats the code. '.repeat(3));
    root('agents-md-history', 'Project History', 'Forked from the old runner in 2021. '.repeat(3));
    const build = (paths: string[], options?: { ruleWorth: { slope: number } }) => assembleContext(store, { budget: 250, now: NOW, task: TASK, paths, log: false, ...(options ? { options } : {}) });
    const mode = (r: Awaited<ReturnType<typeof build>>, id: string) => r.items.find((i) => i.id === id)?.mode;
    const listing = (r: Awaited<ReturnType<typeof build>>) => r.items.map((i) => `${i.id} ${i.mode} ${i.tokens}`).join('\n');
    const code = await build(PATHS);
    assert.equal(mode(code, 'agents-md-commands'), 'full', listing(code));
    assert.notEqual(mode(code, 'agents-md-history'), 'full', listing(code));
    assert.ok(code.tokensUsed <= 250);
    assert.match(code.items.find((i) => i.id === 'agents-md-commands')!.reason, /its title names the change kind code/);
    // Without the rules' curve, words alone decide, and the cheaper rule takes the room.
    const steep = await build(PATHS, { ruleWorth: { slope: 0 } });
    assert.notEqual(mode(steep, 'agents-md-commands'), 'full', listing(steep));
    // A documentation change is not a code change: its commands rule is ranked on its words.
    const docs = await build(['docs/guide.md']);
    assert.doesNotMatch(docs.items.find((i) => i.id === 'agents-md-commands')?.reason ?? '', /title names/);
    assert.equal(docs.text, (await build(['docs/guide.md'], { ruleWorth: { slope: 0 } })).text);
  });

  test('a part of a long rule in scope headed for the kind of change in play is offered and valued as such a rule; of several in one file, only the best-ranked', async () => {
    // A Go style guide for every file (toolhive's go-style.md): its "Linting" part shares no word
    // with the task, so the task's words never single it out, yet every code change must pass it.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    const topics = ['Interface Design', 'Resource Leaks', 'Error Handling', 'Package API Surface', 'Logging', 'Concurrency Notes'];
    const guide = `# Go Style\n\n${topics.map((t, i) => `## ${t}\n\nRule ${i}: ${FILLER.repeat(8)}\n`).join('\n')}\n## Linting\n\nRun \`task fix\` before submitting; never suppress a warning.\n`;
    store.createArtifact({ id: 'go-style', type: 'convention', source: 'import:claude-rules:.claude/rules/go-style.md', scope: 'path', paths: ['**/*.go'], title: 'Go Style Rules', body: guide });
    // Three sections of one AGENTS.md titled for tests: the kind's topics, of which one stands for it.
    for (const [id, title] of [['agents-md-running', 'Running tests'], ['agents-md-quarantined', 'Quarantined tests'], ['agents-md-disabled', 'Disabled tests']] as const) {
      store.createArtifact({ id, type: 'convention', source: 'import:agents-md:AGENTS.md', title, body: `${title}: ${FILLER.repeat(2)}` });
    }
    const result = await assembleContext(store, { budget: 400, now: NOW, task: TASK, paths: ['pkg/session/snapshot.go'], log: false });
    const guideItem = result.items.find((i) => i.id === 'go-style');
    assert.match(guideItem?.reason ?? '', /section "Linting" \(its heading names the change kind code\)/, renderExplain(result));
    const titled = result.items.filter((i) => /title names the change kind/.test(i.reason)).map((i) => i.id);
    assert.equal(titled.filter((id) => id.startsWith('agents-md-')).length, 1, titled.join(', '));
    assert.ok(result.tokensUsed <= 400);
  });

  test("a rule its tool marks always-on (Cursor's alwaysApply) is in scope for any file in play, like a root AGENTS.md; a person's own pin is always in, but no tool loads it for a file", async () => {
    const store = await withRootRules();
    const imported = parseAgentRules([{ path: '.cursor/rules/commits.mdc', content: '---\ndescription: Commits\nalwaysApply: true\n---\n\n# Commits\n\nSign off every commit with git commit -s.\n' }]);
    for (const a of imported.artifacts) store.createArtifact(a);
    const cursorId = imported.artifacts[0]!.id!;
    store.createArtifact({ id: 'my-pin', type: 'convention', pinned: true, title: 'Standup notes', body: 'Post a standup note every morning.' });
    const result = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, paths: PATHS, log: false });
    const item = (id: string) => result.items.find((i) => i.id === id)!;
    assert.match(item(cursorId).reason, /pinned \(always in\); loaded by its tool for every file/);
    assert.ok(item(cursorId).components.path > 0, 'its path match counts as a root AGENTS.md rule\'s does');
    assert.doesNotMatch(item('my-pin').reason, /loaded by its tool/);
    assert.equal(item('my-pin').components.path, 0);
    // With no file in play there is no scope to judge by: the always-on rule is still pinned, with no path match.
    const noFiles = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, paths: [], log: false });
    assert.equal(noFiles.items.find((i) => i.id === cursorId)?.components.path, 0);
  });

  test('with no file in play, or paths of its own, a root rule is ranked on its words like any other', async () => {
    const store = await withRootRules();
    const noFiles = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, paths: [], log: false });
    assert.equal(noFiles.items.find((i) => i.id === 'agents-md-git'), undefined, 'nothing points to it');
    store.updateArtifact('agents-md-git', { scope: 'path', paths: ['dotnet/**'] });
    const scoped = await assembleContext(store, { budget: 8000, now: NOW, task: TASK, paths: PATHS, log: false });
    assert.equal(scoped.items.find((i) => i.id === 'agents-md-git'), undefined, 'a person scoped it to another folder');
  });
});

describe("a Copilot instructions file whose applyTo is a YAML list", () => {
  // VS Code reads applyTo as one string and never attaches such a file (`which` says so), but
  // its author scoped it: the ledger reads the scope the author meant, for the files in play.
  test('is in a build for a file its globs match and out of one for another folder', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    const imported = parseAgentRules([
      { path: '.github/instructions/web.instructions.md', content: '---\napplyTo:\n  - "web/**/*.tsx"\n  - "web/**/*.css"\n---\n\n# Web\n\nUse the design tokens for every colour; never a hex literal.\n' },
    ]);
    for (const a of imported.artifacts) store.createArtifact(a);
    const id = imported.artifacts[0]!.id!;
    assert.deepEqual(imported.artifacts[0]!.paths, ['web/**/*.tsx', 'web/**/*.css']);
    const task = { title: 'Fix the button colour', description: '' };
    const web = await assembleContext(store, { budget: 4000, now: NOW, task, paths: ['web/src/Button.tsx'], log: false });
    assert.match(web.items.find((i) => i.id === id)?.reason ?? '', /path match web\/\*\*\/\*\.tsx/);
    const api = await assembleContext(store, { budget: 4000, now: NOW, task, paths: ['api/src/colour.ts'], log: false });
    assert.equal(api.items.find((i) => i.id === id), undefined);
    assert.equal(api.excluded.find((e) => e.id === id)?.reason, 'path-mismatch');
  });
});

describe('a task label naming a folder', () => {
  // Working in internal/cli/journal/ on a task labelled "journal": the notes and rules of
  // internal/journal/ concern it, though no file of that folder is in play.
  const JOURNAL_TASK = { title: 'Re-import transcripts that grew', description: 'Re-render sessions whose transcript grew after the first import; never clobber hand-edited entries.' };
  const JOURNAL_PATHS = ['internal/cli/journal/cmd/importer/run.go'];
  const NOTE = 'Journal entries are rendered from transcripts; the importer keeps a state file of what it has imported and when.';

  async function modules(): Promise<LedgerStore> {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    // The same note about two modules: only the folder differs.
    store.createArtifact({ id: 'journal-state', type: 'module_memory', scope: 'path', paths: ['internal/journal/state/**'], title: 'Module: state', body: `${NOTE} Reviewed monthly.` });
    store.createArtifact({ id: 'billing-state', type: 'module_memory', scope: 'path', paths: ['internal/billing/state/**'], title: 'Module: state', body: `${NOTE} Reviewed quarterly.` });
    store.createArtifact({ id: 'journal-rule', type: 'convention', scope: 'path', paths: ['internal/journal/**'], title: 'Journal files', body: 'Never rewrite an entry a person edited; re-render into a new file.' });
    for (const module of ['auth', 'search', 'export']) {
      store.createArtifact({ id: `${module}-note`, type: 'module_memory', scope: 'path', paths: [`internal/${module}/**`], title: `Module: ${module}`, body: `The ${module} package owns its own storage.` });
    }
    return store;
  }

  test("ranks that module's notes above the same note of another module, and explain says why; its rules stay out, as their tools leave them", async () => {
    const store = await modules();
    const labelled = await assembleContext(store, { budget: 4000, now: NOW, task: { ...JOURNAL_TASK, labels: ['feature', 'Journal'] }, paths: JOURNAL_PATHS, log: false });
    const score = (id: string): number | undefined => labelled.items.find((i) => i.id === id)?.score;
    assert.equal(labelled.excluded.find((e) => e.id === 'journal-rule')?.reason, 'path-mismatch', 'a label is a topic: no agent tool loads a rule for it');
    assert.ok(score('journal-state')! > score('billing-state')!, `journal ${score('journal-state')} billing ${score('billing-state')}`);
    assert.match(renderExplain(labelled), /journal-state\n[^\n]*\n\s*why: its folder journal\/ is a label of the task/);

    const unlabelled = await assembleContext(store, { budget: 4000, now: NOW, task: { ...JOURNAL_TASK, labels: ['feature'] }, paths: JOURNAL_PATHS, log: false });
    const pathPart = (id: string): number | undefined => unlabelled.items.find((i) => i.id === id)?.components.path;
    assert.ok(pathPart('journal-state')! < 0, 'without the label, a note of another folder is ranked with a penalty');
    assert.equal(pathPart('journal-state'), pathPart('billing-state'), 'without the label the two notes are alike by their paths');
  });

  test("labels are read as folder names are written (case, plural, separators); a label that names no folder, a traversal or another script changes nothing", async () => {
    const store = await modules();
    store.createArtifact({ id: 'companion-note', type: 'learning', scope: 'path', paths: ['internal/companion_tools/gitnexus.go'], title: 'Companion tools re-index', body: `${NOTE} Companion tools re-index on import.` });
    const pathPart = async (labels: string[]): Promise<Record<string, number | undefined>> => {
      const result = await assembleContext(store, { budget: 4000, now: NOW, task: { ...JOURNAL_TASK, labels }, paths: JOURNAL_PATHS, log: false });
      const part = (id: string): number | undefined => result.items.find((i) => i.id === id)?.components.path;
      return { journal: part('journal-state'), billing: part('billing-state'), companion: part('companion-note') };
    };
    const forms = await pathPart(['JOURNALS', 'companion-tools']);
    assert.ok(forms.journal! > 0 && forms.companion! > 0 && forms.billing! < 0, JSON.stringify(forms));
    // "internal" names a folder of every path here: a container, not a module, so it tells none of them apart.
    for (const labels of [['../../etc', '日記', ''], ['gitnexus.go'], ['internal']]) {
      const other = await pathPart(labels);
      assert.ok(other.journal! < 0 && other.companion! < 0, `${JSON.stringify(labels)}: ${JSON.stringify(other)}`);
    }
    // A path as a label is read as its words: "state/**" names every state/ folder.
    const state = await pathPart(['state/**']);
    assert.ok(state.journal! > 0 && state.billing! > 0, JSON.stringify(state));
  });
});

describe('rules and pins within their share', () => {
  test('every pin is named, but full text beyond the fixed share goes to what the task is about', async () => {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    for (let i = 0; i < 4; i++) {
      store.createArtifact({ id: `pin-${i}`, type: 'convention', pinned: true, title: `House style ${i}`, body: `Prefer tabs in ${['YAML', 'Makefiles', 'Go', 'shell'][i]} files. ${FILLER.repeat(14)}` });
    }
    // Three decisions the task is about: more than the knowledge layers' share can give in full.
    for (const [id, what] of [['retry', 'retry with exponential backoff and jitter'], ['idempotency', 'carry idempotency keys on every retry'], ['provider', 'respect the provider rate limit on retries']] as const) {
      store.createArtifact({ id: `webhook-${id}`, type: 'decision', title: `Payment webhooks ${what}`, body: `Payment webhook deliveries ${what}. ${FILLER.repeat(14)}` });
    }
    const result = await assembleContext(store, { budget: 1100, now: NOW, task: { title: 'Fix payment webhook retries', description: 'Webhook retries hammer the provider: add backoff and idempotency keys.' }, log: false });
    assert.ok(result.tokensUsed <= 1100);
    const mode = (id: string) => result.items.find((i) => i.id === id)?.mode;
    for (const id of ['webhook-retry', 'webhook-idempotency', 'webhook-provider']) assert.equal(mode(id), 'full', result.items.map((i) => `${i.id}:${i.mode}`).join(' '));
    for (let i = 0; i < 4; i++) assert.ok(mode(`pin-${i}`) !== undefined, `pin-${i} is at least named`);
    assert.ok([0, 1, 2, 3].every((i) => mode(`pin-${i}`) !== 'full'), 'no pin gets its full text before the decisions the task is about');
  });
});

describe('a pin longer than the fixed share', () => {
  test('is split like a long rule, so the part the task needs is shown beyond the share; whole when the share holds it', async () => {
    // growthbook's always-on "Development Guidelines" (2,834 characters, 676 tokens) against a
    // 400-token fixed share at 2,000 tokens: whole it never fit, and only its first lines came.
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    const parts = ['Type Definitions', 'Environment Variables', 'Zod Validation'].map((h) => `## ${h}\n\n${FILLER.repeat(8)}`);
    const body = `# Development Guidelines\n\n${parts.join('\n\n')}\n\n## Webhook Retries\n\nRetry webhook deliveries with exponential backoff and carry the idempotency key.\n`;
    store.createArtifact({ id: 'guidelines', type: 'convention', pinned: true, title: 'Development Guidelines', body });
    assert.ok(body.length < 4000, 'shorter than a long rule: whole or not at all before');
    const task = { title: 'Fix webhook retries', description: 'Deliveries hammer the provider: add backoff.' };
    const small = await assembleContext(store, { budget: 300, now: NOW, task, paths: [], log: false });
    const item = small.items.find((i) => i.id === 'guidelines');
    assert.match(item?.reason ?? '', /shown by section "Webhook Retries"/, renderExplain(small));
    assert.match(small.text, /carry the idempotency key/);
    assert.ok(small.tokensUsed <= 300);
    const large = await assembleContext(store, { budget: 8000, now: NOW, task, paths: [], log: false });
    assert.equal(large.items.find((i) => i.id === 'guidelines')?.mode, 'full');
  });
});

describe("another module's notes", () => {
  // Working on src/billing/webhook.ts: the auth module's memory says nothing about billing, and
  // no agent tool would load a folder's notes for another folder, however much room is left.
  async function ledger(): Promise<LedgerStore> {
    const store = await memoryStore(fixedClock('2026-02-01T00:00:00.000Z', 60_000));
    store.createArtifact({ id: 'auth-memory', type: 'module_memory', scope: 'path', paths: ['src/auth/**'], title: 'Module: auth', body: 'Auth tokens expire after 24 hours; refresh them in the client.' });
    store.createArtifact({ id: 'billing-memory', type: 'module_memory', scope: 'path', paths: ['src/billing/**'], title: 'Module: billing', body: 'Billing retries payment webhooks with an idempotency key.' });
    store.createArtifact({ id: 'ledger-memory', type: 'module_memory', scope: 'path', paths: ['src/ledger/**'], title: 'Module: ledger', body: 'The ledger posts every webhook payment; it imports the Webhook type from billing.' });
    store.createArtifact({ id: 'retry-decision', type: 'decision', title: 'Retry webhooks with backoff', body: 'Payment webhooks are retried with exponential backoff.' });
    return store;
  }
  const PATHS = ['src/billing/webhook.ts'];
  const ids = (r: { items: Array<{ id: string }> }): string[] => r.items.map((i) => i.id);

  test('stay out of a build and of the file-open context unless the task names the module or the notes name the file in play', async () => {
    const store = await ledger();
    const task = await assembleContext(store, { budget: 8000, now: NOW, task: { title: 'Stop double bookings when the payment webhook is retried', description: '' }, paths: PATHS, log: false });
    assert.ok(!ids(task).includes('auth-memory'), ids(task).join(' '));
    assert.equal(task.excluded.find((e) => e.id === 'auth-memory')?.reason, 'path-mismatch');
    assert.ok(ids(task).includes('billing-memory'), 'the module in play');
    assert.ok(ids(task).includes('ledger-memory'), 'notes that name the file in play (webhook) concern it');
    // Auto-inject builds for the file in front of the user, with no task.
    const fileOpen = await assembleContext(store, { budget: 8000, now: NOW, paths: PATHS, log: false });
    assert.ok(!ids(fileOpen).includes('auth-memory'), ids(fileOpen).join(' '));
    // The task naming the module (its title, a path, or a label naming its folder) brings it in.
    for (const named of [{ title: 'Check "Module: auth" before the webhook change', description: '' }, { title: 'Webhook and src/auth/session.ts', description: '' }, { title: 'Webhook retries', description: '', labels: ['auth'] }]) {
      const result = await assembleContext(store, { budget: 8000, now: NOW, task: named, paths: PATHS, log: false });
      assert.ok(ids(result).includes('auth-memory'), `${JSON.stringify(named)}: ${ids(result).join(' ')}`);
    }
    // With no file in play there is no scope to judge by: ranked on its words.
    const noFiles = await assembleContext(store, { budget: 8000, now: NOW, task: { title: 'Auth tokens expire too early', description: '' }, log: false });
    assert.ok(ids(noFiles).includes('auth-memory'));
  });

  test('short, non-ASCII and hostile file names name nothing by themselves', async () => {
    const store = await ledger();
    store.createArtifact({ id: 'api-memory', type: 'module_memory', scope: 'path', paths: ['src/other/**'], title: 'Module: other', body: 'Every api call goes through the gateway (.*) — see 日本語.' });
    for (const paths of [['src/api/x.ts'], ['src/(.*)/日本.ts'], ['../../etc/passwd']]) {
      const result = await assembleContext(store, { budget: 8000, now: NOW, paths, log: false });
      assert.ok(!ids(result).includes('api-memory'), `${JSON.stringify(paths)}: ${ids(result).join(' ')}`);
    }
  });
});
