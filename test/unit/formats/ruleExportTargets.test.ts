/**
 * `export --to kiro|windsurf|continue|roo|amazonq|augment|gemini`: each writes the files its
 * tool reads, with the front matter that makes the tool load each one as the ledger means it.
 * Round trip: the exported files, read back by the importer and judged by `which` as their
 * tool reads them, say what the ledger said (global → always on, a path group → those paths,
 * where the tool has a path field); within budget, never imported back while generated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENERATED_MARKER, parseAgentRules } from '../../../src/core/formats/agentRules';
import { exportRules, RULE_TARGETS, type RuleTarget } from '../../../src/core/formats/ruleExport';
import { simulateRules } from '../../../src/core/formats/ruleSimulator';
import { UserError } from '../../../src/core/model';
import { art, count } from './exportFixtures';

const artifacts = [
  art({ id: 'secrets', type: 'constitution', title: 'Never commit secrets', body: 'Keys live in the vault. 日本語も。' }),
  art({ id: 'ts', scope: 'path', paths: ['src/**/*.{ts,tsx}'], title: 'Strict TypeScript', body: 'No implicit any in src.' }),
  art({ id: 'asked', title: 'SQL style', body: 'Only when asked.', tags: ['cursor', 'agent-requested'] }),
  art({ id: 'odd', title: 'Odd trigger', body: 'Unknown activation.', tags: ['windsurf', 'unknown-activation'] }),
];

/** The exported files as a person would keep them after taking them over: the generated header removed. */
const handEdited = (files: { path: string; content: string }[]): { path: string; content: string }[] =>
  files.map((f) => ({ path: f.path, content: f.content.split('\n').filter((line) => !line.includes(GENERATED_MARKER)).join('\n') }));

/** What each tool's path group becomes when read back: its own globs, or (no path field) always on. */
const PATH_READ_BACK: Record<Exclude<RuleTarget, 'copilot' | 'cursor' | 'agents-md'>, string[] | 'global' | 'requested'> = {
  kiro: ['src/**/*.{ts,tsx}'],
  windsurf: ['src/**/*.ts', 'src/**/*.tsx'],
  continue: ['src/**/*.{ts,tsx}'],
  roo: 'global',
  amazonq: 'global',
  augment: 'requested',
  gemini: 'global',
};

describe('export to the other tools, and back', () => {
  for (const [target, pathRead] of Object.entries(PATH_READ_BACK) as [keyof typeof PATH_READ_BACK, (typeof PATH_READ_BACK)[keyof typeof PATH_READ_BACK]][]) {
    it(`${target}: written where the tool reads, within budget, read back as the tool reads it`, () => {
      const { files, leftOut } = exportRules(target, artifacts, { count, budget: 400 });
      const spec = RULE_TARGETS[target];
      assert.ok(files.length >= 1);
      for (const file of files) {
        assert.ok(file.tokens <= 400, `${file.path}: ${file.tokens} tokens`);
        assert.ok(file.content.includes(GENERATED_MARKER));
        assert.ok(spec.layout === 'single' ? file.path === spec.file : file.path.startsWith(`${spec.folder}/context-ledger-`), file.path);
      }
      // Left out with why: what its source attaches only on request, what its source's activation is unknown.
      assert.deepEqual(leftOut.map((l) => l.id).sort(), ['asked', 'odd']);
      // Never imported back while it says it is generated.
      assert.equal(parseAgentRules(files).artifacts.length, 0);
      // A person takes the files over: the importer reads them as the tool does.
      const back = parseAgentRules(handEdited(files)).artifacts;
      const secrets = back.find((a) => a.body.includes('Keys live in the vault. 日本語も。'))!;
      const ts = back.find((a) => a.body.includes('No implicit any in src.'))!;
      assert.equal(secrets.scope, 'global');
      assert.ok(!secrets.tags!.includes('agent-requested') && !secrets.tags!.includes('manual'));
      if (Array.isArray(pathRead)) assert.deepEqual([ts.scope, ts.paths], ['path', pathRead]);
      else if (pathRead === 'requested') assert.ok(ts.tags!.includes('agent-requested'));
      else {
        assert.equal(ts.scope, 'global');
        assert.match(ts.body + ts.title, /src\/\*\*\/\*\.\{ts,tsx\}/, 'the heading names the globs');
      }
      // `which`: what each exported file does for a TypeScript file and for a README.
      const paths = [...files.map((f) => f.path), 'src/a.ts', 'README.md'];
      const fires = (target: string): Record<string, boolean> =>
        Object.fromEntries(simulateRules(target, paths, files, []).rules.map((r) => [r.path, r.fires]));
      const onTs = fires('src/a.ts');
      const onReadme = fires('README.md');
      const globalFile = files.find((f) => f.included.includes('secrets'))!.path;
      const pathFile = files.find((f) => f.included.includes('ts'))!.path;
      assert.equal(onTs[globalFile], true);
      assert.equal(onReadme[globalFile], true);
      assert.equal(onTs[pathFile], pathRead !== 'requested');
      assert.equal(onReadme[pathFile], pathRead === 'global');
    });
  }

  it('windsurf: a file stays within Windsurf\'s 12,000 characters whatever the token budget; what does not fit goes to a further file', () => {
    const many = Array.from({ length: 40 }, (_, i) => art({ id: `w${i}`, title: `Rule ${i}`, body: 'word '.repeat(200) }));
    const { files } = exportRules('windsurf', many, { count, budget: 100_000 });
    assert.ok(files.length > 1);
    for (const file of files) assert.ok(file.content.length <= 12_000, `${file.path}: ${file.content.length} characters`);
    assert.equal(new Set(files.flatMap((f) => f.included)).size, 40, 'nothing dropped');
  });

  it('gemini: GEMINI.md names GEMINI-2.md… in its last line; a budget too small says so', () => {
    const many = Array.from({ length: 12 }, (_, i) => art({ id: `g${i}`, title: `Rule ${i}`, body: 'word '.repeat(60) }));
    const { files } = exportRules('gemini', many, { count, budget: 300 });
    assert.equal(files[0]!.path, 'GEMINI.md');
    assert.equal(files[1]!.path, 'GEMINI-2.md');
    assert.match(files[0]!.content, /Also noted .*`GEMINI-2\.md`/);
    assert.throws(() => exportRules('kiro', many, { count, budget: 5 }), UserError);
  });
});
