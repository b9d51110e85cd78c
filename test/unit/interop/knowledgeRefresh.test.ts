/**
 * What the editor's knowledge-file watcher does with a batch of changed paths
 * (src/node/knowledgeRefresh.ts): which formats it refreshes, and that a refresh is the
 * same incremental import as `import-folder` — nothing undone, nothing outside followed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { Minimatch } from 'minimatch';
import { detectFormats, KNOWLEDGE_FILE_GLOB } from '../../../src/core/formats/detect';
import type { LedgerStore } from '../../../src/core/store';
import { applyImport, parseImportSources, scanImportSources } from '../../../src/node/folderImport';
import { followedSources, formatsTouched, parseRefresh } from '../../../src/node/knowledgeRefresh';
import { memoryStore } from '../helpers';
import { tempDir } from './shared';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

const AGENTS = '# Payments\n\n## Refunds\n\nRefunds go through the refund queue (ALPHA).\n\n## Webhooks\n\nVerify every webhook signature.\n';
const ADR = (n: number, title: string, status = 'Accepted'): string => `# ${n}. ${title}\n\n## Status\n\n${status}\n\n## Decision\n\n${title}.\n`;

/** A workspace imported once with `import-folder` (the whole folder), as a user would. */
async function imported(files: Record<string, string>): Promise<{ root: string; store: LedgerStore }> {
  const root = tempDir();
  write(root, files);
  const store = await memoryStore();
  applyImport(store, parseImportSources(scanImportSources(root, root)));
  return { root, store };
}

function refresh(root: string, store: LedgerStore, changed?: string[]): ReturnType<typeof applyImport> {
  const followed = followedSources(store.latestArtifacts());
  const formats = formatsTouched(followed, changed);
  return formats.length === 0 ? [] : applyImport(store, parseRefresh(root, followed, formats));
}

const titles = (store: LedgerStore, status = 'active'): string[] =>
  store.latestArtifacts().filter((a) => a.status === status).map((a) => a.title).sort();

describe('knowledge-file refresh (the VS Code watcher)', () => {
  test('every path the import discovers matches the watcher glob', () => {
    const samples = [
      'AGENTS.md', 'pkg/AGENTS.md', 'CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md', '.claude/rules/db.md',
      '.github/copilot-instructions.md', '.github/instructions/ts.instructions.md', '.cursor/rules/a.mdc',
      'web/.cursor/rules/b.md', '.cursorrules', '.clinerules', '.clinerules/style.txt', '.clinerules/x.md',
      '.cline/rules/x.md', '.cline/rules/notes.markdown', '.cline/rules/plain.txt', 'pkg/.cline/rules/y.md',
      'docs/adr/0001-use-sqlite.md', 'docs/decisions/0002-x.MD', '.context/DECISIONS.md', '.context/decisions/retries.md',
      '.kiro/steering/tech.md', 'web/.kiro/steering/ui.md', '.windsurf/rules/a.md', '.windsurfrules', 'GEMINI.md', 'pkg/GEMINI.md',
      '.junie/guidelines.md', '.continue/rules/x.md', '.roo/rules/a.md', '.roo/rules-code/b.xml', '.roo/rules/notes',
      '.roorules', '.roorules-code', '.amazonq/rules/a.md', '.augment/rules/a.md', '.augment-guidelines', '.rules',
      '.claude/skills/review/SKILL.md', '.agents/skills/x/SKILL.md',
    ];
    // As the watcher's glob matches (VS Code globs: `**/` then one `{…}` group of alternatives).
    const matcher = new Minimatch(KNOWLEDGE_FILE_GLOB, { dot: true });
    const matches = (file: string): boolean => matcher.match(file);
    for (const file of samples) {
      assert.ok(detectFormats([file]).length > 0, `${file} is discovered`);
      assert.ok(matches(file), `${file} matches ${KNOWLEDGE_FILE_GLOB}`);
    }
  });

  test('only formats the ledger imported are refreshed; an unrelated change or a new format refreshes nothing', async () => {
    const { store } = await imported({ 'AGENTS.md': AGENTS });
    const followed = followedSources(store.latestArtifacts());
    assert.deepEqual(formatsTouched(followed, ['AGENTS.md']), ['agents-md']);
    assert.deepEqual(formatsTouched(followed, ['web/AGENTS.md']), ['agents-md'], 'a new file of a followed format');
    assert.deepEqual(formatsTouched(followed, ['.cursor/rules/new.mdc', 'README.md', 'node_modules/x/AGENTS.md', '.context-ledger/artifacts/a.md']), []);
    assert.deepEqual(formatsTouched(followed, []), []);
    assert.deepEqual(formatsTouched(followed), ['agents-md'], 'a catch-up refreshes every followed format');
    assert.deepEqual(formatsTouched(followedSources([]), ['AGENTS.md']), [], 'an empty ledger follows nothing');
  });

  test('an edited file becomes a new version, pin and archive kept; an unchanged one changes nothing', async () => {
    const { root, store } = await imported({ 'AGENTS.md': AGENTS });
    const refunds = store.latestArtifacts().find((a) => a.title === 'Payments: Refunds')!;
    const webhooks = store.latestArtifacts().find((a) => a.title === 'Payments: Webhooks')!;
    store.setPinned(refunds.id, true);
    store.archive(webhooks.id);

    const same = refresh(root, store, ['AGENTS.md']);
    assert.deepEqual(same.flatMap((r) => r.changes), [], 'a save without a change changes nothing');

    write(root, { 'AGENTS.md': AGENTS.replace('(ALPHA)', '(BETA, déjà vu)').replace('every webhook', 'each webhook') });
    const changed = refresh(root, store, ['AGENTS.md']);
    assert.deepEqual(changed.flatMap((r) => r.updated).length, 2);
    const latest = store.latestArtifacts();
    const r2 = latest.find((a) => a.title === 'Payments: Refunds')!;
    assert.match(r2.body, /BETA, déjà vu/);
    assert.equal(r2.version, 2);
    assert.equal(r2.pinned, true, 'the pin made in the ledger is kept');
    assert.equal(latest.find((a) => a.title === 'Payments: Webhooks')!.status, 'archived', 'the archive made in the ledger is kept');
  });

  test('a new rule file of a followed format is added; a deleted file archives its artifacts', async () => {
    const { root, store } = await imported({ 'AGENTS.md': AGENTS, '.cursor/rules/db.mdc': '---\nalwaysApply: true\n---\nUse the real database in tests.\n' });
    write(root, { '.cursor/rules/retries.mdc': '---\nalwaysApply: true\n---\nRetries back off with jitter.\n' });
    fs.rmSync(path.join(root, 'AGENTS.md'));
    const reports = refresh(root, store, ['.cursor/rules/retries.mdc', 'AGENTS.md']);
    assert.deepEqual(reports.flatMap((r) => r.added).length, 1);
    assert.deepEqual(reports.flatMap((r) => r.removed).length, 2);
    assert.deepEqual(titles(store), ['Db', 'Retries']);
  });

  test('a ledger that imported Cline rules follows .cline/rules/ too: an edit or a new file there refreshes at once', async () => {
    const { root, store } = await imported({ '.clinerules/style.md': '# Style\n\nSmall functions.\n', '.cline/rules/api.md': '---\npaths: ["src/**"]\n---\nValidate input.\n' });
    const followed = followedSources(store.latestArtifacts());
    assert.deepEqual(formatsTouched(followed, ['.cline/rules/api.md']), ['cline']);
    assert.deepEqual(formatsTouched(followed, ['.cline/rules/new.md']), ['cline'], 'a new file there is a Cline rule');
    assert.deepEqual(formatsTouched(followed, ['.cline/rules/drafts/x.md', '.cline/workflows/w.md']), [], 'Cline reads neither as a rule');
    write(root, { '.cline/rules/api.md': '---\npaths: ["src/**"]\n---\nValidate input with the schema.\n', '.cline/rules/new.md': 'Log the request id.\n' });
    const reports = refresh(root, store, ['.cline/rules/api.md', '.cline/rules/new.md']);
    assert.deepEqual([reports.flatMap((r) => r.updated).length, reports.flatMap((r) => r.added).length], [1, 1]);
    assert.ok(store.latestArtifacts().some((a) => a.source === 'import:cline:.cline/rules/api.md' && /with the schema/.test(a.body)));
  });

  test('a ledger edit of a linked artifact is detached, never reverted, when its file changes', async () => {
    const { root, store } = await imported({ 'AGENTS.md': AGENTS });
    const refunds = store.latestArtifacts().find((a) => a.title === 'Payments: Refunds')!;
    store.updateArtifact(refunds.id, { body: 'Refunds: written by a person in the ledger.' });
    write(root, { 'AGENTS.md': AGENTS.replace('(ALPHA)', '(GAMMA)') });
    const reports = refresh(root, store, ['AGENTS.md']);
    assert.equal(reports.flatMap((r) => r.detached).length, 1);
    assert.equal(store.latestArtifacts().find((a) => a.title === 'Payments: Refunds')!.body, 'Refunds: written by a person in the ledger.');
  });

  test('ADRs in a folder picked by hand follow too, and are never archived because the scan does not know the folder', async () => {
    const root = tempDir();
    write(root, { 'records/0001-use-sqlite.md': ADR(1, 'Use SQLite'), 'AGENTS.md': AGENTS });
    const store = await memoryStore();
    applyImport(store, parseImportSources(scanImportSources(root, path.join(root, 'records'), 'adr')));
    applyImport(store, parseImportSources(scanImportSources(root, root)));
    assert.deepEqual(titles(store), ['ADR-0001: Use SQLite', 'Payments: Refunds', 'Payments: Webhooks']);

    // A catch-up (every followed format) keeps the ADR the root scan does not see.
    assert.deepEqual(refresh(root, store).flatMap((r) => r.changes), []);
    write(root, { 'records/0002-retries.md': ADR(2, 'Retry with jitter') });
    const added = refresh(root, store, ['records/0002-retries.md']);
    assert.deepEqual(added.flatMap((r) => r.added).length, 1, JSON.stringify(added));
    assert.ok(titles(store).includes('ADR-0002: Retry with jitter'));
    write(root, { 'records/0001-use-sqlite.md': ADR(1, 'Use SQLite', 'Superseded by ADR-0002') });
    refresh(root, store, ['records/0001-use-sqlite.md']);
    assert.ok(!titles(store).includes('ADR-0001: Use SQLite'), 'a superseded ADR is no longer active');
  });

  test('hostile: a linked file replaced by a link out of the workspace is not read; its artifacts stay as they were, nothing from outside comes in', async () => {
    const { root, store } = await imported({ 'AGENTS.md': AGENTS });
    const outside = tempDir();
    write(outside, { 'secret.md': '# Secret\n\nOUTSIDE-TEXT\n' });
    fs.rmSync(path.join(root, 'AGENTS.md'));
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'AGENTS.md'));
    refresh(root, store, ['AGENTS.md']);
    assert.ok(store.latestArtifacts().every((a) => !a.body.includes('OUTSIDE-TEXT')), 'nothing read through the link');
  });
});
