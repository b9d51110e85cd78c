import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormats, formatOf, importDetected } from '../../../src/core/formats/detect';

describe('detectFormats', () => {
  it('groups the files of a workspace by the format that imports them', () => {
    const detected = detectFormats([
      '.context/DECISIONS.md',
      '.context/LEARNINGS.md',
      '.context/decisions/cli.md',
      '.context/AGENT_PLAYBOOK.md',
      '.context/journal/2026-01-01.md',
      'docs/adrs/adr_0001.md',
      'docs/adrs/README.md',
      'doc/architecture/decisions/0002-use-x.md',
      'docs/decisions/0003-madr.md',
      '.github/copilot-instructions.md',
      '.github/instructions/ts.instructions.md',
      '.cursor/rules/react.mdc',
      'CLAUDE.md',
      'AGENTS.md',
      'packages/api/AGENTS.md',
      '.clinerules/product.md',
      'node_modules/pkg/AGENTS.md',
      '.context-ledger/mirror/adr/x.md',
      'src\\index.ts',
      'README.md',
    ]);
    assert.deepEqual(detected, [
      { format: 'ctx', files: ['.context/DECISIONS.md', '.context/LEARNINGS.md', '.context/decisions/cli.md'] },
      { format: 'adr', files: ['doc/architecture/decisions/0002-use-x.md', 'docs/adrs/adr_0001.md', 'docs/decisions/0003-madr.md'] },
      { format: 'copilot', files: ['.github/copilot-instructions.md', '.github/instructions/ts.instructions.md'] },
      { format: 'cursor', files: ['.cursor/rules/react.mdc'] },
      { format: 'claude', files: ['CLAUDE.md'] },
      { format: 'agents-md', files: ['AGENTS.md', 'packages/api/AGENTS.md'] },
      { format: 'cline', files: ['.clinerules/product.md'] },
    ]);
  });

  it('returns nothing for an empty or unrelated list', () => {
    assert.deepEqual(detectFormats([]), []);
    assert.deepEqual(detectFormats(['src/a.ts', 'docs/guide.md', '../../etc/passwd']), []);
    assert.equal(formatOf('docs/adrs/notes.md'), null);
  });
});

describe('importDetected', () => {
  it('imports each .context folder with its own id prefix', () => {
    const result = importDetected('ctx', [
      { path: '.context/DECISIONS.md', content: '## [2026-01-01-000000] Root\n\nA\n' },
      { path: 'packages/api/.context/DECISIONS.md', content: '## [2026-01-01-000000] Nested\n\nB\n' },
    ]);
    assert.deepEqual(
      result.artifacts.map((a) => [a.id, a.source]),
      [
        ['ctx-dec-2026-01-01-000000', 'import:ctx:.context/DECISIONS.md'],
        ['ctx-packages-api-dec-2026-01-01-000000', 'import:ctx:packages/api/.context/DECISIONS.md'],
      ],
    );
  });

  it('dispatches ADRs and rule files', () => {
    assert.equal(importDetected('adr', [{ path: 'docs/adr/0001-x.md', content: '# 1. X\n\nx' }]).artifacts[0]!.id, 'adr-0001');
    assert.equal(importDetected('claude', [{ path: 'CLAUDE.md', content: 'Be brief.' }]).artifacts[0]!.id, 'claude-md');
  });
});
