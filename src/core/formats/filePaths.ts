/**
 * Workspace-relative file paths as the importers read them. Kept apart from common.ts (which
 * loads the YAML parser) so that the build can tell a rule file's kind from its path without
 * loading a parser.
 */

/** Forward slashes, no `./` prefix, no duplicate or trailing slashes. */
export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .replace(/\/$/, '');
}

export function baseName(path: string): string {
  const normalized = normalizePath(path);
  const slash = normalized.lastIndexOf('/');
  return slash < 0 ? normalized : normalized.slice(slash + 1);
}

export function dirName(path: string): string {
  const normalized = normalizePath(path);
  const slash = normalized.lastIndexOf('/');
  return slash < 0 ? '' : normalized.slice(0, slash);
}
