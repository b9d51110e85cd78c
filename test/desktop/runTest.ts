/**
 * `npm run test:desktop`: the same extension in a downloaded desktop VS Code, through
 * @vscode/test-electron. For machines that can reach the VS Code download host; the
 * e2e suite (code-server + Chromium, test/e2e) is what .ci/run uses, and nothing there
 * depends on this.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..', '..');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'desktop-test-'));
  const workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(root, 'sample', 'workspace'), workspace, { recursive: true });
  fs.rmSync(path.join(workspace, '.context-ledger'), { recursive: true, force: true });
  fs.rmSync(path.join(workspace, '.github'), { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, '.context-ledger'));
  execFileSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'import', path.join(root, 'sample', 'knowledge.jsonl'), '--db', path.join(workspace, '.context-ledger', 'ledger.db')], { stdio: 'inherit' });
  try {
    await runTests({
      version: process.env.VSCODE_VERSION ?? '1.100.3',
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(__dirname, 'suite'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
