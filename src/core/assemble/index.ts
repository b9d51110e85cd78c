/**
 * The context assembler: the one path by which every surface (CLI, command, status bar,
 * auto-inject, language-model tool, MCP server) turns the ledger into agent context.
 */
export { assembleContext, pathsInText } from './assemble';
export { fullCostOf } from './blocks';
export { renderExplain, toContractJson } from './explain';
export { DEFAULT_ASSEMBLE_OPTIONS, DEFAULT_BUDGET, MAX_BUDGET, MEANING_OFF, MEANING_ON, resolveOptions, validateBudget } from './options';
export { redactOutgoing, redactSecrets, type RedactionPolicy, type RedactionResult } from './redact';
export type {
  AssembleOptions,
  AssembleRequest,
  AssembleResult,
  AssembleTask,
  ExcludedItem,
  ExclusionReason,
  ItemMode,
  Layer,
  PartialOptions,
  ResultItem,
  ScoreComponents,
  ScoreWeights,
} from './types';
export { LAYERS } from './types';
