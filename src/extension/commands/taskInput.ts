/** What the "New task" inputs turn into, vscode-free. */
import * as path from 'node:path';

/** Comma- or newline-separated values, trimmed, empties and duplicates dropped. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((v) => v.trim()).filter(Boolean))];
}

/** A task's description with the paths it names (the assembler reads paths from the task text). */
export function describeTask(description: string, paths: readonly string[]): string {
  const text = description.trim();
  if (paths.length === 0) return text;
  return [text, `Paths: ${paths.join(', ')}`].filter(Boolean).join('\n\n');
}

/** Workspace-relative paths a person typed: forward slashes, no leading `./`, never outside the folder. */
export function checkTaskPaths(paths: readonly string[]): string | undefined {
  for (const p of paths) {
    if (path.posix.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p)) return `"${p}" is absolute: give paths relative to the workspace folder, e.g. src/payments/**.`;
    if (p.split(/[\\/]/).includes('..')) return `"${p}" leaves the workspace folder.`;
  }
  return undefined;
}
