/**
 * A multi-root workspace in a real code-server + Chromium: two folders, each with its own
 * ledger. The Artifacts view shows each folder's knowledge under the folder's name, and
 * "Build agent context" uses the ledger of the folder the active editor is in.
 * Screenshots land in test-output/e2e/multi-root/.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  OUTPUT_DIR,
  activeEditorTitle,
  openFile,
  openView,
  openWorkbench,
  packageExtension,
  runCli,
  runCommand,
  screenshot,
  seedSampleWorkspace,
  startCodeServer,
  viewPane,
  waitFor,
  waitForClipboard,
  waitForTreeItems,
} from './harness';
import type { CodeServer, Workbench } from './harness';

const FERRY_RULE = 'Timetables are UTC in storage — Fahrplan';
const HARBOR_RULE = 'Never log card numbers or CVCs';
const shots = path.join(OUTPUT_DIR, 'multi-root');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-multi-root-'));
let server: CodeServer | undefined;
let wb: Workbench | undefined;

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  const vsix = packageExtension();
  const { workspace: harbor } = seedSampleWorkspace(tmp);
  const ferry = path.join(tmp, 'ferry');
  fs.mkdirSync(path.join(ferry, 'src'), { recursive: true });
  fs.mkdirSync(path.join(ferry, '.context-ledger'));
  fs.writeFileSync(path.join(ferry, 'src', 'timetable.ts'), 'export const departures: string[] = [];\n');
  runCli(['add', '--type', 'constitution', '--title', FERRY_RULE, '--body', 'Store departure times in UTC; convert only for display.', '--db', path.join(ferry, '.context-ledger', 'ledger.db')]);
  const workspaceFile = path.join(tmp, 'marina.code-workspace');
  fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: harbor, name: 'harbor' }, { path: ferry, name: 'ferry' }] }, null, 2));
  server = await startCodeServer({
    workspace: harbor,
    extensionsDir: path.join(tmp, 'extensions'),
    userDataDir: path.join(tmp, 'user-data'),
    vsixPath: vsix,
    // No auto-inject notices over the views.
    settings: { 'contextLedger.autoInject.enabled': false },
    logFile: path.join(shots, 'code-server.log'),
  });
  wb = await openWorkbench(server.url, workspaceFile, shots);
});

after(async () => {
  await wb?.close();
  await server?.stop();
  if (!process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the Artifacts view shows each folder with its own ledger', async () => {
  const page = wb!.page;
  await openView(page, 'Artifacts');
  const items = await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.label === 'harbor' && i.depth === 1) && all.some((i) => i.label === HARBOR_RULE), 45_000);
  assert.ok(!items.some((i) => i.label === FERRY_RULE), 'the ferry rule is not under harbor');
  // Fold harbor's 22 artifacts away to bring the second folder into view.
  await viewPane(page, 'Artifacts').locator('.monaco-list-row[aria-level="1"]', { hasText: 'harbor' }).first().locator('.monaco-tl-twistie').click();
  const folded = await waitForTreeItems(page, 'Artifacts', (all) => all.some((i) => i.label === 'ferry' && i.depth === 1) && all.some((i) => i.label === FERRY_RULE));
  assert.deepEqual(
    folded.filter((i) => i.depth === 1).map((i) => i.label),
    ['harbor', 'ferry'],
  );
  assert.ok(!folded.some((i) => i.label === HARBOR_RULE), 'harbor is folded');
  await screenshot(page, '01-two-ledgers');
});

test('"Build agent context" uses the ledger of the active editor\'s folder', async () => {
  const page = wb!.page;
  await openFile(page, 'src/timetable.ts');
  await runCommand(page, 'Context Ledger: Build agent context');
  const ferryContext = await waitForClipboard(page, new RegExp(FERRY_RULE));
  assert.ok(!ferryContext.includes(HARBOR_RULE), 'nothing from the harbor ledger');
  // No chat here: the context also opens as a preview named after the folder (and takes the focus).
  await waitFor(() => activeEditorTitle(page), (t) => t.startsWith('Agent context (ferry)'), 'the ferry context preview');
  await screenshot(page, '02-ferry-context');

  await openFile(page, 'src/payments/webhooks.ts');
  await runCommand(page, 'Context Ledger: Build agent context');
  const harborContext = await waitForClipboard(page, new RegExp(HARBOR_RULE));
  assert.ok(!harborContext.includes(FERRY_RULE), 'nothing from the ferry ledger');
  await waitFor(() => activeEditorTitle(page), (t) => t.startsWith('Agent context (harbor)'), 'the harbor context preview');
  await screenshot(page, '03-harbor-context');
});
