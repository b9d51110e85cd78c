import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext, type AssembleRequest, type AssembleResult } from '../../../src/core/assemble';
import type { LedgerStore } from '../../../src/core/store';
import { readConfig, toAssembleOptions } from '../../../src/extension/configModel';
import { ROOT, cli, fixedClock, jsonOf, memoryStore, tempDir } from '../helpers';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const REAL = path.join(ROOT, 'test/unit/fixtures/real');

/**
 * A ledger of real teams' knowledge (fixtures/real, see its SOURCES.md): every top-level
 * section of every file is one artifact, as an import by sections would make them.
 */
export function realSections(): Array<{ id: string; title: string; body: string }> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name !== 'SOURCES.md') files.push(full);
    }
  };
  walk(REAL);
  const sections: Array<{ id: string; title: string; body: string }> = [];
  for (const file of files.sort()) {
    const rel = path.relative(REAL, file).split(path.sep).join('/');
    fs.readFileSync(file, 'utf8')
      .split(/^(?=##? )/m)
      .forEach((part, i) => {
        if (!part.trim()) return;
        const title = (/^#+ (.*)/.exec(part)?.[1] ?? path.basename(file)).trim();
        sections.push({ id: `${rel.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${i}`, title, body: part });
      });
  }
  return sections;
}

async function ledgerOf(sections: ReadonlyArray<{ id: string; title: string; body: string }>): Promise<LedgerStore> {
  const store = await memoryStore(fixedClock());
  for (const s of sections) store.createArtifact({ id: s.id, type: 'note', title: s.title, body: s.body });
  return store;
}

function build(store: LedgerStore, task: { title: string; description?: string }, extra: Partial<AssembleRequest> = {}): Promise<AssembleResult> {
  // Meaning is on by default at its measured weight; these builds say so, so they keep testing it if the default moves.
  const options = { ...extra.options, meaning: { weight: 0.3, ...extra.options?.meaning } };
  return assembleContext(store, { budget: 4000, now: NOW, task, paths: [], log: false, ...extra, options });
}

const full = (r: AssembleResult): string[] => r.items.filter((i) => i.mode === 'full').map((i) => i.id);
const WORDS_ONLY = { options: { meaning: { weight: 0 } } };

describe('matching by meaning (latent semantic analysis of the ledger)', () => {
  test('a note that shares no word with the task comes in when the ledger ties its words to the task', async () => {
    const store = await ledgerOf(realSections());
    // Hyades ADR 008's Consequences section speaks of "a more streamlined and secure experience"
    // and "authentication tokens"; the rest of the ADR ties it to SBOM uploads and GitLab.
    const task = { title: 'uploading the software bill of materials to gitlab' };
    const consequences = 'hyades-docs-architecture-decisions-008-sbom-push-with-gitlab-token-md-3';
    // Its cosine with the task is between 0.5 and 0.6 (it moves with the ledger's vocabulary,
    // tags included): under the default bar for a meaning match alone (0.7, kept high because
    // on the development sets such matches were mostly unjudged), so the bar is lowered here
    // to show the mechanism; the words-only build below never has it.
    const byMeaning = await build(store, task, { budget: 2000, options: { meaning: { evidence: 0.5 } } });
    const item = byMeaning.items.find((i) => i.id === consequences);
    assert.ok(item, byMeaning.items.map((i) => `${i.id}: ${i.reason}`).join('\n'));
    assert.match(item.reason, /meaning match 0\.\d\d/);
    const byWords = await build(store, task, { budget: 2000, ...WORDS_ONLY });
    assert.equal(byWords.items.find((i) => i.id === consequences), undefined, 'without meaning the section has no evidence at all');
  });

  test('meaning lifts the rest of a decision over notes that merely share a word', async () => {
    const store = await ledgerOf(realSections());
    const task = { title: 'sql queries bind parameters by name' };
    const consequences = 'revaer-docs-adr-017-sqlx-named-bind-md-3';
    assert.ok(full(await build(store, task, { budget: 2000 })).includes(consequences));
    assert.ok(!full(await build(store, task, { budget: 2000, ...WORDS_ONLY })).includes(consequences));
  });

  test('explain says how much meaning moved an item from the words\' reading, and the parts add up', async () => {
    const store = await ledgerOf(realSections());
    const result = await build(store, { title: 'sql queries bind parameters by name' }, { budget: 2000 });
    const consequences = result.items.find((i) => i.id === 'revaer-docs-adr-017-sqlx-named-bind-md-3');
    assert.ok(consequences);
    const parts = /text relevance (\d\.\d\d) \(words (\d\.\d\d), meaning ([+−])(\d\.\d\d)\)/.exec(consequences.reason);
    assert.ok(parts, consequences.reason);
    const [, total, words, sign, lift] = parts;
    assert.equal(sign, '+', 'meaning is what lifted it');
    assert.ok(Math.abs(Number(words) + Number(lift) - Number(total)) <= 0.011, consequences.reason);
    // Words alone: the same item, if shown, says nothing of meaning.
    const byWords = await build(store, { title: 'sql queries bind parameters by name' }, { budget: 2000, ...WORDS_ONLY });
    assert.ok(byWords.items.every((i) => !/meaning/.test(i.reason)));
  });

  test('the same ledger gives the same ranking, build after build and store after store, whatever order its knowledge was written in', async () => {
    const sections = realSections();
    const task = { title: 'a worker job retries forever when redis is down' };
    const first = await build(await ledgerOf(sections), task);
    const again = await build(await ledgerOf(sections), task);
    assert.deepEqual(
      again.items.map((i) => [i.id, i.score, i.mode]),
      first.items.map((i) => [i.id, i.score, i.mode]),
    );
    assert.equal(again.text, first.text);
    // A teammate's import of the same files may write them in another order (the store lists
    // them as written): the model learns from them in one order all the same.
    const reversed = await build(await ledgerOf([...sections].reverse()), task);
    assert.ok(reversed.items.some((i) => /meaning/.test(i.reason)), 'meaning moved some item: the test says something about the model');
    assert.deepEqual(
      reversed.items.map((i) => [i.id, i.score, i.mode]),
      first.items.map((i) => [i.id, i.score, i.mode]),
    );
    assert.equal(reversed.text, first.text);
  });

  test('a task on a topic the ledger never speaks of brings nothing in by meaning', async () => {
    const store = await ledgerOf(realSections());
    for (const title of ['plan a kubernetes helm chart upgrade', 'rename the payment invoice totals']) {
      const result = await build(store, { title });
      assert.deepEqual(result.items.filter((i) => /meaning match/.test(i.reason)).map((i) => i.id), [], title);
      // Meaning may reorder what the words found ("plan", "upgrade"), but adds nothing to it.
      assert.deepEqual(full(result).sort(), full(await build(store, { title }, WORDS_ONLY)).sort(), title);
    }
  });

  test('an empty ledger and a one-artifact ledger build as before (too small to learn from)', async () => {
    const empty = await memoryStore(fixedClock());
    const none = await build(empty, { title: 'anything at all' });
    assert.equal(none.items.length, 0);
    const one = await memoryStore(fixedClock());
    one.createArtifact({ id: 'only', type: 'decision', title: 'Retry webhooks with backoff', body: 'Retries back off exponentially.' });
    const result = await build(one, { title: 'webhook retries' });
    assert.deepEqual(result.items.map((i) => i.id), ['only']);
    assert.doesNotMatch(result.items[0]!.reason, /meaning/);
    assert.equal((await build(one, { title: 'webhook retries' }, WORDS_ONLY)).text, result.text);
  });

  test('a huge body and non-ASCII text are learned from like any other', async () => {
    const sections = realSections();
    // A pasted 3 MB log among the notes: the index reads its head only, and the model stays quick.
    sections.push({ id: 'pasted-log', title: 'Build log', body: 'error: linker failed at step 42\n'.repeat(100_000) });
    // Notes in Russian that speak of the same things in the same words, and one that does not.
    for (let i = 0; i < 6; i++) {
      sections.push({ id: `ru-cache-${i}`, title: `Кэш страниц ${i}`, body: `Кэш страниц сбрасывается при каждой публикации. Инвалидация кэша идёт через очередь сообщений (часть ${i}).` });
    }
    sections.push({ id: 'ru-queue', title: 'Очередь сообщений', body: 'Очередь сообщений доставляет инвалидация подписчикам; порядок гарантирован в пределах раздела.' });
    const store = await ledgerOf(sections);
    const started = performance.now();
    const result = await build(store, { title: 'кэш страниц после публикации' });
    assert.ok(performance.now() - started < 20_000);
    assert.ok(full(result).includes('ru-cache-0'), result.items.map((i) => i.id).join(', '));
    assert.ok(!result.items.some((i) => i.id === 'pasted-log'));
  });
});

describe('turning meaning off and on', () => {
  test('builds match by meaning unless the setting or the CLI flag turns it off; a malformed setting is the default', () => {
    assert.equal(toAssembleOptions(readConfig(() => undefined)).meaning, undefined, 'unset: the default blend');
    assert.deepEqual(toAssembleOptions(readConfig((name) => (name === 'meaning' ? false : undefined))).meaning, { weight: 0 });
    assert.equal(toAssembleOptions(readConfig((name) => (name === 'meaning' ? true : undefined))).meaning, undefined);
    assert.equal(toAssembleOptions(readConfig((name) => (name === 'meaning' ? 'no' : undefined))).meaning, undefined, 'a malformed value is the default');
    const dir = tempDir();
    const db = path.join(dir, 'ledger.db');
    assert.equal(cli(['add', '--db', db, '--type', 'decision', '--title', 'Retry webhooks with backoff', '--body', 'Retries back off exponentially.']).code, 0);
    for (const flag of ['--meaning', '--no-meaning']) {
      const out = cli(['build', '--db', db, flag, '--task-title', 'webhook retries', '--format', 'json', '--no-log']);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(jsonOf<{ items: Array<{ id: string }> }>(out).items.length, 1, flag);
    }
  });

  test('a standing rule is matched by its words alone, a record by words and meaning', async () => {
    // The same sections twice: as notes (records) and as conventions (standing rules). The
    // Hyades consequences section has no word of the task; as a note it comes in by meaning at a
    // lowered bar, as a convention it never does, and the rules' scores are those of a words-only build.
    const sections = realSections();
    const task = { title: 'uploading the software bill of materials to gitlab' };
    const consequences = 'hyades-docs-architecture-decisions-008-sbom-push-with-gitlab-token-md-3';
    const rules = await memoryStore(fixedClock());
    for (const s of sections) rules.createArtifact({ id: s.id, type: 'convention', title: s.title, body: s.body });
    const lowBar = { budget: 2000, options: { meaning: { evidence: 0.5 } } };
    const asRules = await build(rules, task, lowBar);
    assert.equal(asRules.items.find((i) => i.id === consequences), undefined);
    assert.ok(!asRules.items.some((i) => /meaning/.test(i.reason)), 'a rule is never said to be moved by meaning');
    const asRulesByWords = await build(rules, task, { budget: 2000, ...WORDS_ONLY });
    assert.deepEqual(asRules.items.map((i) => [i.id, i.score]), asRulesByWords.items.map((i) => [i.id, i.score]));
    const asNotes = await build(await ledgerOf(sections), task, lowBar);
    assert.ok(asNotes.items.some((i) => i.id === consequences));
  });
});
