/** What the rule-file export tests share: a stand-in tokenizer and an artifact to export. */
import type { ExportableArtifact } from '../../../src/core/formats/ruleExport';

/** A stand-in tokenizer: one token per word or punctuation run. */
export const count = (text: string): number => (text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]+/gu) ?? []).length;

let serial = 0;
/** An active global convention with a fresh id, chain, title and body, changed by `overrides`. */
export function art(overrides: Partial<ExportableArtifact>): ExportableArtifact {
  serial++;
  return {
    id: `id-${serial}`,
    chainId: `chain-${serial}`,
    version: 1,
    type: 'convention',
    scope: 'global',
    paths: [],
    title: `Title ${serial}`,
    body: `Body ${serial}.`,
    status: 'active',
    pinned: false,
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}
