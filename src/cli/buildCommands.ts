import type { Command } from './commands';

/** `build` and `explain` arrive with the assembler. */
export const BUILD_COMMANDS: readonly Command[] = [];
