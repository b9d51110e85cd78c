/**
 * `npm run fuzz`: bounded, seeded fuzzing of what takes hostile input — the redactor, the
 * Markdown importers (ADR, ctx, Cursor), JSONL import and CLI argument parsing. Each round
 * builds an input from a seeded generator and checks what must hold for any input: no
 * crash but a UserError, no hang (time limits), no planted secret surviving, good JSONL
 * lines imported. Options: --seed <n> (default: the time; printed so a failure can be
 * replayed), --seconds <n> (default 20). Exits 1 on the first failure, with its seed.
 */
import { parseAdrs } from '../../src/core/formats/adr';
import { parseAgentRules } from '../../src/core/formats/agentRules';
import { parseCtx } from '../../src/core/formats/ctx';
import { redactSecrets } from '../../src/core/assemble/redact';
import { decodeJsonl, importJsonl } from '../../src/core/jsonl';
import { UserError } from '../../src/core/model';
import { LedgerStore } from '../../src/core/store';
import { loadSqlJs } from '../../src/node/ledgerFile';
import { parseCommandArgs } from '../../src/cli/args';
import { BASE_COMMANDS } from '../../src/cli/commands';
import { seededRandom } from '../unit/helpers';
import { SECRET_CASES } from '../unit/secretCorpus';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const seed = Number(option('seed') ?? Date.now() % 1_000_000_007);
const seconds = Number(option('seconds') ?? 20);


let random = seededRandom(seed);
const int = (n: number): number => Math.floor(random() * n);
const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;

/** Pieces that make regexes and parsers work hardest when repeated and mixed. */
const REDACT_PIECES = ['a', 'Z', '9', '-', '_', '.', ':', '://', '@', '/', '=', '"', "'", ' ', '\n', 'password=', 'token: ', 'secret', 'sk-', 'eyJ', '-----BEGIN ', 'PRIVATE KEY-----', 'AKIA', 'AccountKey=', '8Q~', 'SG.', 'https://a.example.com,', 'é', '日本'];
const MD_PIECES = ['>', '> ', '- ', '* ', '1. ', '  ', '    ', '\t', '```', '~~~', '#', '# ', 'text', '\n', '<!--', '-->', '|', '---', '[x]'];

function repeatPieces(pieces: readonly string[], chars: number): string {
  let out = '';
  const unit = Array.from({ length: 1 + int(4) }, () => pick(pieces)).join('');
  while (out.length < chars) out += random() < 0.8 ? unit : pick(pieces);
  return out.slice(0, chars);
}

function fail(target: string, message: string, input: string): never {
  process.stderr.write(`fuzz: ${target} failed (seed ${seed}): ${message}\n  input starts: ${JSON.stringify(input.slice(0, 200))}\n`);
  process.exit(1);
}

function timed<T>(target: string, limitMs: number, input: string, fn: () => T): T {
  const started = performance.now();
  let result: T;
  try {
    result = fn();
  } catch (error) {
    if (error instanceof UserError) throw error;
    fail(target, `threw ${String(error)}`, input);
  }
  const ms = performance.now() - started;
  if (ms > limitMs) fail(target, `took ${ms.toFixed(0)} ms (limit ${limitMs})`, input);
  return result;
}

function fuzzRedactor(): void {
  const text = repeatPieces(REDACT_PIECES, 1 + int(32_000));
  const once = timed('redactor', 200, text, () => redactSecrets(text));
  const twice = redactSecrets(once.text);
  if (twice.text !== once.text && twice.count > 0 && !/\[REDACTED:/.test(once.text)) fail('redactor', 'not idempotent', text);
  // A planted secret, set apart by a blank line, never survives whatever surrounds it.
  const planted = pick(SECRET_CASES);
  const around = `${text.slice(0, 2000)}\n\n${planted.text}\n\n${text.slice(0, 500)}`;
  if (redactSecrets(around).text.includes(planted.secret)) fail('redactor', `leaked a ${planted.kind}`, around);
}

function fuzzMarkdown(): void {
  const body = repeatPieces(MD_PIECES, 1 + int(64_000));
  timed('ADR import', 2000, body, () => parseAdrs([{ path: 'docs/adr/0001-fuzz.md', content: `# 1. Fuzz\n\n${body}` }]));
  timed('ctx import', 2000, body, () => parseCtx([{ name: 'LEARNINGS.md', content: `# Learnings\n\n## [2026-01-01-120000] Fuzz\n\n${body}` }]));
  timed('Cursor import', 2000, body, () => parseAgentRules([{ path: '.cursor/rules/fuzz.mdc', content: `---\nalwaysApply: true\n---\n${body}` }]));
}

async function fuzzJsonl(): Promise<void> {
  const lines: Buffer[] = [];
  const goodIds: string[] = [];
  for (let i = 0; i < 1 + int(20); i++) {
    const id = `fuzz-${i}`;
    const r = random();
    if (r < 0.4) {
      goodIds.push(id);
      lines.push(Buffer.from(JSON.stringify({ id, type: 'learning', title: `T ${i} é`, body: repeatPieces(REDACT_PIECES, int(200)) })));
    } else if (r < 0.55) lines.push(Buffer.from(`{"id":"${id}","type":"learning","title":"t","body":"b","x":${'['.repeat(int(20_000))}`));
    else if (r < 0.7) lines.push(Buffer.from([0x7b, ...Array.from({ length: int(50) }, () => int(256)), 0x7d]));
    else if (r < 0.85) lines.push(Buffer.from(`{"id":"${id}","type":"learning","title":"t","body":"b","version":${pick(['1e308', '9007199254740993', '-1', '0.5', '"2"', 'null'])},"pinned":${pick(['"yes"', '1', 'null', 'true'])}}`));
    else lines.push(Buffer.from(repeatPieces(['{', '}', '[', ']', '"', ':', ',', '\\', 'u0000', 'a'], int(500))));
  }
  const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  const store = LedgerStore.open(await loadSqlJs());
  const decoded = decodeJsonl(bytes);
  const report = timed('JSONL import', 2000, bytes.toString('latin1'), () => importJsonl(store, decoded.text, decoded.errors));
  const imported = new Set([...report.added, ...report.updated, ...report.unchanged]);
  for (const id of goodIds) if (!imported.has(id)) fail('JSONL import', `lost the good line ${id}`, bytes.toString('latin1'));
  store.close();
}

function fuzzArgs(): void {
  const command = pick(BASE_COMMANDS);
  const words = ['--body', '--title', '--type', '--db', '--', '-', '-h', '--budget', '--format', 'json', '- item', '-5', '--=', '---', 'x', '', '--tag', '--no-such'];
  const argv = Array.from({ length: int(8) }, () => pick(words));
  timed('CLI arguments', 100, argv.join(' '), () => {
    try {
      parseCommandArgs(command, argv);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
    }
  });
}

async function main(): Promise<void> {
  process.stdout.write(`fuzz: seed ${seed}, ${seconds} s (replay with --seed ${seed})\n`);
  const until = performance.now() + seconds * 1000;
  const rounds: Record<string, number> = { redactor: 0, markdown: 0, jsonl: 0, args: 0 };
  for (let round = 0; performance.now() < until; round++) {
    random = seededRandom(seed + round);
    fuzzRedactor();
    rounds.redactor!++;
    fuzzArgs();
    rounds.args!++;
    if (round % 4 === 0) {
      fuzzMarkdown();
      rounds.markdown!++;
    }
    if (round % 4 === 2) {
      await fuzzJsonl();
      rounds.jsonl!++;
    }
  }
  process.stdout.write(`fuzz: no failure in ${Object.entries(rounds).map(([k, n]) => `${n} ${k}`).join(', ')} rounds\n`);
}

void main();
