/**
 * A module loaded on first use: `lazily(() => import('./x'))`. esbuild keeps a module reached
 * only through `import()` from running (and its libraries from loading) until it is called,
 * so what activation pulls in stays small: the start-up bench (test/bench/startup.mjs) measures it.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
