/**
 * Where the editor reads the chat instructions and prompt files this extension ships
 * (package.json `contributes.chatInstructions` / `chatPromptFiles`, files under
 * media/chat/), the agent is told to fetch the ledger's context through the
 * `contextLedger_buildContext` tool, so auto-inject needs no file in the repository.
 * Contribution points cannot be asked for at run time, so this compares the editor's
 * version with the oldest one where the contribution was seen reaching the chat in the
 * e2e suite (test/e2e/chat.test.ts). Older editors ignore the contribution and get the
 * written instructions file as before. vscode-free, so the comparison is unit-tested.
 */

/** The oldest VS Code seen to load `contributes.chatInstructions` (code-server 4.139.1); 1.100 has no such point. */
export const CONTRIBUTED_INSTRUCTIONS_SINCE = '1.139.0';

/** Major, minor, patch of a VS Code version string ("1.139.1", "1.140.0-insider"); undefined when it is not one. */
function parseVersion(version: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * Whether an editor of `version` reads the contributed instructions. An unparseable
 * version counts as "no": writing the file is the behaviour that works everywhere.
 */
export function editorReadsContributedInstructions(version: string): boolean {
  const have = parseVersion(version);
  const need = parseVersion(CONTRIBUTED_INSTRUCTIONS_SINCE)!;
  if (!have) return false;
  for (let i = 0; i < 3; i++) {
    if (have[i]! !== need[i]!) return have[i]! > need[i]!;
  }
  return true;
}
