import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CODEX_PROJECT_DOC_BYTES, cappedParts, nativelyLoaded } from '../../../src/core/hooks/nativeLoading';
import type { Artifact } from '../../../src/core/model';

function artifact(source: string, body = 'text', extra: Partial<Artifact> = {}): Artifact {
  return { id: source, chainId: source, source, body, title: 't', type: 'convention', scope: 'global', paths: [], status: 'active', pinned: false, tags: [], ...extra } as unknown as Artifact;
}

test('Claude Code: the root CLAUDE.md, .claude/rules and the CLAUDE.md of a folder in play are its own; Cursor, Copilot, AGENTS.md and ledger knowledge are not', () => {
  const native = nativelyLoaded({ agent: 'claude-code', cwd: '', paths: ['src/api/users.ts'] });
  assert.match(native(artifact('import:claude:CLAUDE.md'))!, /Claude Code loads CLAUDE.md itself/);
  assert.ok(native(artifact('import:claude:.claude/rules/testing.md')));
  assert.ok(native(artifact('import:claude:src/api/CLAUDE.md')), 'the folder of a file in play');
  assert.equal(native(artifact('import:claude:docs/CLAUDE.md')), undefined, 'a folder nothing in play is in');
  assert.equal(native(artifact('import:cursor:.cursor/rules/payments.mdc')), undefined);
  assert.equal(native(artifact('import:copilot:.github/instructions/api.instructions.md')), undefined);
  assert.equal(native(artifact('import:agents-md:AGENTS.md')), undefined);
  assert.equal(native(artifact('agent:claude')), undefined);
  assert.equal(native(artifact('import:cursor:CLAUDE.md')), undefined, 'a source whose format does not fit its file is not trusted');
});

test('Codex: AGENTS.md up to its 32 KiB cap is its own; the sections past the cap, or cut by it, are the ledger’s to add', () => {
  const head = '# Rules\n\nUse pnpm.\n\n';
  const filler = `## Filler\n\n${'x'.repeat(CODEX_PROJECT_DOC_BYTES)}\n\n`;
  const tail = '## Release\n\nTag releases from main only — ünïcode.\n';
  const file = `${head}${filler}${tail}`;
  const parts = cappedParts([{ path: 'AGENTS.md', text: file }]);
  const native = nativelyLoaded({ agent: 'codex', cwd: '', paths: [], loadedPart: (p) => parts.get(p) });
  assert.ok(native(artifact('import:agents-md:AGENTS.md', 'Use pnpm.')), 'before the cap');
  assert.equal(native(artifact('import:agents-md:AGENTS.md', 'Tag releases from main only — ünïcode.')), undefined, 'past the cap');
  assert.equal(native(artifact('import:agents-md:AGENTS.md', `${'x'.repeat(CODEX_PROJECT_DOC_BYTES)}`)), undefined, 'cut by the cap');
  assert.equal(native(artifact('import:claude:CLAUDE.md')), undefined, 'Codex does not read CLAUDE.md');
  assert.equal(native(artifact('import:agents-md:pkg/AGENTS.md', 'Use pnpm.')), undefined, 'below its folder: not loaded');
});

test('the cap is shared by the files from the root down and cut on a character boundary', () => {
  const parts = cappedParts(
    [
      { path: 'AGENTS.md', text: 'é'.repeat(10) },
      { path: 'pkg/AGENTS.md', text: 'ü'.repeat(10) },
      { path: 'pkg/sub/AGENTS.md', text: 'never' },
    ],
    25,
  );
  assert.equal(parts.get('AGENTS.md'), 'é'.repeat(10), '20 bytes, whole');
  assert.equal(parts.get('pkg/AGENTS.md'), 'ü'.repeat(2), '5 bytes left: two whole characters, no broken one');
  assert.equal(parts.get('pkg/sub/AGENTS.md'), undefined);
});

test('Gemini CLI loads nothing the ledger imports; Copilot CLI copilot-instructions.md, AGENTS.md and CLAUDE.md, not its path-scoped instructions or Cursor’s', () => {
  assert.equal(nativelyLoaded({ agent: 'gemini-cli', cwd: '', paths: [] })(artifact('import:claude:CLAUDE.md')), undefined);
  const copilot = nativelyLoaded({ agent: 'copilot-cli', cwd: '', paths: [] });
  for (const own of ['import:copilot:.github/copilot-instructions.md', 'import:agents-md:AGENTS.md', 'import:claude:CLAUDE.md']) assert.ok(copilot(artifact(own)), own);
  for (const other of ['import:copilot:.github/instructions/api.instructions.md', 'import:cursor:.cursor/rules/api.mdc']) assert.equal(copilot(artifact(other)), undefined, other);
});
