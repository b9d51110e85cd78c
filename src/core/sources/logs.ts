import { redactSecrets } from '../assemble/redact';
import type { LiveCandidate } from './types';

/**
 * The logs source: what just failed. Terminal commands that ended with an error, log files
 * in the workspace and piped output are cut down to their error excerpts — a stack trace
 * kept whole, repeated lines collapsed, the newest first, secrets masked — so that an agent
 * fixing "a 500 on login" reads the auth service's traceback, not 50,000 lines of requests.
 */
export interface LogInput {
  /** Where the text comes from: a terminal command, a workspace log file, or piped input. */
  origin: 'terminal' | 'file' | 'stdin';
  /** The command line (terminal), the workspace-relative path (file), or a name for piped input. */
  label: string;
  text: string;
  /** Terminal commands: the exit code the shell reported (undefined when it did not say). */
  exitCode?: number;
  /** When the command ended or the file was last written (ISO 8601). */
  endedAt?: string;
}

export interface LogCandidateOptions {
  /** Files the task works on: an excerpt whose trace names one of them counts more. */
  inPlay?: readonly string[];
  /** "Now", for the age of a command or a file (defaults to the clock). */
  now?: Date;
}

/** An excerpt: one error with the lines that explain it. Lines are 0-based into the cleaned text. */
export interface LogExcerpt {
  start: number;
  end: number;
  text: string;
  /** How many times the same excerpt (numbers and times aside) appeared in the text. */
  occurrences: number;
}

/** Most excerpts kept per input, newest first: beyond a few, older errors are usually the same failure. */
const MAX_EXCERPTS = 5;
/** A stack trace is kept whole up to this many lines (after collapsing repeats); a longer one keeps its head and tail. */
const MAX_EXCERPT_LINES = 80;
/** Lines of context kept before an error line that is not itself the start of a trace. */
const CONTEXT_BEFORE = 1;
const MAX_LINE_CHARS = 500;
/** A terminal command's output beyond this is read from its end: the error is at the end. */
export const MAX_LOG_CHARS = 4 * 1024 * 1024;
/** How fast a failure stops being news: a command that failed an hour ago counts half as much as one that just failed. */
const AGE_HALF_LIFE_MINUTES = 60;

/** Color codes, cursor moves and OSC sequences (shell integration marks, titles) a terminal adds. */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;

/**
 * A line that states an error. Precision over recall: level words in capitals (as loggers
 * print them), named exceptions, the markers runtimes and test runners print, and a
 * non-zero exit. "0 errors" and "no failures" are not errors.
 */
const ERROR_LINE =
  /\b(?:ERROR|FATAL|CRITICAL|SEVERE|FAILED|FAIL|FAILURE|PANIC)\b|\b[A-Z][A-Za-z0-9_.]*(?:Error|Exception|Failure)\b(?::|\s*\(|$)|^\s*(?:error|fatal)(?:\[[A-Z]?\d+\])?:|\berror(?: TS\d+)?:|^panic:|^fatal error:|^Traceback \(most recent call last\)|npm ERR!|^\s*E\s{2,}\S|Segmentation fault|core dumped|\bexit(?:ed)?(?: with)? (?:code|status) [1-9]|\bUnhandled(?:PromiseRejection)?\b|\bassert(?:ion)?(?:Error)? failed/;
const NOT_AN_ERROR = /\b(?:0|no|zero|without) (?:errors?|failures?|failed)\b|\berrors?: 0\b|\bfailed: 0\b|\b0 failed\b/i;
/** Lines that continue a trace: frames of Node, Python, Go, Java, .NET, Rust, and runner detail lines. */
const CONTINUATION =
  /^\s+at\s|^\s+File "|^\s{2,}\S|^\t|^\S+\.go:\d+|^goroutine \d+ \[|^Caused by:|^During handling of the above exception|^The above exception was the direct cause|^\s*\^+\s*$|^\s*[-~^]+\s*$|^E\s|^>\s|^\s*\d+\s*\|\s|^\s*--> |^\s*=\s|^\s*\.\.\. \d+ more|^[A-Za-z_][\w.]*(?:Error|Exception)\b|^stack backtrace:|^\s+\d+: |^[^\s(]+\(.*\)(?: \+0x[0-9a-f]+)?$/;
/** Where a Python traceback, a Go panic or a Rust backtrace begins: the excerpt starts here, not two lines above. */
const TRACE_START = /^Traceback \(most recent call last\)|^panic:|^goroutine \d+ \[|^fatal error:|^thread '.*' panicked/;

/** Terminal output as a person reads it: no color codes, carriage-return redraws resolved to their last state. */
export function cleanLogText(text: string): string {
  const tail = text.length > MAX_LOG_CHARS ? text.slice(text.length - MAX_LOG_CHARS) : text;
  return tail
    .replace(ANSI, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      const cr = line.lastIndexOf('\r');
      return cr >= 0 ? line.slice(cr + 1) : line;
    })
    .join('\n');
}

export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line) && !NOT_AN_ERROR.test(line);
}

/** Digits, hex ids and times vary between repeats of the same failure; the rest of the line does not. */
function signature(line: string): string {
  return line.replace(/0x[0-9a-f]+/gi, '#').replace(/\d+/g, '#').trim();
}

/**
 * The error excerpts of a log, newest (last in the text) first. One linear pass finds the
 * error lines; each grows over the trace that follows it; excerpts that repeat (numbers and
 * times aside) are kept once, the newest, with a count.
 */
export function errorExcerpts(rawText: string, maxExcerpts = MAX_EXCERPTS): LogExcerpt[] {
  const lines = cleanLogText(rawText).split('\n');
  const blocks: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!isErrorLine(line) && !TRACE_START.test(line)) {
      i++;
      continue;
    }
    let start = i;
    if (!TRACE_START.test(line)) {
      // The lines just before an error often say what was being done ("POST /login", "Running test_x").
      for (let k = 1; k <= CONTEXT_BEFORE && i - k >= 0; k++) {
        const previous = lines[i - k]!;
        if (previous.trim() === '' || isErrorLine(previous)) break;
        start = i - k;
      }
    }
    let end = i + 1;
    // A trace continues over frames, further error lines and single blank lines between them.
    while (end < lines.length) {
      const next = lines[end]!;
      if (CONTINUATION.test(next) || isErrorLine(next)) {
        end++;
      } else if (next.trim() === '' && end + 1 < lines.length && (CONTINUATION.test(lines[end + 1]!) || isErrorLine(lines[end + 1]!))) {
        end += 2;
      } else break;
    }
    const previous = blocks[blocks.length - 1];
    if (previous && start <= previous.end) previous.end = Math.max(previous.end, end);
    else blocks.push({ start: Math.max(start, previous?.end ?? 0), end });
    i = end;
  }
  const bySignature = new Map<string, LogExcerpt>();
  for (const block of blocks) {
    const slice = lines.slice(block.start, block.end);
    const key = slice.map(signature).join('\n');
    const seen = bySignature.get(key);
    const text = renderExcerpt(slice);
    // Later in the text is newer: the newest occurrence stands for all of them.
    bySignature.set(key, { start: block.start, end: block.end, text, occurrences: (seen?.occurrences ?? 0) + 1 });
  }
  return [...bySignature.values()].sort((a, b) => b.start - a.start).slice(0, maxExcerpts);
}

/** Runs of the same line collapse to one with a count; a trace longer than the cap keeps its head and its tail. */
function renderExcerpt(lines: readonly string[]): string {
  const collapsed: string[] = [];
  let k = 0;
  while (k < lines.length) {
    const line = lines[k]!;
    let run = 1;
    while (k + run < lines.length && signature(lines[k + run]!) === signature(line)) run++;
    const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
    collapsed.push(run > 1 ? `${shown}  [repeated ${run} times]` : shown);
    k += run;
  }
  while (collapsed.length > 0 && collapsed[collapsed.length - 1]!.trim() === '') collapsed.pop();
  if (collapsed.length <= MAX_EXCERPT_LINES) return collapsed.join('\n');
  const head = Math.ceil(MAX_EXCERPT_LINES * 0.6);
  const tail = MAX_EXCERPT_LINES - head;
  return [...collapsed.slice(0, head), `… ${collapsed.length - head - tail} lines of the trace left out …`, ...collapsed.slice(-tail)].join('\n');
}

function ageFactor(endedAt: string | undefined, now: Date): number {
  if (!endedAt) return 1;
  const ended = Date.parse(endedAt);
  if (!Number.isFinite(ended)) return 1;
  const minutes = Math.max(0, (now.getTime() - ended) / 60_000);
  return Math.pow(0.5, minutes / AGE_HALF_LIFE_MINUTES);
}

function mentionsInPlay(text: string, inPlay: readonly string[]): string | undefined {
  for (const path of inPlay) {
    const name = path.split('/').pop()!;
    if (text.includes(path) || (name.length >= 4 && text.includes(name))) return path;
  }
  return undefined;
}

/**
 * One candidate per failure: a terminal command that failed (its error excerpts, or its
 * last lines when no line looks like an error), and each error excerpt of a log file or
 * piped output. A command that succeeded gives none. Priors: a failure that just happened
 * is strong evidence on its own; a log file's excerpt must match the task or name a file in play.
 */
export function logCandidates(inputs: readonly LogInput[], options: LogCandidateOptions = {}): LiveCandidate[] {
  const now = options.now ?? new Date();
  const inPlay = options.inPlay ?? [];
  const out: LiveCandidate[] = [];
  inputs.forEach((input, index) => {
    const failed = input.origin === 'terminal' ? input.exitCode !== undefined && input.exitCode !== 0 : true;
    if (!failed) return;
    let excerpts = errorExcerpts(input.text);
    if (excerpts.length === 0 && input.origin === 'terminal') {
      const lines = cleanLogText(input.text).split('\n').filter((l) => l.trim() !== '');
      if (lines.length > 0) excerpts = [{ start: 0, end: lines.length, text: renderExcerpt(lines.slice(-15)), occurrences: 1 }];
    }
    const age = ageFactor(input.endedAt, now);
    const label = redactSecrets(oneLine(input.label)).text;
    const shortLabel = label.length > 80 ? `${label.slice(0, 79)}…` : label;
    if (input.origin === 'terminal') {
      if (excerpts.length === 0) excerpts = [{ start: 0, end: 0, text: '(no output)', occurrences: 1 }];
      const body = excerpts.map((e) => excerptBlock(e)).join('\n\n');
      const { text, count } = redactSecrets(`$ ${label}\n(exit code ${input.exitCode})\n\n${body}`);
      const named = mentionsInPlay(text, inPlay);
      out.push({
        key: `logs:terminal:${index}:${shortLabel}`,
        source: 'logs',
        title: `Failed command: ${shortLabel} (exit ${input.exitCode})`,
        text,
        kind: 'text',
        prior: Math.min(1, 0.75 * age + (named ? 0.15 : 0)),
        origin: `a command that failed in the terminal${input.endedAt ? ` at ${input.endedAt}` : ''}${named ? `, its output names ${named}` : ''}`,
        ...(count > 0 ? { withheld: count } : {}),
      });
      return;
    }
    for (const excerpt of excerpts) {
      const { text, count } = redactSecrets(excerptBlock(excerpt));
      const named = mentionsInPlay(text, inPlay);
      const first = oneLine(text.split('\n').find((l) => isErrorLine(l)) ?? text.split('\n')[0] ?? '');
      out.push({
        key: `logs:${input.origin}:${input.label}#${excerpt.start + 1}`,
        source: 'logs',
        title: `${input.origin === 'file' ? shortLabel : 'Piped output'}, line ${excerpt.start + 1}: ${first.length > 90 ? `${first.slice(0, 89)}…` : first}`,
        text,
        kind: 'text',
        ...(input.origin === 'file' ? { path: input.label } : {}),
        prior: Math.min(1, (input.origin === 'stdin' ? 0.7 : 0.45) * age + (named ? 0.2 : 0)),
        origin: `an error in ${input.origin === 'file' ? `the log file ${shortLabel}` : 'the output piped to the command'}${named ? `, naming ${named}` : ''}`,
        ...(count > 0 ? { withheld: count } : {}),
      });
    }
  });
  return out;
}

function excerptBlock(excerpt: LogExcerpt): string {
  const seen = excerpt.occurrences > 1 ? ` (seen ${excerpt.occurrences} times; the newest shown)` : '';
  const fence = '```';
  return `${fence}text\n${excerpt.text.replaceAll(fence, "'''")}\n${fence}${seen}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
