/** Small helpers every part of the harness uses. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'shot';
}

/** Text as the workbench shows it: whitespace collapsed, ends trimmed. */
export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
