import { parseArgs } from 'node:util';
import { UserError } from '../core/model';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Shown in --help; `<name>` after the flag for string options. */
  description: string;
  value?: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type ParsedOptions = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpecs;
  /** Positional arguments: [min, max]. */
  positionals?: [number, number];
  details?: string;
}

export const GLOBAL_OPTIONS: OptionSpecs = {
  db: { type: 'string', value: 'file', description: 'The ledger database (default: .context-ledger/ledger.db in the workspace: the nearest folder up from here that has one, else here).' },
  format: { type: 'string', value: 'text|json', description: 'Output format (default: text, for people).' },
  help: { type: 'boolean', short: 'h', description: 'Show help for this command.' },
};

/**
 * `--body "- first bullet"` as `--body=- first bullet`: a text option's value may start with
 * a dash (Markdown lists, negative numbers), which parseArgs refuses as ambiguous. A value
 * that is itself one of the command's options (`--title --body`) is left for parseArgs to
 * report as a missing value.
 */
function attachDashValues(argv: readonly string[], options: OptionSpecs): string[] {
  const names = new Set(Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const option = arg.startsWith('--') && !arg.includes('=') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '-' && !names.has(next.split('=')[0]!)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

export function parseCommandArgs(spec: CommandSpec, argv: string[]): { options: ParsedOptions; positionals: string[] } {
  const all = { ...GLOBAL_OPTIONS, ...spec.options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: attachDashValues(argv, all),
      options: Object.fromEntries(
        Object.entries(all).map(([name, option]) => [
          name,
          { type: option.type, ...(option.multiple ? { multiple: true } : {}), ...(option.short ? { short: option.short } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.');
    throw new UserError(message, `Run \`context-ledger ${spec.name} --help\` for the options.`);
  }
  const options = parsed.values as ParsedOptions;
  if (options.help) return { options, positionals: parsed.positionals };
  const [min, max] = spec.positionals ?? [0, 0];
  if (parsed.positionals.length < min) {
    throw new UserError(`Missing argument. Usage: ${spec.usage}`, `Run \`context-ledger ${spec.name} --help\` for details.`);
  }
  if (parsed.positionals.length > max) {
    throw new UserError(`Unexpected argument "${parsed.positionals[max]}". Usage: ${spec.usage}`);
  }
  const format = options.format;
  if (format !== undefined && format !== 'text' && format !== 'json' && !(spec.name === 'export' && typeof format === 'string')) {
    throw new UserError(`Unknown --format "${String(format)}".`, 'Use text or json.');
  }
  return { options, positionals: parsed.positionals };
}

export function helpText(spec: CommandSpec): string {
  const all = { ...spec.options, ...GLOBAL_OPTIONS };
  const rows = Object.entries(all).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : ''}--${name}${option.type === 'string' ? ` <${option.value ?? name}>` : ''}`;
    return [flag + (option.multiple ? ' (repeatable)' : ''), option.description] as const;
  });
  const width = Math.min(38, Math.max(...rows.map(([flag]) => flag.length)));
  const lines = rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
  return [`${spec.summary}`, '', `Usage: ${spec.usage}`, ...(spec.details ? ['', spec.details] : []), '', 'Options:', ...lines, ''].join('\n');
}

export function stringOption(options: ParsedOptions, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

export function listOption(options: ParsedOptions, name: string): string[] {
  const value = options[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** Comma-separated or repeated flags, e.g. `--tag a,b --tag c`. */
export function listOfValues(options: ParsedOptions, name: string): string[] {
  return listOption(options, name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

export function integerOption(options: ParsedOptions, name: string, fallback: number): number {
  const raw = stringOption(options, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !Number.isInteger(value)) {
    throw new UserError(`--${name} must be a whole number, not "${raw}".`);
  }
  return value;
}
