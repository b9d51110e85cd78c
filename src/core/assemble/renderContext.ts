import { type Build, previewOf, rendered } from './blocks';
import type { CompressedBlock } from './compressLeftover';
import type { PackEntry } from './pack';
import type { Packing } from './packing';
import { type SectionKey, fullBlock, previewBlock, renderDocument, titleLine } from './render';

/** Which optional fixed texts the document still carries (degradation drops them last but rules). */
export interface Extras {
  workflow: boolean;
  instructions: boolean;
}

/**
 * The rendering stage: every entry at its level in its section (title lines under "Also
 * noted"), live sources, workflow memory and recording instructions, as one Markdown document.
 */
export function renderContext(build: Build, packing: Packing, compressed: ReadonlyMap<PackEntry, CompressedBlock>, extras: Extras): string {
  const { brief, allEntries, entryOf, liveEntries, livePlan } = packing;
  const sections = new Map<SectionKey, string[]>();
  const push = (key: SectionKey, block: string): void => {
    const list = sections.get(key);
    if (list) list.push(block);
    else sections.set(key, [block]);
  };
  if (brief.level > 0) push('brief', brief.level === 3 ? brief.full : brief.title);
  for (const entry of allEntries) {
    if (entry.level === 0) continue;
    const c = entryOf.get(entry)!;
    const { title, memo } = rendered(build, c.artifact);
    if (entry.level === 1) push('noted', titleLine(c.artifact, title));
    else if (entry.level === 2) push(entry.section, compressed.get(entry)?.block ?? previewBlock(c.artifact, title, previewOf(build, c.artifact, memo)));
    else push(entry.section, fullBlock(c.artifact, title, memo.body));
  }
  for (const entry of liveEntries) {
    const shown = livePlan!.rendered(entry);
    if (shown) push(shown.section, shown.block);
  }
  if (extras.workflow) push('workflow', packing.workflow.text);
  if (extras.instructions) push('instructions', packing.instructions.text);
  return renderDocument(sections);
}
