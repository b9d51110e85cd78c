/**
 * Issue 42: every front end follows the files the team shares, with no command in between.
 * Two clones of a bare remote (real git), the real CLI and the real MCP server: A adds and
 * pushes; B, a fresh clone (artifact files, no database), finds it; B's running server sees
 * a pull that changed an artifact file, a teammate's edit on disk, and a pulled change to an
 * imported knowledge file (AGENTS.md) before its next answer.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { type ArtifactJson, jsonOf, tempDir } from '../helpers';
import { LedgerSession } from '../../../src/node/session';
import { git, ok, remote, startMcp } from './shared';

describe('the ledger session follows the shared files', () => {
  it('MCP: a fresh clone finds the artifact; a running server sees a pull, an edit on disk and a pulled knowledge file before its next answer', async () => {
    const team = remote('ledger-session-mcp-');
    const a = team.clone('Alice');
    ok(a.run(['init']));
    const added = jsonOf<ArtifactJson>(ok(a.run(['add', '--type', 'decision', '--title', 'Retry webhooks with jitter — ünïcode', '--body', 'Use full jitter on retries.', '--format', 'json'])));
    fs.writeFileSync(path.join(a.dir, 'AGENTS.md'), '# Agents\n\n## Testing\n\nRun the unit tests with npm test before pushing.\n');
    ok(a.run(['import-folder']));
    a.commitAndPush('ledger: first knowledge');

    const b = team.clone('Bob');
    assert.equal(fs.existsSync(path.join(b.dir, '.context-ledger', 'ledger.db')), false, 'a fresh clone has no database');
    const server = await startMcp(b.dir);
    try {
      const found = await server.call('search_artifacts', { query: 'jitter' });
      assert.equal(found.isError, false, found.text);
      assert.match(found.text, /Retry webhooks with jitter/);
      assert.doesNotMatch(found.text, /No artifacts match/);

      // A revises it and pushes; B pulls while its server runs: the next answer has the new text.
      ok(a.run(['update', added.id, '--body', 'Use full jitter on retries, capped at 30 seconds of backoff.']));
      a.commitAndPush('ledger: cap the backoff');
      b.pull();
      const revised = await server.call('search_artifacts', { query: 'jitter' });
      assert.match(revised.text, /capped at 30 seconds of backoff/, revised.text);
      assert.equal((revised.data?.results as unknown[]).length, 1, 'one artifact, its new version');

      // A teammate's edit of the artifact file on disk, with no command in between.
      const file = path.join(b.dir, '.context-ledger', 'artifacts', 'decision', fs.readdirSync(path.join(b.dir, '.context-ledger', 'artifacts', 'decision'))[0]!);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('capped at 30 seconds', 'capped at 45 seconds'));
      assert.match((await server.call('search_artifacts', { query: 'jitter' })).text, /capped at 45 seconds/);

      // A pulled change to a knowledge file the ledger imported (no artifact file changed with it).
      fs.writeFileSync(path.join(a.dir, 'AGENTS.md'), '# Agents\n\n## Testing\n\nRun npm run test:unit, then the e2e suite, before pushing.\n');
      a.commitAndPush('AGENTS.md only');
      b.pull();
      const testing = await server.call('search_artifacts', { query: 'e2e suite' });
      assert.match(testing.text, /Testing/, testing.text);
      assert.equal(server.stderr().includes('Error'), false, server.stderr());
    } finally {
      await server.close();
    }
  });

  it('CLI: a fresh clone lists the artifact; the first command after a pull shows the pulled version', () => {
    const team = remote('ledger-session-cli-');
    const a = team.clone('Alice');
    ok(a.run(['init']));
    const added = jsonOf<ArtifactJson>(ok(a.run(['add', '--type', 'convention', '--title', 'Money is integer cents', '--body', 'Never floats.', '--format', 'json'])));
    fs.mkdirSync(path.join(a.dir, '.cursor', 'rules'), { recursive: true });
    fs.writeFileSync(path.join(a.dir, '.cursor', 'rules', 'tests.mdc'), '---\ndescription: Testing\nalwaysApply: true\n---\n\nRun the unit tests before pushing.\n');
    ok(a.run(['import-folder']));
    a.commitAndPush('ledger: money');

    const b = team.clone('Bob');
    const listed = jsonOf<ArtifactJson[]>(ok(b.run(['list', '--format', 'json'])));
    assert.deepEqual(listed.map((x) => x.title).sort(), ['Money is integer cents', 'Testing']);

    // A edits a rule file and adds one beside it; A's next command follows them (new versions, their artifact files).
    fs.writeFileSync(path.join(a.dir, '.cursor', 'rules', 'tests.mdc'), '---\ndescription: Testing\nalwaysApply: true\n---\n\nRun the unit tests, then the e2e suite, before pushing.\n');
    fs.writeFileSync(path.join(a.dir, '.cursor', 'rules', 'style.mdc'), '---\ndescription: Style\nalwaysApply: true\n---\n\nNames say what; comments say why.\n');
    ok(a.run(['list']));
    a.commitAndPush('rules');
    b.pull();
    const rules = jsonOf<ArtifactJson[]>(ok(b.run(['list', '--text', 'pushing', '--format', 'json'])));
    assert.equal(rules.length, 1);
    assert.match(ok(b.run(['show', rules[0]!.id])).stdout, /then the e2e suite/);
    assert.deepEqual(jsonOf<ArtifactJson[]>(ok(b.run(['list', '--text', 'comments say why', '--format', 'json']))).map((x) => x.title), ['Style']);
    assert.equal(git(b.dir, ['status', '--porcelain']), '', 'following the pull left git clean');

    ok(a.run(['update', added.id, '--body', 'Never floats; store integer cents with the currency.']));
    a.commitAndPush('ledger: currency');
    b.pull();
    const after = jsonOf<ArtifactJson[]>(ok(b.run(['list', '--format', 'json']))).filter((x) => x.chainId === added.chainId);
    assert.deepEqual(after.map((x) => [x.chainId, x.version]), [[added.chainId, 2]]);
    assert.match(ok(b.run(['show', after[0]!.id])).stdout, /store integer cents with the currency/);
  });
});

describe('a refresh that meets another writer at the lock', () => {
  it('reports the change when the index another process saved is loaded by the lock its import takes (the editor saw the files before the index)', async () => {
    const dir = tempDir('ledger-lock-refresh-');
    const writer = await LedgerSession.open({ cwd: dir, create: true });
    await writer.write((s) => s.createArtifact({ type: 'note', title: 'First', body: 'one' }));
    let external = 0;
    const editor = await LedgerSession.open({ cwd: dir, onExternalChange: () => external++ });
    assert.equal(await editor.read((s) => s.listArtifacts({}).length), 1);

    // The CLI writes the new file, then the index; the editor lists the file while the index on disk
    // is still the old one, and by the time it holds the lock the new index is there.
    await writer.write((s) => s.createArtifact({ type: 'note', title: 'Second', body: 'two' }));
    const ledger = (editor as unknown as { ledger: { refresh(): boolean } }).ledger;
    const refresh = ledger.refresh.bind(ledger);
    let first = true;
    ledger.refresh = () => (first ? ((first = false), false) : refresh());

    assert.equal(await editor.refresh(), true, 'the refresh says the ledger changed');
    assert.equal(external, 1, 'and the editor is told, so its views and the Inspector show the new artifact');
    assert.equal(await editor.read((s) => s.listArtifacts({}).length), 2);
    writer.close();
    editor.close();
  });
});
