/**
 * End-to-end harness: a real VS Code (code-server 4.100.3 = VS Code 1.100.3, or the
 * current release with E2E_VSCODE=current) in Debian's Chromium, driven by
 * playwright-core. `scripts/setup-e2e.sh` installs them.
 *
 * Typical use (node:test):
 *   const server = await startCodeServer({ workspace, extensionsDir, userDataDir, vsixPath });
 *   const wb = await openWorkbench(server.url, workspace);
 *   await runCommand(wb.page, 'Context Ledger: Do Something');
 *   await wb.close(); await server.stop();
 */
export * from './harness/paths';
export * from './harness/codeServer';
export * from './harness/screenshots';
export * from './harness/workbench';
export * from './harness/ui';
export * from './harness/packaging';
export * from './harness/session';
export * from './harness/screenChecks';
