/**
 * Workspace-relative file paths as the importers read them, and the `import:<format>:<path>`
 * source that names an imported artifact's file. Kept apart from common.ts (which loads the
 * YAML parser) so that the build can tell a rule file's kind from its source without loading
 * a parser.
 */
/** `import:<format>:<path>` (what `importSource` in common.ts writes) → its format and path (the path may be empty); null for a source that is not an import. */
export function parseImportSource(source: string): { format: string; path: string } | null {
  const match = /^import:([a-z-]+):(.*)$/.exec(source);
  return match ? { format: match[1]!, path: match[2]! } : null;
}

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
