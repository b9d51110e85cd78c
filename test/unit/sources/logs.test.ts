import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_SOURCE_SETTINGS, errorExcerpts, liveQuery, logCandidates, rankLive, type SourcesSettings } from '../../../src/core/sources';
import { collectLiveSources } from '../../../src/node/sources';
import { cli, tempDir } from '../helpers';

// Fake secrets are assembled at run time so no scanner mistakes this file for a leak.
const j = (...parts: string[]) => parts.join('');

const NODE_TRACE = [
  '> harbor@1.0.0 start',
  '> node dist/server.js',
  'listening on :3000',
  'POST /login 500 12ms',
  "TypeError: Cannot read properties of undefined (reading 'id')",
  '    at sessionUser (/srv/harbor/src/auth/session.ts:42:17)',
  '    at loginHandler (/srv/harbor/src/auth/login.ts:18:9)',
  '    at Layer.handle [as handle_request] (/srv/harbor/node_modules/express/lib/router/layer.js:95:5)',
  '    at next (/srv/harbor/node_modules/express/lib/router/route.js:149:13)',
  'GET /health 200 1ms',
].join('\n');

const PYTEST = [
  '============================= test session starts ==============================',
  'platform linux -- Python 3.11.7, pytest-8.3.3, pluggy-1.5.0',
  'collected 12 items',
  '',
  'tests/test_booking.py ...F........                                      [100%]',
  '',
  '=================================== FAILURES ===================================',
  '_________________________ test_double_booking_rejected _________________________',
  '',
  '    def test_double_booking_rejected():',
  '        first = book(slip="A1", day="2026-05-01")',
  '>       assert book(slip="A1", day="2026-05-01") is None',
  "E       AssertionError: assert <Booking id=7 slip='A1'> is None",
  "E        +  where <Booking id=7 slip='A1'> = book(slip='A1', day='2026-05-01')",
  '',
  'tests/test_booking.py:31: AssertionError',
  '=========================== short test summary info ============================',
  'FAILED tests/test_booking.py::test_double_booking_rejected - AssertionError: assert <Booking id=7 slip=\'A1\'> is None',
  '========================= 1 failed, 11 passed in 0.42s =========================',
].join('\n');

const GO_PANIC = [
  'ok  \tharbor/internal/pricing\t0.012s',
  'panic: runtime error: index out of range [3] with length 3',
  '',
  'goroutine 1 [running]:',
  'harbor/internal/slots.(*Grid).At(...)',
  '\t/src/harbor/internal/slots/grid.go:57',
  'main.main()',
  '\t/src/harbor/cmd/harbor/main.go:21 +0x1d',
  'exit status 2',
].join('\n');

describe('logs source: error excerpts', () => {
  test('a Node stack trace is kept whole, with the request line before it, and nothing after it', () => {
    const [excerpt, ...rest] = errorExcerpts(NODE_TRACE);
    assert.equal(rest.length, 0);
    assert.match(excerpt!.text, /POST \/login 500/);
    assert.match(excerpt!.text, /TypeError: Cannot read properties/);
    assert.match(excerpt!.text, /at next \(.*route\.js:149:13\)/, 'every frame of the trace is kept');
    assert.doesNotMatch(excerpt!.text, /GET \/health|listening/);
    assert.equal(excerpt!.text.split('\n')[0], 'POST /login 500 12ms');
  });

  test('a pytest failure keeps the assertion detail, the failing line and the summary', () => {
    const text = errorExcerpts(PYTEST).map((e) => e.text).join('\n---\n');
    assert.match(text, />\s+assert book/);
    assert.match(text, /E\s+AssertionError: assert <Booking id=7/);
    assert.match(text, /FAILED tests\/test_booking\.py::test_double_booking_rejected/);
    assert.doesNotMatch(text, /platform linux|collected 12 items/, 'the session header is not an error');
  });

  test('a Go panic starts at "panic:" and keeps its goroutine frames', () => {
    const excerpts = errorExcerpts(GO_PANIC);
    const text = excerpts.map((e) => e.text).join('\n');
    assert.match(text, /^panic: runtime error: index out of range/m);
    assert.match(text, /goroutine 1 \[running\]:/);
    assert.match(text, /grid\.go:57/);
    assert.match(text, /main\.go:21/);
    assert.doesNotMatch(text, /^ok\s+harbor\/internal\/pricing/m);
  });

  test('a 50,000-line log with one error gives that error alone, quickly', () => {
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i++) lines.push(`2026-11-26T03:${String(i % 60).padStart(2, '0')}:00Z INFO GET /api/slots?page=${i} 200 3ms`);
    lines.splice(31_337, 0, '2026-11-26T03:17:00Z ERROR payment webhook failed: duplicate key value violates unique constraint "bookings_slip_day"');
    const started = performance.now();
    const excerpts = errorExcerpts(lines.join('\n'));
    const elapsed = performance.now() - started;
    assert.equal(excerpts.length, 1);
    assert.match(excerpts[0]!.text, /duplicate key value violates unique constraint/);
    assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms`);
  });

  test('repeated lines collapse; the same failure seen many times is one excerpt, the newest, with its count', () => {
    const log = [
      ...Array.from({ length: 3 }, (_, i) => [`12:0${i}:00 WARN retrying connection to db (attempt ${i})`, `12:0${i}:01 ERROR connect ECONNREFUSED 10.0.0.${i}:5432`, `12:0${i}:02 INFO serving from cache`]).flat(),
      '12:08:59 INFO still serving from cache',
      '12:09:00 ERROR connect ECONNREFUSED 10.0.0.9:5432',
      '12:09:00 ERROR connect ECONNREFUSED 10.0.0.9:5432',
      '12:09:00 ERROR connect ECONNREFUSED 10.0.0.9:5432',
    ].join('\n');
    const excerpts = errorExcerpts(log);
    assert.ok(excerpts.some((e) => /\[repeated 3 times\]/.test(e.text)), JSON.stringify(excerpts, null, 1));
    const firstAttempts = excerpts.filter((e) => /WARN retrying/.test(e.text));
    assert.equal(firstAttempts.length, 1, 'three attempts that differ only in numbers are one excerpt');
    assert.equal(firstAttempts[0]!.occurrences, 3);
    assert.match(firstAttempts[0]!.text, /attempt 2/, 'the newest occurrence is shown');
  });

  test('newest first: the last error in the log comes first', () => {
    const excerpts = errorExcerpts(['ERROR first thing broke', 'INFO fine', 'INFO fine again', 'ERROR second thing broke'].join('\n'));
    assert.deepEqual(excerpts.map((e) => e.text.split('\n').pop()), ['ERROR second thing broke', 'ERROR first thing broke']);
  });

  test('"0 errors" and "no failures" are not errors; empty and blank input give nothing', () => {
    assert.deepEqual(errorExcerpts('Found 0 errors. Watching for file changes.\nTests: no failures\nerrors: 0'), []);
    assert.deepEqual(errorExcerpts(''), []);
    assert.deepEqual(errorExcerpts('\n\n   \n'), []);
  });

  test('terminal color codes and carriage-return progress bars are cleaned; non-ASCII text is kept', () => {
    const excerpts = errorExcerpts('\u001b[32m[####    ] 50%\r[########] 100%\u001b[0m\n\u001b[31mERROR\u001b[0m Verbindung zur Datenbank fehlgeschlagen: 接続が拒否されました');
    assert.equal(excerpts.length, 1);
    assert.equal(excerpts[0]!.text, '[########] 100%\nERROR Verbindung zur Datenbank fehlgeschlagen: 接続が拒否されました');
  });

  test('a trace thousands of frames deep keeps its head and tail within a bound', () => {
    const name = (i: number): string => (i < 26 ? String.fromCharCode(97 + i) : name(Math.floor(i / 26) - 1) + String.fromCharCode(97 + (i % 26)));
    const frames = Array.from({ length: 5000 }, (_, i) => `    at ${name(i)} (src/deep.ts:${i}:1)`);
    const [excerpt] = errorExcerpts(['RangeError: Maximum call stack size exceeded', ...frames].join('\n'));
    const lines = excerpt!.text.split('\n');
    assert.ok(lines.length <= 81, `${lines.length} lines`);
    assert.match(lines[0]!, /RangeError/);
    assert.match(excerpt!.text, /lines of the trace left out/);
    assert.match(lines[lines.length - 1]!, new RegExp(`at ${name(4999)} `));
  });
});

describe('logs source: candidates', () => {
  const now = new Date('2026-11-26T12:00:00Z');

  test('a failed terminal command is a candidate with its command, exit code and error; a command that succeeded is none', () => {
    const candidates = logCandidates(
      [
        { origin: 'terminal', label: 'npm test', text: PYTEST, exitCode: 1, endedAt: '2026-11-26T11:59:00Z' },
        { origin: 'terminal', label: 'ls', text: 'README.md src', exitCode: 0, endedAt: '2026-11-26T11:59:30Z' },
      ],
      { now },
    );
    assert.equal(candidates.length, 1);
    assert.equal(candidates[0]!.source, 'logs');
    assert.match(candidates[0]!.title, /^Failed command: npm test \(exit 1\)$/);
    assert.match(candidates[0]!.text, /^\$ npm test\n\(exit code 1\)/);
    assert.match(candidates[0]!.text, /AssertionError/);
  });

  test('a failure that just happened outranks the same failure from hours ago', () => {
    const [fresh] = logCandidates([{ origin: 'terminal', label: 'make', text: 'error: x', exitCode: 2, endedAt: '2026-11-26T11:59:00Z' }], { now });
    const [old] = logCandidates([{ origin: 'terminal', label: 'make', text: 'error: x', exitCode: 2, endedAt: '2026-11-26T07:00:00Z' }], { now });
    assert.ok(fresh!.prior > 0.7 && old!.prior < 0.1, `${fresh!.prior} vs ${old!.prior}`);
  });

  test('secrets in the command line and the output are masked', () => {
    const token = j('ghp_', 'Abcdefghijklmnopqrstuvwxyz0123456789');
    const [candidate] = logCandidates(
      [{ origin: 'terminal', label: `curl -H "Authorization: token ${token}" https://api.example.com`, text: `ERROR auth failed for password=${j('hunter', '2xyzzy42')}\nconnection string postgres://app:${j('s3cr', 'etPass')}@db:5432/harbor`, exitCode: 22 }],
      { now },
    );
    assert.ok(!candidate!.text.includes(token) && !candidate!.title.includes(token));
    assert.ok(!candidate!.text.includes(j('hunter', '2xyzzy42')));
    assert.match(candidate!.text, /\[REDACTED:/);
  });

  test('a bug-fix task lets a matching log excerpt in; a feature task about something else leaves it out', () => {
    const candidates = logCandidates([{ origin: 'file', label: 'logs/server.log', text: NODE_TRACE, endedAt: '2026-11-26T11:58:00Z' }], { now, inPlay: ['src/auth/login.ts'] });
    const settings = structuredClone(DEFAULT_SOURCE_SETTINGS) as SourcesSettings;
    const bug = rankLive(candidates, liveQuery({ title: 'Login returns a 500 error', labels: ['bug'] }), 'bugfix', settings);
    const feature = rankLive(candidates, liveQuery({ title: 'Add dark mode to the settings page' }), 'feature', settings);
    assert.equal(bug[0]!.passed, true, bug[0]!.reason);
    assert.equal(feature[0]!.passed, false, feature[0]!.reason);
  });
});

describe('logs source: workspace files and the CLI', () => {
  test('log files are read by glob inside the workspace, a linked log is not followed, binary logs are skipped', () => {
    const root = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(root, 'logs'));
    fs.writeFileSync(path.join(root, 'logs/api.log'), NODE_TRACE);
    fs.writeFileSync(path.join(outside, 'private.log'), 'ERROR outside-the-workspace secret failure');
    fs.symlinkSync(path.join(outside, 'private.log'), path.join(root, 'logs/linked.log'));
    fs.writeFileSync(path.join(root, 'core.log'), Buffer.from([0x45, 0x52, 0x52, 0x00, 0x01, 0x02]));
    const candidates = collectLiveSources({ root, kinds: ['logs'] });
    const text = candidates.map((c) => `${c.title}\n${c.text}`).join('\n');
    assert.match(text, /TypeError: Cannot read properties/);
    assert.doesNotMatch(text, /outside-the-workspace/);
    assert.ok(candidates.every((c) => c.path === 'logs/api.log'));
    const none = collectLiveSources({ root, kinds: ['logs'], logGlobs: ['**/*.txt'] });
    assert.equal(none.length, 0, 'only files matching the given globs are read');
  });

  test('build --sources logs reads piped output and puts its error under the logs heading; explain names the source', () => {
    const root = tempDir();
    assert.equal(cli(['init'], { cwd: root }).code, 0);
    assert.equal(cli(['add', '--type', 'learning', '--title', 'Slot grid indexes are one-based', '--body', 'The grid of slots starts at 1 in the UI and 0 in code.'], { cwd: root }).code, 0);
    const args = ['build', '--task-title', 'Fix the panic in the slot grid', '--sources', 'logs', '--budget', '3000', '--no-log'];
    const built = cli(args, { cwd: root, input: GO_PANIC });
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stdout, /## What just failed \(logs\)[\s\S]*panic: runtime error: index out of range/);
    const explain = cli(['explain', ...args.slice(1)], { cwd: root, input: GO_PANIC });
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /logs/);
    const empty = cli(args, { cwd: root, input: '' });
    assert.equal(empty.code, 0, empty.stderr);
    assert.doesNotMatch(empty.stdout, /What just failed/);
  });
});
