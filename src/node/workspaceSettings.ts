import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, type ParseError } from 'jsonc-parser';

/**
 * One setting from a workspace's `.vscode/settings.json` (JSON with comments and trailing
 * commas, as VS Code writes it), for tools that run outside the editor and should agree
 * with it. A missing or malformed file reads as no setting: the caller's default stands.
 */
export function readWorkspaceSetting(root: string, key: string): unknown {
  let text: string;
  try {
    const file = path.join(root, '.vscode', 'settings.json');
    if (fs.statSync(file).size > 1024 * 1024) return undefined;
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length > 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
