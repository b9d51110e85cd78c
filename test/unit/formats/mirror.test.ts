import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { MirrorArtifact } from '../../../src/core/formats/mirror';
import { mirrorSlug, parseMirrorFile, renderMirror, renderMirrorFile } from '../../../src/core/formats/mirror';
import { UserError } from '../../../src/core/model';

function artifact(overrides: Partial<MirrorArtifact> = {}): MirrorArtifact {
  return {
    id: 'a1',
    chainId: 'c1',
    version: 3,
    type: 'decision',
    scope: 'path',
    taskId: null,
    paths: ['src/**/*.ts', 'lib/*.{js,mjs}'],
    title: 'Use a ledger',
    body: 'Body.',
    summary: null,
    tags: ['storage', 'sql'],
    conditions: { labels: ['bug'], keywords: ['ledger'], paths: ['src/**'] },
    status: 'active',
    supersedes: 'c0',
    pinned: true,
    source: 'import:ctx:.context/DECISIONS.md',
    createdAt: '2026-07-25T19:04:10Z',
    updatedAt: '2026-07-26T08:00:00.123Z',
    ...overrides,
  };
}

/** Every field parseMirrorFile should give back, from an artifact. */
function fieldsOf(a: MirrorArtifact): Record<string, unknown> {
  const { contentHash: _hash, extra, ...rest } = a;
  return extra && Object.keys(extra).length > 0 ? { ...rest, extra } : rest;
}

const TRICKY_BODIES = [
  '',
  '  leading spaces\n\nand trailing  \n\n',
  '\n\nstarts with blank lines',
  'windows\r\nline\r\nendings\r\n',
  'lone\rCR',
  '---\ntitle: not front matter\n---\n',
  '# Heading\n\n```\n---\n```\n',
  '😀 emoji, 漢字 CJK, עברית RTL, e\u0301 combining',
  '\t tab first',
  'ends without newline',
  'ends with many newlines\n\n\n',
];

const TRICKY_TITLES = ['null', '123', 'true', 'a: b', '- dash', '#hash', '"quoted"', "it's", '---', 'multi\nline', ' padded ', '日本語 🚀', ''];

describe('mirror round trip', () => {
  it('gives back every field exactly, for tricky bodies', () => {
    for (const body of TRICKY_BODIES) {
      const a = artifact({ body });
      const file = renderMirrorFile(a);
      assert.deepEqual(parseMirrorFile(file.path, file.content), fieldsOf(a), JSON.stringify(body));
    }
  });

  it('gives back every field exactly, for tricky titles, summaries and extra fields', () => {
    for (const title of TRICKY_TITLES) {
      const a = artifact({
        title,
        summary: `${title}\nsummary\r\n`,
        taskId: 'task-1',
        supersedes: null,
        scope: 'task',
        adrNumber: 7,
        review: 'approved',
        extra: { nested: { list: [1, 'two', null] }, '--': 'odd key' },
      });
      const file = renderMirrorFile(a);
      assert.deepEqual(parseMirrorFile(file.path, file.content), fieldsOf(a), JSON.stringify(title));
    }
  });

  it('writes the documented layout: front matter, blank line, body, newline', () => {
    const file = renderMirrorFile(artifact({ body: 'B' }));
    assert.equal(file.path, 'decision/use-a-ledger.md');
    assert.ok(file.content.startsWith('---\nid: "a1"\nchainId: "c1"\nversion: 3\ntype: "decision"\ntitle: "Use a ledger"\n'));
    assert.ok(file.content.endsWith('---\n\nB\n'));
    assert.match(file.content, /\nconditions: \{"labels": \["bug"\], "keywords": \["ledger"\], "paths": \["src\/\*\*"\]\}\n/);
  });

  it('still parses a file whose line endings were all converted to CRLF', () => {
    const file = renderMirrorFile(artifact({ body: 'line 1\nline 2' }));
    const parsed = parseMirrorFile(file.path, file.content.replace(/\n/g, '\r\n'));
    assert.equal(parsed.body, 'line 1\r\nline 2');
    assert.equal(parsed.title, 'Use a ledger');
  });

  it('writes front matter any YAML parser reads to the same values', () => {
    const a = artifact({ title: 'a: "b" \u2028 \uFEFF 😀', summary: 'x\ny', extra: { n: 1, deep: { list: ['a', null, true] } } });
    const file = renderMirrorFile(a);
    const yamlText = file.content.slice(4, file.content.indexOf('\n---\n') + 1);
    const viaYaml = parseYaml(yamlText, { schema: 'core' }) as Record<string, unknown>;
    assert.equal(viaYaml.title, a.title);
    assert.equal(viaYaml.summary, 'x\ny');
    assert.deepEqual(viaYaml.extra, a.extra);
    assert.deepEqual(viaYaml.conditions, a.conditions);
    assert.ok(!/[\u2028\uFEFF]/.test(file.content));
  });

  it('reads hand-edited block-style YAML front matter', () => {
    const content = '---\ntype: convention\ntitle: Tabs\ntags:\n  - style\n  - go\npinned: yes\n---\n\nUse tabs.\n';
    assert.throws(() => parseMirrorFile('convention/tabs.md', content), /"pinned"/);
    const parsed = parseMirrorFile('convention/tabs.md', content.replace('pinned: yes', 'pinned: true'));
    assert.deepEqual(parsed, { body: 'Use tabs.', type: 'convention', title: 'Tabs', tags: ['style', 'go'], pinned: true });
  });

  it('reads a hand-written file: defaults left out, unknown keys kept in extra, type from the folder', () => {
    const parsed = parseMirrorFile('note/hello.md', '---\ntitle: Hello\nowner: ann\n---\nHi there\n');
    assert.deepEqual(parsed, { body: 'Hi there', type: 'note', title: 'Hello', extra: { owner: 'ann' } });
  });
});

describe('mirror errors', () => {
  const cases: Array<[string, RegExp]> = [
    ['no front matter', /no front matter/],
    ['---\ntitle: x\n', /not closed/],
    ['---\ntitle: [x\n---\nbody\n', /malformed front matter/],
    ['---\n- a list\n---\n', /not a key: value mapping/],
    ['---\ntype: widget\ntitle: x\n---\n', /"type" must be one of/],
    ['---\ntype: note\n---\n', /"title" is missing/],
    ['---\ntype: note\ntitle: x\nversion: 0\n---\n', /"version"/],
    ['---\ntype: note\ntitle: x\nscope: galaxy\n---\n', /"scope"/],
    ['---\ntype: note\ntitle: x\nstatus: done\n---\n', /"status"/],
    ['---\ntype: note\ntitle: x\npinned: "yes"\n---\n', /"pinned"/],
    ['---\ntype: note\ntitle: x\ntags: [1, 2]\n---\n', /"tags" must be a list of strings/],
    ['---\ntype: note\ntitle: x\nconditions: [a]\n---\n', /"conditions"/],
    ['---\ntype: note\ntitle: x\ntitle: y\n---\n', /malformed front matter/],
  ];
  it('throws a UserError naming the file and the problem', () => {
    for (const [content, message] of cases) {
      assert.throws(
        () => parseMirrorFile('x/file.md', content),
        (error: unknown) => error instanceof UserError && error.message.startsWith('x/file.md: ') && message.test(error.message),
        content,
      );
    }
  });
});

describe('mirror slugs and paths', () => {
  it('makes safe, bounded ASCII slugs from any title', () => {
    const hostile = ['../../etc/passwd', '<script>alert(1)</script>', 'CON', 'nul', 'Com1', 'a/b\\c:d*e?f"g<h>i|j', '...', ' ', 'x'.repeat(500), '日本語', '🚀🚀', 'Café déjà vu'];
    for (const title of hostile) {
      const slug = mirrorSlug(title, 'chain-1');
      assert.match(slug, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, title);
      assert.ok(slug.length <= 60, title);
      assert.ok(!/^(?:con|prn|aux|nul|com\d|lpt\d)$/.test(slug), title);
    }
    assert.equal(mirrorSlug('../../etc/passwd', 'c'), 'etc-passwd');
    assert.equal(mirrorSlug('CON', 'c'), 'con-item');
    assert.equal(mirrorSlug('Café déjà vu', 'c'), 'cafe-deja-vu');
    assert.match(mirrorSlug('日本語', 'c1'), /^item-[0-9a-f]{8}$/);
    assert.notEqual(mirrorSlug('日本語', 'c1'), mirrorSlug('日本語', 'c2'));
  });

  it('renders the latest version of each chain, with unique paths', () => {
    const files = renderMirror([
      artifact({ id: 'a1', chainId: 'c1', version: 1, title: 'Same title', body: 'old', createdAt: '2026-01-01T00:00:00Z' }),
      artifact({ id: 'a2', chainId: 'c1', version: 2, title: 'Same title', body: 'new', createdAt: '2026-01-01T00:00:00Z' }),
      artifact({ id: 'b1', chainId: 'c2', version: 1, title: 'Same  Title!', createdAt: '2026-02-01T00:00:00Z' }),
      artifact({ id: 'n1', chainId: 'c3', version: 1, type: 'note', title: 'Same title' }),
    ]);
    assert.equal(files.length, 3);
    const paths = files.map((f) => f.path);
    assert.equal(new Set(paths).size, 3);
    assert.ok(paths.includes('decision/same-title.md'));
    assert.ok(paths.includes('note/same-title.md'));
    assert.ok(paths.some((p) => /^decision\/same-title-[0-9a-f]{8}\.md$/.test(p)));
    const oldest = files.find((f) => f.path === 'decision/same-title.md')!;
    assert.equal(parseMirrorFile(oldest.path, oldest.content).id, 'a2');
    assert.equal(parseMirrorFile(oldest.path, oldest.content).body, 'new');
  });

  it('renders and parses 5,000 artifacts quickly', () => {
    const many = Array.from({ length: 5000 }, (_, i) => artifact({ id: `a${i}`, chainId: `c${i}`, title: `Decision ${i % 100}`, body: `Body ${i}\n\nMore.` }));
    const started = performance.now();
    const files = renderMirror(many);
    for (const file of files) parseMirrorFile(file.path, file.content);
    const elapsed = performance.now() - started;
    assert.equal(new Set(files.map((f) => f.path)).size, 5000);
    assert.ok(elapsed < 5000, `took ${elapsed} ms`);
  });
});
