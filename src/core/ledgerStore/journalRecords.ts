import { type Artifact, isArtifactType, isScope, isStatus, isTokenizerName } from '../model';
import { contentHash } from '../tokens';
import type { ArtifactJournalRecord } from './artifacts';
import type { TokensJournalRecord, VectorsJournalRecord } from './derivedCaches';
import type { BuildJournalRecord } from './feedback';

/**
 * A record of the append-only journal earlier versions kept beside the database: what a
 * logged build recorded (its log row, injection counts and the token counts it made) and a
 * new artifact. This version writes none; the migration replays an old one
 * (`LedgerStore.applyLegacyJournal`).
 */
export type JournalRecord = ArtifactJournalRecord | VectorsJournalRecord | BuildJournalRecord | TokensJournalRecord;

const isString = (v: unknown): v is string => typeof v === 'string';

/** Whether `value` is a record an earlier version's journal held, whole and well-typed (a damaged line is not). */
export function isJournalRecord(value: unknown): value is JournalRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (record.op === 'injected') return Array.isArray(record.ids) && record.ids.every(isString);
  if (record.op === 'artifact') return isJournaledArtifact(record.artifact);
  if (record.op === 'vectors') {
    const isByte = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;
    return (
      Number.isSafeInteger(record.firstTerm) && (record.firstTerm as number) >= 0 &&
      Array.isArray(record.terms) && record.terms.every(isString) &&
      Array.isArray(record.vectors) &&
      record.vectors.every((v) => Array.isArray(v) && v.length === 3 && isString(v[0]) && isString(v[1]) && Array.isArray(v[2]) && v[2].every(isByte))
    );
  }
  if (record.op === 'tokens') {
    return (
      Array.isArray(record.counts) &&
      record.counts.every((c) => Array.isArray(c) && c.length === 3 && isString(c[0]) && isTokenizerName(c[1]) && isNumber(c[2]) && c[2] >= 0)
    );
  }
  if (record.op !== 'log' || record.entry === null || typeof record.entry !== 'object') return false;
  const e = record.entry as Record<string, unknown>;
  return (
    isString(e.at) && (e.taskId === null || isString(e.taskId)) && isNumber(e.budget) && isNumber(e.tokensUsed) && isTokenizerName(e.tokenizer) &&
    isNumber(e.candidates) && isNumber(e.durationMs) && isString(e.outputHash) && isString(e.trigger)
  );
}

/**
 * Whether a journal's artifact is one `createArtifact` wrote: every field of its type,
 * and a body that still has its content hash (a damaged or edited line is not replayed).
 */
function isJournaledArtifact(value: unknown): value is Artifact {
  if (value === null || typeof value !== 'object') return false;
  const a = value as Record<string, unknown>;
  const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every(isString);
  const isObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);
  const conditions = a.conditions as Record<string, unknown> | null;
  return (
    isString(a.id) && a.id !== '' && !/\s/.test(a.id) && isString(a.chainId) && a.chainId !== '' &&
    Number.isSafeInteger(a.version) && (a.version as number) >= 1 &&
    isArtifactType(a.type) && isScope(a.scope) && isStatus(a.status) &&
    (a.taskId === null || isString(a.taskId)) && (a.summary === null || isString(a.summary)) && (a.supersedes === null || isString(a.supersedes)) &&
    isStrings(a.paths) && isStrings(a.tags) && isString(a.title) && isString(a.body) && typeof a.pinned === 'boolean' &&
    isString(a.source) && isString(a.createdAt) && isString(a.updatedAt) && isObject(a.extra) &&
    isObject(conditions) && isStrings(conditions!.labels) && isStrings(conditions!.keywords) && isStrings(conditions!.paths) &&
    a.contentHash === contentHash(a.body)
  );
}
