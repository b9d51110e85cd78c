// Apart from detect.ts, which loads every parser: a file watcher needs only the glob.

/**
 * Every file name a knowledge file of some format can have (rules are `.md`, `.mdc` or
 * Cline's `.txt` and `.markdown`; legacy rule files have no extension; Roo Code reads any text
 * file of its rule folders), as one glob: the coarse filter
 * a file watcher needs. `formatOf` stays the one judge of what a path is; a unit test
 * checks that every path it accepts matches this glob.
 */
export const KNOWLEDGE_FILE_GLOB =
  '**/{*.md,*.MD,*.mdc,*.txt,*.markdown,*.xml,.cursorrules,.clinerules,.windsurfrules,.roorules,.roorules-*,.augment-guidelines,.rules,.roo/rules/**,.roo/rules-*/**}';
