/**
 * Inbox files: an agent without tools drops JSON into `.context-ledger/inbox/` — one
 * artifact, a list, or `{ "artifacts": [...], "decision": {...} }` (the decision block
 * of the InDusk seed's decision.json). Each artifact is validated exactly as the
 * create_artifact tool validates its input, and a file applies whole or not at all.
 * Pure: the caller reads and moves files (src/node/inbox.ts).
 */
import { type AgentToolEnv, createArtifactTool, type CreateArtifactInput, formatIssues, recordAgentArtifact } from './agentTools';
import { type Artifact, UserError } from './model';
import type { LedgerStore } from './store';

/** Larger than any sensible batch of one-fact artifacts; stops a runaway agent from filling memory. */
export const MAX_INBOX_FILE_BYTES = 512 * 1024;
export const MAX_INBOX_ARTIFACTS = 100;
const MAX_DECISION_CHARS = 4_000;

export interface InboxDecision {
  decision: string;
  feedback?: string;
}

export interface ParsedInboxFile {
  artifacts: CreateArtifactInput[];
  decision?: InboxDecision;
  /** Fields present in the file that agents may not set (ids, status, pinned, source, ...); they were ignored. */
  ignoredFields: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parseDecision(value: unknown): InboxDecision {
  const block = typeof value === 'string' ? { decision: value } : value;
  if (!isRecord(block) || typeof block.decision !== 'string' || block.decision.trim() === '') {
    throw new UserError('"decision" must be a string or an object like {"decision": "approve", "feedback": "..."}.');
  }
  if (block.feedback !== undefined && typeof block.feedback !== 'string') throw new UserError('"decision.feedback" must be a string.');
  const text = `${block.decision}${typeof block.feedback === 'string' ? block.feedback : ''}`;
  if (text.length > MAX_DECISION_CHARS) throw new UserError(`the decision block is longer than ${MAX_DECISION_CHARS} characters.`);
  return { decision: block.decision.trim(), ...(typeof block.feedback === 'string' ? { feedback: block.feedback } : {}) };
}

const ARTIFACT_KEYS = new Set(Object.keys(createArtifactTool.inputSchema.shape));
/** Unknown fields in a file are reported (ignoredFields), not fatal: a file is not a model that can retry. */
const inboxArtifactSchema = createArtifactTool.inputSchema.strip();

/** Reads and validates an inbox file's text; throws UserError saying what is wrong and where. */
export function parseInboxFile(text: string, bytes = new TextEncoder().encode(text).length): ParsedInboxFile {
  if (bytes > MAX_INBOX_FILE_BYTES) {
    throw new UserError(`The file is ${bytes} bytes; an inbox file may hold at most ${MAX_INBOX_FILE_BYTES}. Split it into several files.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UserError(`The file is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
  let items: unknown[];
  let decision: InboxDecision | undefined;
  if (Array.isArray(value)) {
    items = value;
  } else if (isRecord(value)) {
    // decision.json's own shape puts "feedback" beside a string "decision".
    const flat = typeof value.decision === 'string';
    if (value.decision !== undefined) decision = parseDecision(flat ? { decision: value.decision, feedback: value.feedback } : value.decision);
    if (value.artifacts !== undefined) {
      if (!Array.isArray(value.artifacts)) throw new UserError('"artifacts" must be a list of artifacts.');
      items = value.artifacts;
    } else if (value.artifact !== undefined) {
      items = [value.artifact];
    } else if (value.title !== undefined || value.body !== undefined || value.type !== undefined) {
      const { decision: _decision, ...artifact } = value;
      if (flat) delete artifact.feedback;
      items = [artifact];
    } else {
      items = [];
    }
  } else {
    throw new UserError('The file must hold an artifact object, a list of them, or {"artifacts": [...], "decision": {...}}.');
  }
  if (items.length === 0 && !decision) throw new UserError('The file holds no artifacts and no decision.');
  if (items.length > MAX_INBOX_ARTIFACTS) throw new UserError(`The file holds ${items.length} artifacts; at most ${MAX_INBOX_ARTIFACTS} per file.`);
  const ignored = new Set<string>();
  const artifacts = items.map((item, index) => {
    if (isRecord(item)) for (const key of Object.keys(item)) if (!ARTIFACT_KEYS.has(key)) ignored.add(key);
    const parsed = inboxArtifactSchema.safeParse(item);
    if (!parsed.success) {
      const where = items.length === 1 && !Array.isArray(value) ? 'The artifact' : `Artifact ${index + 1} of ${items.length}`;
      throw new UserError(`${where} is invalid. ${formatIssues('the inbox', parsed.error).split('\n').slice(1, -1).join(' ')}`);
    }
    return parsed.data as CreateArtifactInput;
  });
  return { artifacts, ...(decision ? { decision } : {}), ignoredFields: [...ignored].sort() };
}

/**
 * Applies a parsed file in one transaction: every artifact is recorded unreviewed
 * (channel "inbox") and the decision becomes a note on the active task — or, on any
 * error, nothing is.
 */
export function applyInboxFile(
  store: LedgerStore,
  parsed: ParsedInboxFile,
  env: Pick<AgentToolEnv, 'agent' | 'workspaceRoot'> & { file?: string },
): Artifact[] {
  return store.transaction(() => {
    const created = parsed.artifacts.map((input, index) => {
      try {
        return recordAgentArtifact(store, { ...env, channel: 'inbox' }, input);
      } catch (error) {
        if (error instanceof UserError && parsed.artifacts.length > 1) {
          throw new UserError(`Artifact ${index + 1} of ${parsed.artifacts.length}: ${error.message}`, error.hint);
        }
        throw error;
      }
    });
    if (parsed.decision) {
      const task = store.getActiveTask();
      if (!task) throw new UserError('The file has a decision block, but no task is active to record it on.', 'Activate the task, then drop the file again.');
      store.addTaskEvent(task.id, 'note', { kind: 'decision', ...parsed.decision, via: 'inbox', ...(env.file ? { file: env.file } : {}) });
    }
    return created;
  });
}
