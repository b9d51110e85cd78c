import type { ExclusionReason } from '../assemble/types';

/** Why an artifact was left out, in the words the inspector and the build history show. */
export const EXCLUSION_LABELS: Readonly<Record<ExclusionReason, string>> = {
  budget: 'did not fit the budget',
  gated: 'its conditions do not match',
  superseded: 'superseded by a newer artifact',
  'older-version': 'an older version of its chain',
  'below-threshold': 'below the relevance threshold',
  archived: 'archived',
  'other-task': 'belongs to another task',
  'path-mismatch': 'its paths match no active file',
  unreviewed: 'agent-written, held until a person approves it',
  duplicate: 'says what an artifact in the context says',
  given: 'the reader already has it',
};
