import * as vscode from 'vscode';

/** Shows a progress notification only when `task` is still running after a second. */
export async function withDelayedProgress<T>(title: string, task: Promise<T>): Promise<T> {
  let done = false;
  const settled = task.finally(() => (done = true));
  const timer = new Promise<void>((resolve) => setTimeout(resolve, 1000));
  await Promise.race([settled.then(() => undefined, () => undefined), timer]);
  if (done) return settled;
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Context Ledger: ${title}` }, () => settled);
}
