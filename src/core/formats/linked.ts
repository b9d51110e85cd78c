/**
 * Linked sources: an imported artifact remembers the file and section it came from and
 * what that section said (the recorded `linked` field, src/core/artifactSchema.ts), so a re-import or refresh compares against the
 * source, never against the ledger's latest version.
 *
 * The rules, in one place:
 * - The source did not change → nothing changes, whatever the ledger did meanwhile (pin,
 *   archive, review, feedback, an edit): those are the ledger's.
 * - The source changed and nobody edited the artifact in the ledger → a new version with
 *   the source's text. Status and pin follow the source only where the source changed them
 *   (an ADR now Deprecated); otherwise the ledger's (a pin, an archive) are kept.
 * - The source changed and a person edited the artifact in the ledger → the person's
 *   version stays, and the artifact is detached from its file with a note saying so: the
 *   ledger never reverts an edit in silence. A detached artifact is left alone by imports.
 * - A section (or file) gone from the source → its artifact is archived, unless a person
 *   edited it (then it is detached and kept).
 */
import { recordedOf, type SourceLink } from '../artifactSchema';
import type { Artifact, ArtifactInput } from '../model';
import type { LedgerStore } from '../store';
import { parseImportSource, shortHash } from './common';

export type { SourceLink };

export type LinkedOutcome = 'added' | 'updated' | 'unchanged' | 'detached' | 'removed';

/** One entry an import changed (or would change), and why. */
export interface LinkedChange {
  id: string;
  title: string;
  file: string;
  outcome: LinkedOutcome;
  reason: string;
}

const CONTENT_FIELDS = ['type', 'scope', 'taskId', 'paths', 'title', 'body', 'summary', 'tags', 'conditions'] as const;

/** Hash of an artifact's content fields (what a person edits). */
export function contentHashOf(artifact: Artifact): string {
  return shortHash(JSON.stringify(CONTENT_FIELDS.map((field) => artifact[field])), 16);
}

/** `import:<format>:<path>` → `<path>`; null for anything not imported. */
export function fileOfSource(source: string): string | null {
  const file = parseImportSource(source)?.path;
  return file === undefined || file === '' ? null : file;
}

export function linkOf(artifact: Artifact): SourceLink | null {
  return artifact.linked ?? null;
}

function linkFor(store: LedgerStore, input: ArtifactInput): SourceLink {
  const normalized = store.normalizeInput({ ...input, extra: {} });
  const wrote = contentHashOf(normalized);
  return {
    file: fileOfSource(normalized.source) ?? normalized.source,
    section: normalized.title,
    hash: shortHash(JSON.stringify([wrote, normalized.status, normalized.pinned]), 16),
    wrote,
    status: normalized.status,
    pinned: normalized.pinned,
  };
}

/** `input` linked to its source, keeping what `latest` (the ledger's version) records and keeps beside it. */
function withLink(input: ArtifactInput, link: SourceLink, latest?: Artifact): ArtifactInput {
  return { ...(latest ? recordedOf(latest) : {}), ...input, extra: { ...(latest?.extra ?? {}), ...(input.extra ?? {}) }, linked: link };
}

/** The artifact of `id` as the ledger has it now (its chain's latest version), if any. */
function latestOf(store: LedgerStore, id: string): Artifact | undefined {
  const known = store.getArtifact(id);
  return known ? store.latestOfChain(known.chainId) : undefined;
}

/**
 * Applies parsed inputs to the store by the rules above. `covered` says which imported
 * sources this import read in full (files of the formats and folder asked for): linked
 * artifacts from those files that no input names any more are removed from the source.
 */
export function applyLinked(
  store: LedgerStore,
  inputs: readonly ArtifactInput[],
  covered: (file: string, source: string) => boolean,
  now: () => string,
): LinkedChange[] {
  const changes: LinkedChange[] = [];
  const seen = new Set<string>();
  store.transaction(() => {
    for (const input of inputs) {
      const link = linkFor(store, input);
      const latest = input.id === undefined ? undefined : latestOf(store, input.id);
      const change = (outcome: LinkedOutcome, reason: string, id = latest?.id ?? input.id ?? ''): void => {
        changes.push({ id, title: input.title, file: link.file, outcome, reason });
      };
      if (!latest) {
        const { artifact } = store.importArtifact(withLink(input, link));
        seen.add(artifact.chainId);
        change('added', `new in ${link.file}`, artifact.id);
        continue;
      }
      seen.add(latest.chainId);
      const before = linkOf(latest);
      if (before?.detached) {
        change('unchanged', `detached from ${before.file} (${before.detached.reason}); left alone`);
        continue;
      }
      const edited = contentHashOf(latest) !== (before?.wrote ?? link.wrote);
      if (before && before.hash === link.hash) {
        change('unchanged', 'source unchanged');
        continue;
      }
      if (!before) {
        // Imported before links were kept: what the ledger holds is compared with the
        // source once, and the link recorded from then on.
        const sameAsSource = !edited;
        const sourceInHistory = sameAsSource || store.history(latest.id).some((v) => contentHashOf(v) === link.wrote);
        if (sourceInHistory) {
          store.setRecorded(latest.id, { linked: link });
          change('unchanged', sameAsSource ? 'source unchanged' : 'source unchanged; the ledger keeps its edit');
          continue;
        }
      } else if (edited) {
        const reason = `edited in the ledger while ${link.file} changed: the ledger's version is kept`;
        store.setRecorded(latest.id, { linked: { ...before, detached: { at: now(), reason } } });
        change('detached', reason);
        continue;
      }
      // The source changed: its text, with status and pin from the source only where the source changed them.
      const status = before && before.status === link.status ? latest.status : link.status;
      const pinned = before && before.pinned === link.pinned ? latest.pinned : link.pinned;
      const merged = withLink(
        { ...input, status: status as ArtifactInput['status'], pinned, supersedes: input.supersedes ?? latest.supersedes },
        link,
        latest,
      );
      const { outcome, artifact } = store.importArtifact(merged);
      if (outcome === 'unchanged' || artifact.id === latest.id) store.setRecorded(artifact.id, { ...recordedOf(merged), extra: merged.extra ?? {} });
      const what = !before ? 'differs from the ledger (linked from now on)' : contentHashOf(latest) === link.wrote ? 'status or pin changed' : 'changed';
      change('updated', `${what} in ${link.file}`, artifact.id);
    }

    for (const artifact of store.latestArtifacts()) {
      const link = linkOf(artifact);
      if (!link || link.detached || seen.has(artifact.chainId) || artifact.status !== 'active') continue;
      if (!covered(link.file, artifact.source)) continue;
      const entry = { id: artifact.id, title: artifact.title, file: link.file };
      if (contentHashOf(artifact) !== link.wrote) {
        const reason = `gone from ${link.file} but edited in the ledger: kept, detached`;
        store.setRecorded(artifact.id, { linked: { ...link, detached: { at: now(), reason } } });
        changes.push({ ...entry, outcome: 'detached', reason });
      } else {
        store.archive(artifact.id);
        changes.push({ ...entry, outcome: 'removed', reason: `gone from ${link.file}: archived` });
      }
    }
  });
  return changes;
}
