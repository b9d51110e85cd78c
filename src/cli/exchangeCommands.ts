/**
 * The commands that move knowledge in and out of the ledger as whole files (`import`, `export`)
 * and `count`, which shares their input limits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTokenizerName, TOKENIZERS, UserError } from '../core/model';
import { redactSecrets } from '../core/assemble/redact';
import type { ImportFormat } from '../core/formats/common';
import { artifactsForExport, decodeJsonl, importJsonl, toJsonl } from '../core/jsonl';
import { estimateTokens, TokenCounter } from '../core/tokens';
import { refuseLink } from '../node/persistence/noLinks';
import { readFileBytes, readStdin, readStdinBytes, readTextFile } from '../node/files';
import { stringOption } from './args';
import { type Command, isJson, printJson, withRead, withWrite } from './commandContext';

const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** The folder formats (src/core/formats/common.ts IMPORT_FORMATS), named here so `import` does not load the parsers. */
export const IMPORT_FORMAT_NAMES = 'ctx|adr|copilot|cursor|claude|agents-md|cline|kiro|windsurf|gemini|junie|continue|roo|amazonq|augment|zed|skills';

export const importCommand: Command = {
  name: 'import',
  summary: 'Import artifacts from a JSONL file (one artifact per line). Re-importing is idempotent.',
  usage: `context-ledger import [--db <file>] <artifacts.jsonl|->  |  context-ledger import --from <format> <folder|file>`,
  options: {
    from: { type: 'string', value: `jsonl|${IMPORT_FORMAT_NAMES}`, description: 'The format to read (default: jsonl). Other formats read a folder or one file, like import-folder --from.' },
    'dry-run': { type: 'boolean', description: 'With --from: report what would be imported; write nothing.' },
  },
  positionals: [1, 1],
  details:
    'A known id with unchanged content is left alone; a changed one becomes a new version of its chain.\nBad lines are reported by number and skipped; the good lines still import; the exit code is 1 if any line was bad.\n' +
    'Example: context-ledger import --from adr docs/adr',
  async run(context) {
    const source = context.positionals[0]!;
    // `agents` is the name `export --to` uses for the same format: both are accepted.
    const given = stringOption(context.options, 'from') ?? 'jsonl';
    const from = given === 'agents' ? 'agents-md' : given;
    if (from !== 'jsonl') {
      if (!IMPORT_FORMAT_NAMES.split('|').includes(from)) throw new UserError(`Unknown format "${from}".`, `Use one of: jsonl|${IMPORT_FORMAT_NAMES}.`);
      const { importFolder } = await import('./interopCommands.js');
      return importFolder(context, { target: source, from: from as ImportFormat, dryRun: context.options['dry-run'] === true });
    }
    const resolved = path.resolve(context.cwd, source);
    if (source !== '-' && fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UserError(
        `${resolved} is a folder; without --from, import reads one JSONL file.`,
        `To import what the folder keeps: context-ledger import-folder ${source}  (or import --from <${IMPORT_FORMAT_NAMES}> ${source})`,
      );
    }
    // Decoded line by line: a NUL or a byte that is not UTF-8 costs its own line, not the file.
    const decoded = decodeJsonl(source === '-' ? await readStdinBytes(MAX_IMPORT_BYTES) : readFileBytes(resolved, MAX_IMPORT_BYTES));
    const report = await withWrite(context, (store) => importJsonl(store, decoded.text, decoded.errors));
    const { errors } = report;
    if (isJson(context)) {
      printJson(context, { added: report.added.length, updated: report.updated.length, unchanged: report.unchanged.length, errors });
    } else {
      context.out(`Imported ${source}: ${report.added.length} added, ${report.updated.length} updated, ${report.unchanged.length} unchanged.`);
    }
    if (errors.length > 0) {
      for (const error of errors.slice(0, 20)) context.err(`line ${error.line}: ${error.message}`);
      if (errors.length > 20) context.err(`… and ${errors.length - 20} more bad lines.`);
      context.err(`${errors.length} bad line${errors.length === 1 ? '' : 's'} skipped (lines ${errors.map((e) => e.line).slice(0, 50).join(', ')}).`);
      return 1;
    }
  },
};

export const exportCommand: Command = {
  name: 'export',
  summary: 'Export artifacts as JSONL (every version, oldest first), or as Copilot / Cursor / AGENTS.md rule files.',
  usage: 'context-ledger export --format jsonl [--out <file>] [--latest-only]  |  context-ledger export --to copilot|cursor|agents|kiro|windsurf|continue|roo|amazonq|augment|gemini [--out <folder>] [--budget <tokens>]',
  options: {
    out: { type: 'string', value: 'file|folder', description: 'JSONL: write to this file instead of standard output. --to: the folder to write under (default: the workspace).' },
    'latest-only': { type: 'boolean', description: 'Only the latest version of each chain.' },
    to: {
      type: 'string',
      value: 'copilot|cursor|agents|kiro|windsurf|continue|roo|amazonq|augment|gemini',
      description:
        'Write rule files agents read: .github/instructions/*.instructions.md, .cursor/rules/*.mdc, AGENTS.md, .kiro/steering, .windsurf/rules, .continue/rules, .roo/rules, .amazonq/rules, .augment/rules or GEMINI.md.',
    },
    budget: { type: 'string', value: 'tokens', description: 'With --to: token budget of each file (default: 4000).' },
    tokenizer: { type: 'string', value: TOKENIZERS.join('|'), description: 'With --to: tokenizer of the budget (default: o200k_base).' },
  },
  details: [
    'With --to, each file starts with a header saying it is generated, holds the active, reviewed global and path-scoped',
    'knowledge (path scope -> applyTo / globs), and fits the budget. Nothing is dropped for size: what does not fit goes to a',
    'further file (AGENTS.md names its AGENTS-2.md… in an "Also noted" line); a rule longer than a file is compressed, then split.',
    'Left out: what is not active (deprecated, superseded), rules attached only on request, and the same knowledge twice.',
    'It never writes outside its folder and never overwrites a file it did not generate.',
  ].join('\n'),
  async run(context) {
    const to = stringOption(context.options, 'to');
    if (to !== undefined) {
      const { exportRuleFiles } = await import('./interopCommands.js');
      return exportRuleFiles(context, to);
    }
    const format = stringOption(context.options, 'format') ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'json') throw new UserError(`Unknown export format "${format}".`, 'Use --format jsonl.');
    const artifacts = await withRead(context, (store) => artifactsForExport(store, { latestOnly: context.options['latest-only'] === true }));
    const text = toJsonl(artifacts);
    // Not masked on purpose: this is the backup `import` restores from, and a masked key is lost for good.
    const withSecrets = artifacts.filter((a) => redactSecrets([a.title, a.body, a.summary ?? '', ...a.tags].join('\n')).count > 0).length;
    if (withSecrets > 0) {
      context.err(
        `${withSecrets} of these artifact versions hold secret-looking text, kept as it is: the JSONL export is the lossless backup (build, explain, rule files and the agent tools mask it). Keep the file out of version control.`,
      );
    }
    const out = stringOption(context.options, 'out');
    if (out) {
      const target = path.resolve(context.cwd, out);
      refuseLink(target, 'the export file');
      // 'wx' after removing a previous export: a link planted meanwhile is not written through.
      fs.rmSync(target, { force: true });
      fs.writeFileSync(target, text, { flag: 'wx' });
      context.err(`Exported ${artifacts.length} artifact versions to ${out}.`);
    } else {
      process.stdout.write(text);
    }
  },
};

export const countCommand: Command = {
  name: 'count',
  summary: 'Count the tokens of a text or file with a real tokenizer (and the chars/4 estimate).',
  usage: 'context-ledger count (--text <text> | <file|->) [--tokenizer o200k_base|cl100k_base]',
  options: {
    text: { type: 'string', description: 'The text to count.' },
    tokenizer: { type: 'string', value: TOKENIZERS.join('|'), description: 'Tokenizer (default: o200k_base).' },
  },
  positionals: [0, 1],
  async run(context) {
    const tokenizer = stringOption(context.options, 'tokenizer') ?? 'o200k_base';
    if (!isTokenizerName(tokenizer)) throw new UserError(`Unknown tokenizer "${tokenizer}".`, `Use one of: ${TOKENIZERS.join(', ')}.`);
    const inline = stringOption(context.options, 'text');
    const file = context.positionals[0];
    if (inline === undefined && file === undefined) throw new UserError('Nothing to count.', 'Pass --text "<text>", a file, or - for standard input.');
    if (inline !== undefined && file !== undefined) throw new UserError('Pass --text or a file, not both.');
    // `count "some words"` is the usual slip: the positional is a file.
    const missingHint = `To count a text rather than a file: context-ledger count --text ${JSON.stringify(file)}`;
    const text = inline ?? (file === '-' ? await readStdin(MAX_IMPORT_BYTES) : readTextFile(path.resolve(context.cwd, file!), undefined, missingHint));
    const counter = await TokenCounter.load(tokenizer);
    const tokens = counter.count(text);
    const result = { tokenizer, tokens, characters: text.length, estimate: estimateTokens(text) };
    if (isJson(context)) return printJson(context, result);
    context.out(`${tokens} tokens (${tokenizer}); ${text.length} characters; the chars/4 estimate would say ${result.estimate}.`);
  },
};
