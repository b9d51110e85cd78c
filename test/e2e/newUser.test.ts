/**
 * A new user's whole path, in one VS Code session from the packaged .vsix, at a 1,000 px wide
 * window: a real repository's knowledge files (hatchet-dev/hatchet, fixtures/hatchet/SOURCES.md)
 * and no ledger; Import Knowledge… from the empty Artifacts view, a task, files opened, Build
 * agent context, the meter, the Context Inspector, Which Rules Apply… and Add module memory
 * from the editor and Explorer menus (code-server serves the files as vscode-remote:), Export to
 * Agent Rules…, Sync Artifact Files. Every step is shot in the dark and the light theme
 * (test-output/e2e/newUser/{dark,light}/NN-step.png), and every screen is checked for what a
 * person would call broken: a cut label, literal markup, a clipped control, a sideways scroll
 * (harness/screenChecks.ts).
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import {
  OUTPUT_DIR,
  REPO_ROOT,
  THEME_TOGGLE_KEY,
  TIMEOUTS,
  activeEditorText,
  answerInputBox,
  clickDialogButton,
  inspectorFrame,
  openFile,
  openView,
  readClipboard,
  runCli,
  runCommand,
  runCommandForQuickInput,
  screenReport,
  startExtensionSession,
  statusBarTexts,
  treeItemTooltip,
  treeItems,
  viewPane,
  waitFor,
  waitForClipboard,
  waitForDialog,
  waitForNotification,
  waitForStatusBarText,
  waitForTreeItems,
  withFailureScreenshot,
} from './harness';
import type { ExtensionSession, ScreenScope, TreeItem } from './harness';
import { clickContextMenuItem, editorTextArea, openContextMenu, revealActiveFileInExplorer } from './menus';

const FIXTURE = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'hatchet');
const SHOTS = path.join(OUTPUT_DIR, 'newUser');
const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern' } as const;
type Theme = keyof typeof THEMES;
const GO_FILE = 'pkg/analytics/analytics.go';
const TS_FILE = 'sdks/typescript/src/legacy/examples/crons/cron.e2e.ts';
/** The source files the user opens (the test's own text, at paths of the fixture's commit). */
const SOURCES: Record<string, string> = {
  [GO_FILE]: 'package analytics\n\n// Track sends one event; callers name it after the resource and the action.\nfunc Track(event string, props map[string]string) {}\n',
  [TS_FILE]: "import { describe, it } from 'vitest';\n\ndescribe('cron', () => {\n  it('runs on schedule', async () => {});\n});\n",
};
/** Titles the import gives the fixture's files (their headings, as the files write them). */
const SOME_TITLES = ['Analytics Instrumentation', 'Comment Style', 'Taskfile', 'TypeScript SDK E2E Tests', 'AGENTS: CI'];
const TASK = 'Track cron runs — analytics for the scheduler ☂';

let session: ExtensionSession | undefined;
let theme: Theme = 'dark';
let shots = 0;
/** What the screens showed wrong, `theme/NN-step: problem`; asserted empty once the walk is done. */
const problems: string[] = [];

function ledgerRows(): { id: string; title: string; type: string; paths: string[] }[] {
  return JSON.parse(runCli(['list', '--db', session!.db, '--format', 'json'])) as { id: string; title: string; type: string; paths: string[] }[];
}

async function switchTheme(page: Page, to: Theme): Promise<void> {
  await page.keyboard.press(THEME_TOGGLE_KEY);
  await waitFor(
    () => page.locator('.monaco-workbench').getAttribute('class').then((c) => c ?? ''),
    (c) => (to === 'light' ? /(^| )vs( |$)/ : /(^| )vs-dark( |$)/).test(c),
    `the ${THEMES[to]} theme`,
  );
  theme = to;
  await page.waitForTimeout(400); // the webview restyles from the new theme's variables a moment later
}

/**
 * Shoots the screen as it is, in both themes (the current one first, so a step needs one
 * switch), to newUser/{dark,light}/NN-step.png, and checks each for cut labels, literal
 * markup and clipped controls. Problems are collected, so that one run names them all.
 */
async function shoot(step: string, scope: ScreenScope = {}, around?: { close(): Promise<void>; reopen(): Promise<void> }): Promise<void> {
  const page = session!.wb.page;
  const name = `${String(++shots).padStart(2, '0')}-${step}`;
  for (const which of theme === 'dark' ? (['dark', 'light'] as const) : (['light', 'dark'] as const)) {
    if (which !== theme) {
      // A modal dialog keeps every key to itself: close it, switch, and open it again.
      await around?.close();
      await switchTheme(page, which);
      await around?.reopen();
    }
    fs.mkdirSync(path.join(SHOTS, which), { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, which, `${name}.png`), timeout: TIMEOUTS.ui });
    const report = await screenReport(page, scope);
    for (const problem of report.problems) {
      problems.push(`${which}/${name}: ${problem}`);
      console.log(`screen problem: ${which}/${name}: ${problem}`);
    }
  }
}

/** Expands every collapsed row of a view (a person opens the groups to read the titles). */
async function expandAll(page: Page, view: string): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const collapsed = await viewPane(page, view).locator('.pane-body .monaco-list-row[aria-expanded="false"]').all();
    if (collapsed.length === 0) return;
    for (const row of collapsed) await row.click().catch(() => undefined);
  }
}

before(async () => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  session = await startExtensionSession(
    'newUser',
    { 'workbench.colorTheme': THEMES.dark },
    {
      blank: true,
      prepare: ({ workspace }) => {
        fs.cpSync(FIXTURE, workspace, { recursive: true });
        fs.rmSync(path.join(workspace, 'SOURCES.md'));
        for (const [rel, text] of Object.entries(SOURCES)) {
          fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
          fs.writeFileSync(path.join(workspace, rel), text);
        }
      },
    },
  );
  await session.wb.page.setViewportSize({ width: 1000, height: 760 });
});

after(async () => {
  await session?.close();
});

test("a new user's path at 1,000 px, dark and light: import, task, files, build, meter, Inspector, Which Rules, module memory, export, sync", async (t) => {
  const page = session!.wb.page;
  const { workspace, db } = session!;
  let imported = 0;
  let built = 0;
  // Each step needs the ones before it: after a failure the rest are skipped, not failed again.
  let failed = '';
  const step = (name: string, fn: () => Promise<void>): Promise<void> =>
    t.test(name, { skip: failed ? `"${failed}" failed` : false }, async () => {
      try {
        await fn();
      } catch (error) {
        failed = name;
        throw error;
      }
    });

  await step('the empty Artifacts view offers Import Knowledge…', async () => {
    await openView(page, 'Artifacts');
    const button = viewPane(page, 'Artifacts').locator('.welcome-view-content .monaco-button', { hasText: 'Import Knowledge…' });
    await withFailureScreenshot(page, 'welcome', () => button.waitFor({ state: 'visible', timeout: TIMEOUTS.command }));
    assert.equal(fs.existsSync(db), false, 'no ledger before the import');
    await shoot('empty-artifacts');
    await button.click();
  });

  await step('Import Knowledge… lists the formats found, previews the titles it will add, and reports what it did', async () => {
    await withFailureScreenshot(page, 'import-pick', async () => {
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Import Knowledge' }).waitFor({ state: 'visible' });
      const labels = await waitFor(
        () => page.locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name').allInnerTexts(),
        (l) => l.length >= 4,
        'the detected formats',
      );
      for (const format of ['Cursor rules', 'Copilot instructions']) assert.ok(labels.some((l) => l.trim() === format), `${format} in ${JSON.stringify(labels)}`);
    });
    await shoot('import-formats', { quickInput: true });
    await page.keyboard.press('Enter');
    const preview = (): Promise<{ message: string; detail: string }> => withFailureScreenshot(page, 'import-preview', () => waitForDialog(page));
    const dialog = await preview();
    const will = /It will add (\d+)/.exec(dialog.message);
    assert.ok(will, `the preview says what it will add: ${dialog.message}`);
    imported = Number(will[1]);
    for (const title of SOME_TITLES) assert.ok(dialog.detail.includes(`+ ${title}`), `"+ ${title}" in the preview: ${dialog.detail}`);
    assert.doesNotMatch(dialog.message + dialog.detail, /\b\d+ (added|updated)\b/, 'nothing in the past tense before anything happened');
    await shoot('import-preview', { dialog: true }, {
      close: () => clickDialogButton(page, 'Cancel'),
      reopen: async () => {
        await runCommandForQuickInput(page, 'Context Ledger: Import Knowledge…', 'Import Knowledge');
        await page.keyboard.press('Enter');
        assert.equal((await preview()).message, dialog.message, 'the same preview again');
      },
    });
    await clickDialogButton(page, 'Import');
    const result = await waitForNotification(page, new RegExp(`Context Ledger: added ${imported} in the ledger of workspace from `));
    assert.equal(ledgerRows().length, imported, result);
    await expandAll(page, 'Artifacts');
    await waitForTreeItems(page, 'Artifacts', (all) => SOME_TITLES.slice(0, 3).every((title) => all.some((i) => i.label === title)), TIMEOUTS.command).catch(async () => {
      await expandAll(page, 'Artifacts');
      return waitForTreeItems(page, 'Artifacts', (all) => SOME_TITLES.slice(0, 3).every((title) => all.some((i) => i.label === title)));
    });
    await shoot('imported');
  });

  await step('a new task shows in the Active Task view', async () => {
    await runCommandForQuickInput(page, 'Context Ledger: New task…', 'new task (1/4)');
    await answerInputBox(page, 'new task (1/4)', TASK);
    await answerInputBox(page, 'new task (2/4)', 'Each cron run emits a `cron.run` analytics event with its duration.');
    await answerInputBox(page, 'new task (3/4)', `pkg/analytics/**, ${TS_FILE}`);
    await answerInputBox(page, 'new task (4/4)', 'analytics, scheduler');
    await openView(page, 'Active Task');
    // The title and the description go on over the rows under them, whole and as plain text.
    const items = await waitForTreeItems(page, 'Active Task', (all) => all.map((i) => i.label).join(' ').includes(TASK) && all.some((i) => i.label === 'Stage: plan'));
    assert.ok(items.some((i) => i.label === 'Labels: analytics, scheduler'), JSON.stringify(items));
    assert.match(items.map((i) => i.label).join(' '), /Each cron run emits a cron\.run analytics event/);
    await shoot('task');
  });

  await step('the files opened are tracked', async () => {
    await openFile(page, TS_FILE);
    await openFile(page, GO_FILE);
    await openView(page, 'Tracked Files');
    const names = (i: TreeItem): string => `${i.label} ${i.description}`;
    await waitForTreeItems(page, 'Tracked Files', (all) => all.some((i) => names(i).includes('analytics.go')) && all.some((i) => names(i).includes('cron.e2e.ts')));
    await shoot('files-open');
  });

  await step('Build agent context copies the context of the task and the open files, within the budget', async () => {
    await page.bringToFront();
    await page.evaluate('navigator.clipboard.writeText("")');
    await runCommand(page, 'Context Ledger: Build agent context');
    const note = await waitForNotification(page, /copied the context/);
    const m = /([\d,]+) of ([\d,]+) tokens/.exec(note);
    assert.ok(m, `the notification says the tokens used: ${note}`);
    built = Number(m[1]!.replace(/,/g, ''));
    assert.ok(built > 0 && built <= Number(m[2]!.replace(/,/g, '')), note);
    const text = await waitForClipboard(page, /Analytics Instrumentation/);
    assert.match(text, new RegExp(TASK.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the task is in the context');
    assert.match(text, /TypeScript SDK E2E Tests/, 'the rule for the open e2e test file');
    assert.doesNotMatch(text, /Docs Writing Style/, 'a rule for .mdx docs does not apply to these files');
    await shoot('build');
  });

  await step("the meter's figure is the built context's size", async () => {
    const meter = await waitForStatusBarText(page, /^\d+(\.\d+)?k?\/8k$/);
    const item = page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: meter }).first();
    await item.hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'files in play' }).first();
    const tooltip = await waitFor(() => hover.textContent().then((t) => t ?? '').catch(() => ''), (t) => /of 8,000 tokens/.test(t), 'the meter tooltip');
    const used = Number(/files in play: ([\d,]+) of 8,000 tokens/.exec(tooltip)?.[1]?.replace(/,/g, '') ?? NaN);
    assert.equal(used, built, `the meter (${meter}: ${tooltip.slice(0, 120)}) and the build agree`);
    // The status bar rounds down to a tenth of a thousand: 2,687 → 2.6k.
    assert.equal(meter, `${used < 1000 ? String(used) : `${(Math.floor(used / 100) / 10).toFixed(1).replace(/\.0$/, '')}k`}/8k`);
    await shoot('meter');
    await page.mouse.move(5, 5);
  });

  await step('the meter opens the Context Inspector; its figure and rows are the build', async () => {
    const meterText = (await statusBarTexts(page)).find((s) => /\/8k$/.test(s))!;
    await page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: meterText }).first().locator('a').first().click();
    const frame = await withFailureScreenshot(page, 'inspector', async () => {
      await page.locator('.tab', { hasText: 'Context Inspector' }).first().waitFor({ state: 'visible' });
      return waitFor(() => inspectorFrame(page), (f) => f !== undefined, 'the Context Inspector page', 45_000);
    });
    const rows = await waitFor(
      () => frame!.evaluate<string[]>('[...document.querySelectorAll("#items tbody tr[data-id]")].map((r) => r.innerText.replace(/\\s+/g, " "))'),
      (r) => r.length > 0,
      'the rows of the Inspector',
    );
    const used = Number(await frame!.evaluate<string>('document.getElementById("summary").getAttribute("data-used")'));
    assert.equal(used, built, 'the Inspector shows the size of the built context');
    assert.equal(rows.length, imported, `every artifact is a row: ${rows.length} rows`);
    assert.ok(rows.some((r) => r.includes('Analytics Instrumentation')), rows.join('\n'));
    // One token count everywhere: a row of the sidebar and the Inspector's row for it, given in full, say the same.
    const inspectorTokens = await frame!.evaluate<Record<string, string>>(
      'Object.fromEntries([...document.querySelectorAll("#items tbody tr[data-id]")].filter((r) => r.querySelector(".col-status").textContent.includes("In full")).map((r) => [r.querySelector(".col-title a").textContent.trim(), r.querySelector(".col-tokens").textContent.replace(/[^0-9]/g, "")]))',
    );
    // A row's tooltip gives its tokens (the row is its title): once the tokenizer has loaded (the first build loads it) and the view refreshed.
    const shown = (await treeItems(page, 'Artifacts')).map((i) => i.label).filter((label) => inspectorTokens[label] !== undefined);
    assert.ok(shown.length >= 2, `rows of the Artifacts view the Inspector gives in full: ${JSON.stringify(shown)}`);
    for (const label of shown.slice(0, 2)) {
      const tooltip = await waitFor(() => treeItemTooltip(page, 'Artifacts', label).catch(() => ''), (t) => / [\d,]+ tokens\b/.test(t), `the tokens in the tooltip of "${label}"`, 30_000);
      assert.equal(/ ([\d,]+) tokens\b/.exec(tooltip)![1]!.replace(/,/g, ''), inspectorTokens[label], `tokens of "${label}": ${tooltip.slice(0, 200)}`);
    }
    // Beside the context the build opened: a column of about 320 px.
    await shoot('inspector-beside', { tabs: ['Context Inspector'] });
    // Alone in the editor area (about 650 px): the table's narrow layout.
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Context Ledger: Open Context Inspector');
    await waitFor(() => inspectorFrame(page), (f) => f !== undefined, 'the Context Inspector page again', 45_000);
    await shoot('inspector', { tabs: ['Context Inspector'] });
    await runCommand(page, 'View: Close All Editors');
  });

  await step('Which Rules Apply to This File?, from the editor menu on a vscode-remote: file, answers for the open file', async () => {
    await openFile(page, GO_FILE);
    const menu = await openContextMenu(page, editorTextArea(page), 'editor');
    // code-server serves the file as vscode-remote: (as SSH, WSL, containers and Codespaces do): both entries on a file show.
    assert.ok(menu.includes('Which Rules Apply to This File?'), `editor menu: ${menu.join(' | ')}`);
    assert.ok(menu.some((l) => l.startsWith('Add module memory')), `editor menu: ${menu.join(' | ')}`);
    await clickContextMenuItem(page, 'Which Rules Apply to This File?');
    const report = await waitFor(() => activeEditorText(page), (text) => text.includes('Rule files:') && text.includes(GO_FILE), 'the which-rules report');
    assert.match(report, /fires\s+\.github\/instructions\/analytics\.instructions\.md\s+\(applyTo \*\*\/\*\.go\)/);
    assert.match(report, /fires\s+\.cursor\/rules\/taskfile\.mdc/);
    assert.match(report, /silent\s+\.cursor\/rules\/typescript-e2e-tests\.mdc/);
    await shoot('which-rules');
    await runCommand(page, 'View: Close All Editors');
  });

  await step('Add module memory, from the Explorer menu, saves a memory for the folder that the sidebar shows', async () => {
    await openFile(page, GO_FILE);
    const row = await revealActiveFileInExplorer(page, 'analytics.go');
    const menu = await openContextMenu(page, row, 'Explorer');
    assert.ok(menu.some((l) => l.startsWith('Add module memory')), `Explorer menu: ${menu.join(' | ')}`);
    assert.ok(menu.includes('Which Rules Apply to This File?'), `Explorer menu: ${menu.join(' | ')}`);
    await clickContextMenuItem(page, 'Add module memory');
    await withFailureScreenshot(page, 'module-memory', async () => {
      // The draft opens beside the file, where the editor wraps its lines: read it unwrapped.
      await waitFor(() => activeEditorText(page).then((text) => text.replace(/\n/g, '')), (text) => text.includes('Module: pkg/analytics') && text.includes('paths: [pkg/analytics/**]'), 'the module memory draft');
      await page.keyboard.press('Control+End');
      await page.keyboard.type('Every event is named resource.action; Track never blocks the caller.');
      await page.keyboard.press('Control+S');
      await page.locator('.editor-group-container.active .tab.active.dirty').waitFor({ state: 'detached', timeout: TIMEOUTS.ui });
    });
    const saved = await waitFor(() => Promise.resolve(ledgerRows()), (rows) => rows.some((r) => r.title === 'Module: pkg/analytics'), 'the module memory in the ledger');
    assert.equal(saved.find((r) => r.title === 'Module: pkg/analytics')!.type, 'module_memory');
    await runCommand(page, 'View: Close All Editors');
    await openView(page, 'Artifacts');
    await runCommandForQuickInput(page, 'Context Ledger: Search artifacts…', 'search artifacts');
    await answerInputBox(page, 'search artifacts', 'Module');
    await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.label === 'Module: pkg/analytics'));
    assert.match(await treeItemTooltip(page, 'Artifacts', 'Module: pkg/analytics'), /Paths: pkg\/analytics\/\*\*/);
    await shoot('module-memory');
    await runCommand(page, 'Context Ledger: Clear artifact filter');
  });

  await step('Export to Agent Rules… writes Copilot instructions holding the ledger, the new memory too', async () => {
    await runCommand(page, 'Notifications: Clear All Notifications');
    await runCommandForQuickInput(page, 'Context Ledger: Export to Agent Rules…', 'Export to Agent Rules');
    await shoot('export-pick', { quickInput: true });
    await page.locator('.quick-input-widget .quick-input-box input').fill('Copilot');
    await page.keyboard.press('Enter');
    await waitForNotification(page, /Context Ledger: wrote \d+ Copilot instructions files? \(\d+ artifacts/);
    const folder = path.join(workspace, '.github', 'instructions');
    const written = fs.readdirSync(folder).filter((n) => n.startsWith('context-ledger-'));
    assert.ok(written.length > 0, fs.readdirSync(folder).join(', '));
    const everything = written.map((n) => fs.readFileSync(path.join(folder, n), 'utf8')).join('\n');
    assert.match(everything, /Module: pkg\/analytics/);
    assert.match(everything, /resource\.action/);
    // The team's own instruction files are untouched.
    assert.equal(fs.readFileSync(path.join(folder, 'analytics.instructions.md'), 'utf8'), fs.readFileSync(path.join(FIXTURE, '.github', 'instructions', 'analytics.instructions.md'), 'utf8'));
    await shoot('export');
  });

  await step('Sync Artifact Files finds the files and the ledger in step', async () => {
    await runCommand(page, 'Notifications: Clear All Notifications');
    await runCommand(page, 'Context Ledger: Sync Artifact Files');
    await waitForNotification(page, /Context Ledger: synced .*0 added to the ledger, 0 updated, 0 archived/);
    const folder = path.join(workspace, '.context-ledger', 'artifacts');
    const files = fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.md'));
    assert.equal(files.length, imported + 1, `one file per artifact: ${files.join(', ')}`);
    await shoot('sync');
    assert.match(await readClipboard(page), /Analytics Instrumentation/, 'the context built earlier is still on the clipboard');
  });

  await step('no screen of the walk showed a cut label, literal markup or a clipped control', () => {
    assert.deepEqual(problems, [], `look at ${SHOTS}:\n  ${problems.join('\n  ')}`);
    return Promise.resolve();
  });
});
