/**
 * One artifact schema (src/core/artifactSchema.ts), and no churn for teams: the artifact files,
 * the JSONL export and an inbox proposal that the ledger wrote before the recorded fields were
 * typed (fixtures/main-artifacts, made by its generate.sh with the CLI of main at 37e93d1) read
 * to typed artifacts, and are written back byte for byte after a trip through the index.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_RECORDED_CHARS, RECORDED_FIELD_NAMES } from '../../../src/core/artifactSchema';
import { parseMirrorFile, renderMirrorFile } from '../../../src/core/formats/mirror';
import { parseInboxFile } from '../../../src/core/inbox';
import { artifactsForExport, importJsonl, parseJsonl, toJsonl } from '../../../src/core/jsonl';
import { type Artifact, UserError } from '../../../src/core/model';
import { ROOT, cli, memoryStore, tempDir } from '../helpers';

const FIXTURES = path.join(ROOT, 'test', 'unit', 'fixtures', 'main-artifacts');
const ARTIFACTS = path.join(FIXTURES, 'artifacts');

function mainFiles(): Array<{ at: string; content: string }> {
  return fs
    .readdirSync(ARTIFACTS, { recursive: true, encoding: 'utf8' })
    .filter((at) => at.endsWith('.md'))
    .sort()
    .map((at) => ({ at: at.split(path.sep).join('/'), content: fs.readFileSync(path.join(ARTIFACTS, at), 'utf8') }));
}

function noRecordedKeyIn(artifact: Pick<Artifact, 'extra'>, where: string): void {
  for (const key of RECORDED_FIELD_NAMES) assert.ok(!(key in artifact.extra), `${where}: "${key}" is typed, not in extra`);
}

describe('files written before the schema', () => {
  it('read to typed artifacts and are written back byte for byte after the index', async () => {
    const files = mainFiles();
    assert.equal(files.length, 11);
    const store = await memoryStore();
    for (const { at, content } of files) {
      const input = parseMirrorFile(at, content);
      noRecordedKeyIn({ extra: input.extra ?? {} }, at);
      const { artifact } = store.importArtifact(input);
      const stored = store.latestOfChain(artifact.chainId)!;
      noRecordedKeyIn(stored, at);
      assert.equal(renderMirrorFile(stored).content, content, at);
    }
  });

  it('carry review state, provenance and supersession as typed fields', () => {
    const byTitle = new Map(mainFiles().map(({ at, content }) => [parseMirrorFile(at, content).title, parseMirrorFile(at, content)]));
    const revised = byTitle.get('The cache is warm after 2 builds')!;
    assert.deepEqual(
      [revised.review, revised.proposedVia, revised.proposedBy, revised.reviewedBy, revised.changeNote, revised.extra],
      ['unreviewed', 'mcp', 'gemini-cli', 'Bea', 're-measured', undefined],
    );
    assert.match(revised.previousVersion!, /^learning-.*-v2-/);
    const replacement = byTitle.get('Retry uploads with jitter')!;
    assert.match(replacement.supersedesId!, /^decision-/);
    assert.equal(byTitle.get('Store dates as UTC')!.review, 'rejected');
    const adr = byTitle.get('ADR-0001: Use Postgres')!;
    assert.deepEqual([adr.adrNumber, adr.adrStatus, adr.frontMatter, adr.linked?.file], [1, 'accepted', { deciders: ['ana'] }, 'docs/adr/0001-use-postgres.md']);
    // A team's own keys stay in extra, in their place among the recorded ones.
    const team = byTitle.get('Team note')!;
    assert.deepEqual([team.review, team.reviewedBy, team.extra], ['approved', 'lead', { owner: 'platform', ticket: { id: 42 } }]);
  });

  it('the JSONL export reads to typed artifacts and exports again unchanged', async () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'export.jsonl'), 'utf8');
    const parsed = parseJsonl(text);
    assert.deepEqual(parsed.errors, []);
    for (const { input } of parsed.artifacts) noRecordedKeyIn({ extra: input.extra ?? {} }, input.id!);
    const store = await memoryStore();
    assert.deepEqual(importJsonl(store, text).errors, []);
    assert.equal(toJsonl(artifactsForExport(store)), text);
  });

  it("an inbox proposal reads as it did", () => {
    const parsed = parseInboxFile(fs.readFileSync(path.join(FIXTURES, 'inbox-proposal.json'), 'utf8'));
    assert.deepEqual(parsed.artifacts, [{ type: 'learning', title: 'The cache is warm after 2 builds', body: 'Measured on CI.', tags: ['cache'], agent: 'claude-code' }]);
  });
});

describe('what a user sees of them', () => {
  it('`list --format json` shows the recorded fields and not the key-order bookkeeping that keeps a re-write byte-identical', () => {
    const workspace = tempDir();
    fs.mkdirSync(path.join(workspace, '.context-ledger'));
    fs.cpSync(ARTIFACTS, path.join(workspace, '.context-ledger', 'artifacts'), { recursive: true });
    const listed = cli(['list', '--format', 'json'], { cwd: workspace });
    assert.equal(listed.code, 0, listed.stderr);
    const artifacts = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.equal(artifacts.length, 11);
    assert.ok(artifacts.some((a) => a.review !== undefined), 'the review state is a field of its own');
    assert.ok(!listed.stdout.includes('extraOrder'));
    fs.rmSync(workspace, { recursive: true, force: true });
  });
});

describe('malformed recorded fields', () => {
  const file = (extra: string): string => `---\ntype: "note"\ntitle: "T"\nextra: ${extra}\n---\n\nBody ü.\n`;

  const bad: Array<[string, string, RegExp]> = [
    ['wrong type', '{"review": 42}', /note\/t\.md: "extra\.review" must be one of unreviewed, approved, rejected, not 42/],
    ['unknown state', '{"review": "löschen"}', /"extra\.review" must be one of .*not "löschen"/],
    ['huge', `{"proposedBy": "${'x'.repeat(MAX_RECORDED_CHARS + 1)}"}`, new RegExp(`"extra\\.proposedBy" must be a string of at most ${MAX_RECORDED_CHARS} characters, not a text of ${MAX_RECORDED_CHARS + 1} characters`)],
    ['hostile link', '{"linked": {"file": "../../etc/passwd"}}', /"extra\.linked" must be a mapping of file, section/],
    ['NUL', '{"author": "a\\u0000b"}', /"extra\.author" must be a string/],
    ['a list', '{"adrNumber": [1]}', /"extra\.adrNumber" must be a whole number, not a list/],
  ];
  for (const [what, extra, message] of bad) {
    it(`a file: ${what} is an error naming the file and the field`, () => {
      assert.throws(() => parseMirrorFile('note/t.md', file(extra)), (error: unknown) => error instanceof UserError && message.test(error.message));
    });
  }

  it('a key at the top of the front matter is named as it is written', () => {
    assert.throws(() => parseMirrorFile('note/t.md', '---\ntype: note\ntitle: T\nreview: maybe\n---\n\nB\n'), /note\/t\.md: "review" must be one of/);
  });

  it('non-ASCII names and a team key called __proto__ are kept as text', async () => {
    const content = file('{"__proto__": {"polluted": true}, "author": "Ana Ö 日本", "proposedVia": "mcp"}');
    const input = parseMirrorFile('note/t.md', content);
    assert.equal(input.author, 'Ana Ö 日本');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(input.extra!), ['__proto__']);
    const store = await memoryStore();
    const { artifact } = store.importArtifact({ ...input, id: 'n1' });
    const back = renderMirrorFile(store.latestOfChain(artifact.chainId)!).content;
    assert.match(back, /\nextra: \{"__proto__": \{"polluted": true\}, "author": "Ana Ö 日本", "proposedVia": "mcp"\}\n/);
  });

  it('a front matter key __proto__ is a kept key, never where other keys are looked up', () => {
    assert.throws(() => parseMirrorFile('note/t.md', '---\ntype: "note"\n__proto__: {"title": "evil"}\n---\n\nB\n'), /"title" is missing/);
    const input = parseMirrorFile('note/t.md', '---\ntype: "note"\ntitle: "T"\n__proto__: {"review": "approved"}\n---\n\nB\n');
    assert.equal(input.review, undefined);
    assert.deepEqual(Object.keys(input.extra!), ['__proto__']);
  });

  it('a JSONL line with a bad recorded field is reported by line; the good lines import', async () => {
    const store = await memoryStore();
    const text = [
      JSON.stringify({ id: 'a', type: 'note', title: 'A', body: 'a', review: 'yes' }),
      JSON.stringify({ id: 'b', type: 'note', title: 'B', body: 'b', review: 'approved', owner: 'x' }),
    ].join('\n');
    const report = importJsonl(store, text);
    assert.deepEqual(report.errors, [{ line: 1, message: '"review" must be one of unreviewed, approved, rejected, not "yes".' }]);
    const b = store.getArtifact('b')!;
    assert.deepEqual([b.review, b.extra], ['approved', { owner: 'x' }]);
  });

  it('the index keeps a bad value an older version stored, in extra, and writes it back', async () => {
    const store = await memoryStore();
    const created = store.createArtifact({ id: 'old', type: 'note', title: 'Old', body: 'b', extra: { review: 42, owner: 'y' } });
    const read = store.getArtifact(created.id)!;
    assert.deepEqual([read.review, read.extra], [undefined, { review: 42, owner: 'y' }]);
    assert.match(renderMirrorFile(read).content, /\nextra: \{"review": 42, "owner": "y"\}\n/);
  });
});
