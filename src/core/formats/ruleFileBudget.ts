// Apart from ruleExport.ts (and its Markdown parser): the extension's settings read it at activation.

/** Per-file token budget of exported rule files: the CLI's `--budget` and the extension's `contextLedger.export.ruleFileBudget`. */
export const RULE_FILE_BUDGET = { default: 4000, min: 100, max: 1_000_000 } as const;
