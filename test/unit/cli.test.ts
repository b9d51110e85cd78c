import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI, cli, cliAsync, jsonOf, packageManifest, tempDir } from './helpers';

interface Row {
  id: string;
  version: number;
  status: string;
  pinned: boolean;
  title: string;
  body: string;
  chainId: string;
}

function noStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at .+:\d+:\d+/, 'a user error must not print a stack trace');
}

function fresh(): { dir: string; db: string } {
  const dir = tempDir('ledger-cli-');
  return { dir, db: path.join(dir, 'ledger.db') };
}

describe('context-ledger CLI', () => {
  test('--version prints the package version', () => {
    const { version } = packageManifest<{ version: string }>();
    const result = cli(['--version']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout.trim(), version);
  });

  test('--help works for the program and every command', () => {
    const overview = cli(['--help']);
    assert.equal(overview.code, 0);
    const names = [...overview.stdout.matchAll(/^ {2}([a-z-]+) {2}/gm)].map((m) => m[1]!);
    assert.ok(names.length >= 14, names.join(','));
    for (const name of names) {
      const help = cli([name, '--help']);
      assert.equal(help.code, 0, name);
      assert.match(help.stdout, /Usage: context-ledger/, name);
      assert.match(help.stdout, /--db/, name);
    }
  });

  test('init, add (flag, file, stdin), list, show by URN', () => {
    const { dir, db } = fresh();
    assert.equal(cli(['init', '--db', db]).code, 0);
    assert.equal(cli(['add', '--db', db, '--type', 'decision', '--title', 'Use sql.js', '--body', 'No native build.', '--id', 'd1', '--tag', 'storage,db']).code, 0);
    fs.writeFileSync(path.join(dir, 'body.md'), '# Módulo\n\nレジャー 🚀\n');
    assert.equal(cli(['add', '--db', db, '--type', 'module_memory', '--scope', 'path', '--path', 'src/store/**', '--title', 'Store module', '--body-file', path.join(dir, 'body.md'), '--id', 'm1']).code, 0);
    assert.equal(cli(['add', '--db', db, '--type', 'learning', '--title', 'From stdin', '--body-file', '-', '--id', 'l1'], { input: 'piped body' }).code, 0);
    const rows = jsonOf<Row[]>(cli(['list', '--db', db, '--format', 'json']));
    assert.deepEqual(rows.map((r) => r.id).sort(), ['d1', 'l1', 'm1']);
    const shown = jsonOf<Row & { paths: string[]; tags: string[] }>(cli(['show', 'ledger://artifact/m1', '--db', db, '--format', 'json']));
    assert.equal(shown.body, '# Módulo\n\nレジャー 🚀\n');
    assert.deepEqual(shown.paths, ['src/store/**']);
    assert.equal(jsonOf<Row>(cli(['show', 'l1', '--db', db, '--format', 'json'])).body, 'piped body');
    const text = cli(['list', '--db', db]);
    assert.match(text.stdout, /ID +TYPE +SCOPE/);
    assert.match(text.stdout, /Use sql\.js/);
    assert.deepEqual(jsonOf<Row[]>(cli(['list', '--db', db, '--tag', 'db', '--format', 'json'])).map((r) => r.id), ['d1']);
  });

  test('show takes a whole item\'s heading from a built context as its reference; a title two artifacts share is refused with their ids', () => {
    const { db } = fresh();
    cli(['init', '--db', db]);
    cli(['add', '--db', db, '--type', 'decision', '--title', 'Use sql.js for storage', '--body', 'No native build step.', '--id', 'd1']);
    cli(['add', '--db', db, '--type', 'convention', '--title', 'C# style: file-scoped namespaces', '--body', 'Every C# file.', '--id', 'c1']);
    const built = cli(['build', '--db', db, '--task-title', 'Storage with sql.js', '--budget', '2000']);
    const heading = built.stdout.split('\n').find((l) => l.startsWith('### Use sql.js'));
    assert.equal(heading, '### Use sql.js for storage · decision', built.stdout);
    assert.ok(!built.stdout.includes('ledger://artifact/d1'), 'a whole item carries no URN line');
    assert.match(cli(['show', heading, '--db', db]).stdout, /No native build step\./);
    assert.match(cli(['show', 'c# STYLE: file-scoped namespaces', '--db', db]).stdout, /Every C# file\./);
    cli(['add', '--db', db, '--type', 'note', '--title', 'Use sql.js for storage', '--body', 'Again.', '--id', 'd2']);
    const ambiguous = cli(['show', 'Use sql.js for storage', '--db', db]);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /2 artifacts have the title "Use sql\.js for storage": d1, d2\..*Name one by its id/s);
    const missing = cli(['show', 'Use sql.js', '--db', db]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No artifact "Use sql\.js"/);
  });

  test('build on an empty ledger prints only the task and says on stderr how to add knowledge', () => {
    const { db } = fresh();
    cli(['init', '--db', db]);
    const empty = cli(['build', '--db', db, '--task-title', 'Fix the login bug']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout.trim(), '## Task\n\nFix the login bug');
    assert.match(empty.stderr, /0 items/);
    assert.match(empty.stderr, /no knowledge yet.*context-ledger add.*import --from/s);
    cli(['add', '--db', db, '--type', 'learning', '--title', 'Login tokens expire after an hour', '--body', 'Refresh before.']);
    const filled = cli(['build', '--db', db, '--task-title', 'Fix the login bug']);
    assert.match(filled.stdout, /Login tokens expire/);
    assert.doesNotMatch(filled.stderr, /no knowledge yet/);
  });

  test('update keeps history; supersede, archive, pin, delete', () => {
    const { db } = fresh();
    cli(['add', '--db', db, '--type', 'adr', '--title', 'Old', '--body', 'v1', '--id', 'a1']);
    assert.equal(cli(['update', 'a1', '--db', db, '--body', 'v2']).code, 0);
    const history = jsonOf<Row[]>(cli(['history', 'a1', '--db', db, '--format', 'json']));
    assert.deepEqual(history.map((h) => [h.version, h.body]), [[1, 'v1'], [2, 'v2']]);
    assert.match(cli(['history', 'a1', '--db', db]).stdout, /revert <id>/);
    // Reverting to v1 adds v3 with v1's content; v2 stays in the history.
    const reverted = cli(['revert', history[0]!.id, '--db', db]);
    assert.equal(reverted.code, 0, reverted.stderr);
    assert.match(reverted.stdout, /now v3/);
    const after = jsonOf<Row[]>(cli(['history', 'a1', '--db', db, '--format', 'json']));
    assert.deepEqual(after.map((h) => [h.version, h.body]), [[1, 'v1'], [2, 'v2'], [3, 'v1']]);
    for (const [ref, why] of [[after[2]!.id, /already the latest version/], [after[0]!.id, /same content as the latest version/], ['nope', /nope/]] as const) {
      const refused = cli(['revert', ref, '--db', db]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, why);
      noStackTrace(refused.stderr);
    }
    assert.equal(cli(['supersede', 'a1', '--db', db, '--title', 'New', '--body', 'better', '--id', 'a2']).code, 0);
    assert.equal(jsonOf<Row[]>(cli(['list', '--db', db, '--status', 'superseded', '--format', 'json']))[0]?.chainId, 'a1');
    assert.equal(jsonOf<Row>(cli(['pin', 'a2', '--db', db, '--format', 'json'])).pinned, true);
    assert.equal(jsonOf<Row>(cli(['pin', 'a2', '--off', '--db', db, '--format', 'json'])).pinned, false);
    assert.equal(jsonOf<Row>(cli(['archive', 'a2', '--db', db, '--format', 'json'])).status, 'archived');
    assert.equal(cli(['delete', 'a1', '--db', db]).stdout.trim(), 'Deleted 3 versions.');
    assert.equal(cli(['show', 'a1', '--db', db]).code, 1);
  });

  test('JSONL import reports bad lines by number, imports the good ones and exits non-zero', () => {
    const { dir, db } = fresh();
    const file = path.join(dir, 'in.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ id: 'ok-1', type: 'note', title: 'One', body: 'b' }),
        '{"id": "broken",',
        JSON.stringify({ id: 'bad-type', type: 'wish', title: 'T', body: 'b' }),
        '',
        JSON.stringify({ id: 'no-body', type: 'note', title: 'T' }),
        JSON.stringify({ id: 'ok-2', type: 'adr', title: 'Two', body: '二' }),
      ].join('\n'),
    );
    const result = cli(['import', '--db', db, file]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /line 2: not valid JSON/);
    assert.match(result.stderr, /line 3: Unknown type "wish"/);
    assert.match(result.stderr, /line 5: "body" is required/);
    noStackTrace(result.stderr);
    assert.deepEqual(jsonOf<Row[]>(cli(['list', '--db', db, '--format', 'json'])).map((r) => r.id).sort(), ['ok-1', 'ok-2']);
  });

  test('export of an import preserves every field, including unknown ones; re-import is idempotent', () => {
    const { dir, db } = fresh();
    const original = {
      id: 'ctx-learn-1', type: 'learning', scope: 'path', title: 'Hooks must not block', body: '**Context**: …\n\n- a\n- b 🚀',
      summary: 'short', tags: ['hooks'], paths: ['internal/hooks/**'], status: 'active', createdAt: '2026-07-25T19:04:10Z',
      updatedAt: '2026-07-26T08:00:00Z', source: 'ctx:LEARNINGS.md', chainId: 'ctx-learn-1', version: 1, taskId: null, supersedes: null,
      pinned: true, conditions: { labels: ['bug'], keywords: ['hook'], paths: [] }, project: 'ctx', addedAt: '2026-07-26T03:12:22Z',
    };
    const file = path.join(dir, 'in.jsonl');
    fs.writeFileSync(file, JSON.stringify(original) + '\n');
    assert.equal(cli(['import', '--db', db, file]).code, 0);
    const exported = cli(['export', '--db', db, '--format', 'jsonl']);
    assert.equal(exported.code, 0);
    assert.deepEqual(JSON.parse(exported.stdout.trim()), original);
    const again = cli(['import', '--db', db, file, '--format', 'json']);
    assert.deepEqual(jsonOf<{ unchanged: number }>(again).unchanged, 1);
    fs.writeFileSync(file, JSON.stringify({ ...original, body: 'changed' }) + '\n');
    cli(['import', '--db', db, file]);
    const versions = jsonOf<Row[]>(cli(['history', 'ctx-learn-1', '--db', db, '--format', 'json']));
    assert.deepEqual(versions.map((v) => v.body), [original.body, 'changed']);
    // The exported history re-imports into an empty database as the same chain.
    const second = path.join(dir, 'second.db');
    fs.writeFileSync(path.join(dir, 'all.jsonl'), cli(['export', '--db', db, '--format', 'jsonl']).stdout);
    assert.equal(cli(['import', '--db', second, path.join(dir, 'all.jsonl')]).code, 0);
    assert.equal(cli(['export', '--db', second, '--format', 'jsonl']).stdout, cli(['export', '--db', db, '--format', 'jsonl']).stdout);
  });

  test('count gives exact tokens with either tokenizer and the chars/4 estimate', () => {
    const result = jsonOf<{ tokens: number; estimate: number; tokenizer: string }>(cli(['count', '--text', 'hello world', '--format', 'json']));
    assert.deepEqual(result, { tokenizer: 'o200k_base', tokens: 2, characters: 11, estimate: 3 });
    assert.equal(jsonOf<{ tokens: number }>(cli(['count', '-', '--tokenizer', 'cl100k_base', '--format', 'json'], { input: 'hello <|endoftext|>' })).tokens > 2, true);
    assert.equal(cli(['count', '--text', 'x', '--tokenizer', 'gpt5']).code, 1);
    // Words where a file was expected: the error shows the --text form to use instead.
    const slip = cli(['count', '日本語 🚀 hello']);
    assert.equal(slip.code, 1);
    assert.match(slip.stderr, /File not found: .*日本語 🚀 hello\n.*count --text "日本語 🚀 hello"/);
  });

  test('bad input gets a clear error, exit 1, no stack trace, and loses nothing', () => {
    const { dir, db } = fresh();
    cli(['add', '--db', db, '--type', 'note', '--title', 'Keep me', '--body', 'safe', '--id', 'keep']);
    const before = fs.readFileSync(db);
    fs.writeFileSync(path.join(dir, 'binary.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]));
    fs.writeFileSync(path.join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    fs.writeFileSync(path.join(dir, 'huge.md'), 'a'.repeat(5 * 1024 * 1024));
    const cases: Array<[string[], RegExp]> = [
      [['add', '--db', db, '--type', 'note', '--title', 't', '--body', 'b', '--colour', 'red'], /Unknown option '--colour'/],
      [['add', '--db', db, '--title', 't', '--body', 'b'], /Missing --type/],
      [['add', '--db', db, '--type', 'note', '--body', 'b'], /Missing --title/],
      [['add', '--db', db, '--type', 'note', '--title', 't'], /Missing the body/],
      [['add', '--db', db, '--type', 'wish', '--title', 't', '--body', 'b'], /Unknown type "wish"/],
      [['add', '--db', db, '--type', 'note', '--scope', 'planet', '--title', 't', '--body', 'b'], /Unknown scope "planet"/],
      [['add', '--db', db, '--type', 'note', '--title', 't', '--body-file', path.join(dir, 'binary.bin')], /binary file/],
      [['add', '--db', db, '--type', 'note', '--title', 't', '--body-file', path.join(dir, 'latin1.txt')], /not UTF-8/],
      [['add', '--db', db, '--type', 'note', '--title', 't', '--body-file', path.join(dir, 'huge.md')], /limit is 4 MB/],
      [['add', '--db', db, '--type', 'note', '--title', 't', '--id', 'keep', '--body', 'b'], /already exists/],
      [['show', 'nope', '--db', db], /No artifact "nope"/],
      [['list', '--db', path.join(dir, 'no', 'such', 'folder', 'x.db')], /folder for the database does not exist/],
      [['list', '--db', path.join(dir, 'absent.db')], /No ledger database/],
      [['frobnicate'], /Unknown command "frobnicate"/],
      [['list', '--db', db, '--format', 'yaml'], /Unknown --format/],
    ];
    for (const [args, expected] of cases) {
      const result = cli(args);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
      noStackTrace(result.stderr);
    }
    assert.deepEqual(fs.readFileSync(db), before, 'the database is untouched');
  });

  test('a database file that is not a database, and a read-only one', () => {
    const { dir, db } = fresh();
    fs.writeFileSync(db, 'not sqlite at all, but a long enough text to look like a file of some kind. '.repeat(3));
    // Moved aside (never deleted) and a new ledger started; outside a workspace there are no files to rebuild it from, so it says what to do.
    const corrupt = cli(['list', '--db', db]);
    assert.equal(corrupt.code, 0);
    assert.match(corrupt.stderr, /not a valid ledger database.*moved to.*import your last JSONL export/s);
    noStackTrace(corrupt.stderr);
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('ledger.db.corrupt-')));

    const readonlyDb = path.join(dir, 'ro.db');
    cli(['init', '--db', readonlyDb]);
    fs.chmodSync(readonlyDb, 0o444);
    const refused = cli(['add', '--db', readonlyDb, '--type', 'note', '--title', 't', '--body', 'b']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /read-only/);
    fs.chmodSync(readonlyDb, 0o644);
  });

  test('without --db it finds .context-ledger/ledger.db in the nearest parent folder', () => {
    const { dir } = fresh();
    assert.equal(cli(['init'], { cwd: dir }).code, 0);
    const nested = path.join(dir, 'src', 'deep');
    fs.mkdirSync(nested, { recursive: true });
    cli(['add', '--type', 'note', '--title', 'Found', '--body', 'b'], { cwd: nested });
    assert.ok(fs.existsSync(path.join(dir, '.context-ledger', 'ledger.db')));
    assert.equal(jsonOf<Row[]>(cli(['list', '--format', 'json'], { cwd: dir }))[0]?.title, 'Found');
  });

  test('two CLI processes adding at once lose nothing', async () => {
    const { db } = fresh();
    cli(['init', '--db', db]);
    
    const run = async (prefix: string) => {
      for (let i = 0; i < 12; i++) {
        const result = await cliAsync(['add', '--db', db, '--type', 'note', '--title', `${prefix}${i}`, '--body', 'b']);
        assert.equal(result.code, 0, result.stderr);
      }
    };
    await Promise.all([run('a'), run('b')]);
    assert.equal(jsonOf<Row[]>(cli(['list', '--db', db, '--format', 'json'])).length, 24);
  });

  test('a reader that closes the pipe early (| head) ends the output quietly; a write still lands', () => {
    const { dir, db } = fresh();
    const body = 'Ünïcode line\n'.repeat(20_000);
    const file = path.join(dir, 'big.md');
    fs.writeFileSync(file, body);
    assert.equal(cli(['add', '--db', db, '--type', 'note', '--title', 'Big', '--body-file', file]).code, 0);
    const id = jsonOf<Row[]>(cli(['list', '--db', db, '--format', 'json']))[0]!.id;
    const shell = (command: string) => spawnSync('sh', ['-c', command], { encoding: 'utf8', env: { ...process.env, CLI, DB: db, ID: id } });
    // The body is far more than a pipe holds, so the CLI is still writing when head exits.
    const read = shell('node "$CLI" show --db "$DB" "$ID" | head -c 10');
    assert.equal(read.status, 0, read.stderr);
    assert.equal(read.stderr, '', 'no EPIPE stack trace');
    const write = shell('node "$CLI" add --db "$DB" --type note --title "Written while piped" --body b --format json | head -c 1; node "$CLI" list --db "$DB" --format json');
    assert.equal(write.stderr, '');
    assert.match(write.stdout, /Written while piped/);
  });

  test('add, list and build start without loading the MCP SDK, zod, marked or yaml; mcp and import-folder still find them', () => {
    const { dir, db } = fresh();
    // Preloaded into the CLI process: prints the files it loaded when it exits.
    const probe = path.join(dir, 'probe.cjs');
    fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n");
    const loaded = (args: string[]): string[] => {
      const result = spawnSync(process.execPath, ['-r', probe, CLI, ...args], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(/^LOADED (.*)$/m.exec(result.stderr)![1]!) as string[];
    };
    const heavy = /vendor-|node_modules[\\/](zod|yaml|marked|@modelcontextprotocol)/;
    for (const args of [
      ['add', '--db', db, '--type', 'note', '--title', 'Ünïcode', '--body', 'b'],
      ['list', '--db', db],
      ['build', '--db', db, '--budget', '500', '--format', 'json', '--no-log'],
    ]) {
      const files = loaded(args);
      assert.ok(files.some((f) => f.endsWith('cli.js')), args[0]);
      assert.deepEqual(files.filter((f) => heavy.test(f)), [], args[0]);
      // Nor parse them inside cli.js (they were 1.4 MB of its 1.9 MB; cli.js alone is ~0.7 MB unminified); the tokenizer's rank data is its own file.
      const bytes = files.filter((f) => !/tokenizer-/.test(f)).reduce((sum, f) => sum + fs.statSync(f).size, 0);
      // 1,100 KB: cli.js is ~1 MB of its own code now (the MCP server's transport and checks, hooks, logs, mirror,
      // persistence, the redactor's provider formats, fourteen tools' rule formats); a parser library inlined would add 0.3-1.4 MB.
      assert.ok(bytes < 1_100_000, `${args[0]} parsed ${bytes} bytes of JavaScript`);
    }
    fs.mkdirSync(path.join(dir, 'docs', 'adr'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs', 'adr', '0001-use-sqlite.md'), '# 1. Use SQLite\n\n## Status\n\nAccepted\n\n## Decision\n\nWe use it.\n');
    const imported = loaded(['import-folder', dir, '--db', db]);
    assert.ok(imported.some((f) => f.endsWith('vendor-formats.js')));
    assert.equal(jsonOf<Row[]>(cli(['list', '--db', db, '--type', 'adr', '--format', 'json'])).length, 1);
    // zod (the tools' schemas) and the MCP SDK load only where the protocol is served: the workspace's ledger server, or
    // `mcp` serving on its own (test/unit/agent/mcp*.test.ts); `mcp --help`, like the relay, loads neither.
    const help = loaded(['mcp', '--help']);
    assert.ok(help.some((f) => f.endsWith('cli.js')));
    assert.ok(!help.some((f) => f.endsWith('vendor-zod.js')));
    assert.ok(!help.some((f) => f.endsWith('vendor-agent.js')));
  });
});
