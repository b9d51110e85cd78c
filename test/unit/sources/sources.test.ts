import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import {
  DEFAULT_SOURCE_SETTINGS,
  SourceCache,
  codeCandidates,
  deploymentCandidates,
  deploymentKind,
  detectProfile,
  diagnosticCandidates,
  docCandidates,
  gitCandidates,
  importSpecifiers,
  liveQuery,
  outlineFromSymbols,
  rankLive,
  resolveImport,
  resolveProfileRules,
  resolveSourceSettings,
  sanitizeDeployment,
  splitDoc,
  type LiveCandidate,
} from '../../../src/core/sources';
import { ROOT } from '../helpers';

const FIXTURES = path.join(ROOT, 'test/unit/compress/fixtures');
// Fake secrets are assembled at run time so no scanner mistakes this file for a leak.
const j = (...parts: string[]) => parts.join('');

describe('code source', () => {
  test('one candidate per file with its strongest role; huge files become outlines', () => {
    const big = `export function f(): void {\n${'  work();\n'.repeat(40)}}\n`.repeat(1000);
    const out = codeCandidates([
      { path: 'src/a.ts', text: 'export const a = 1;', role: 'import', importedBy: 'src/b.ts' },
      { path: 'src/a.ts', text: 'export const a = 1;', role: 'named' },
      { path: 'src/b.ts', text: "import { a } from './a';", role: 'open' },
      { path: 'dist/bundle.js', text: big, role: 'active' },
    ]);
    assert.deepEqual(
      out.map((c) => [c.key, c.prior, c.origin.split(' (')[0]]),
      [
        ['code:src/a.ts', 1, 'named in the task'],
        ['code:src/b.ts', 0.65, 'an open editor'],
        ['code:dist/bundle.js', 0.9, 'the active editor'],
      ],
    );
    const bundle = out[2]!;
    assert.ok(bundle.text.length < big.length / 10, 'outline only');
    assert.match(bundle.text, /^export function f\(\): void \{ … \}$/m);
  });

  test('imports: ES modules, require, dynamic import, Python relative; resolved inside the workspace only', () => {
    const ts = "import a from './a';\nimport type { B } from \"../lib/b.js\";\nexport * from './c';\nimport 'side-effect';\nconst d = require('./d');\nconst e = await import('./e');\nimport x from 'lodash';";
    assert.deepEqual(importSpecifiers(ts, 'ts'), ['./a', '../lib/b.js', './c', 'side-effect', './d', './e', 'lodash']);
    const files = new Set(['src/a.ts', 'lib/b.ts', 'src/c/index.tsx', 'src/d.js', 'pkg/models.py', 'pkg/sub/__init__.py']);
    const exists = (p: string) => files.has(p);
    assert.equal(resolveImport('src/main.ts', './a', exists), 'src/a.ts');
    assert.equal(resolveImport('src/main.ts', '../lib/b.js', exists), 'lib/b.ts');
    assert.equal(resolveImport('src/main.ts', './c', exists), 'src/c/index.tsx');
    assert.equal(resolveImport('src/main.ts', './d', exists), 'src/d.js');
    assert.equal(resolveImport('src/main.ts', 'lodash', exists), undefined);
    assert.equal(resolveImport('src/main.ts', '../../../etc/passwd', exists), undefined);
    assert.deepEqual(importSpecifiers('from .models import A\nfrom .sub import x\nimport os', 'py'), ['.models', '.sub', 'os']);
    assert.equal(resolveImport('pkg/app.py', '.models', exists), 'pkg/models.py');
    assert.equal(resolveImport('pkg/app.py', '.sub', exists), 'pkg/sub/__init__.py');
    assert.equal(resolveImport('pkg/app.py', 'os', exists), undefined);
  });

  test('outline from editor symbols: declarations as written, nested by container, locals left out', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'webhooks.ts.txt'), 'utf8');
    const lines = text.split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    const outline = outlineFromSymbols(
      [
        { name: 'route', kind: 'Function', line: at('export default async function route') , children: [{ name: 'event', kind: 'Variable', line: at('const event = JSON') }] },
        {
          name: 'WebhookProcessor',
          kind: 'Class',
          line: at('export class WebhookProcessor'),
          children: [
            { name: 'verify', kind: 'Method', line: at('  verify(') },
            { name: 'handle', kind: 'Method', line: at('  async handle(') },
          ],
        },
        { name: 'MAX_AGE_MS', kind: 'Constant', line: at('export const MAX_AGE_MS') },
      ],
      text,
    );
    assert.equal(
      outline,
      [
        'export const MAX_AGE_MS = 5 * 60 * 1000;',
        'export class WebhookProcessor',
        '  verify(header: string, rawBody: string): boolean',
        '  async handle(event: PaymentEvent): Promise<WebhookResult>',
        'export default async function route(body: string): Promise<WebhookResult>',
      ].join('\n'),
    );
  });
});

describe('diagnostics source', () => {
  test('problems per file, worst first, with the line they point at; hints left out', () => {
    const out = diagnosticCandidates(
      [
        { path: 'src/a.ts', line: 3, column: 7, severity: 'warning', message: 'unused', source: 'eslint', code: 'no-unused-vars' },
        { path: 'src/a.ts', line: 2, column: 1, severity: 'error', message: "Property 'paidAt' does not exist\non type 'Booking'.", source: 'ts', code: '2339' },
        { path: 'src/b.ts', line: 1, column: 1, severity: 'hint', message: 'could be const' },
        { path: 'src/c.ts', line: 1, column: 1, severity: 'warning', message: 'deprecated' },
      ],
      { inPlay: ['src/a.ts'], fileText: (p) => (p === 'src/a.ts' ? 'line one\nif (booking.paidAt) {\nconst x = 1;' : undefined) },
    );
    assert.deepEqual(out.map((c) => c.key), ['diagnostics:src/a.ts', 'diagnostics:src/c.ts']);
    const a = out[0]!;
    assert.equal(a.title, 'Problems in src/a.ts (1 error, 1 warning)');
    assert.equal(a.prior, 0.95);
    assert.equal(
      a.text,
      "- error at 2:1 [ts 2339]: Property 'paidAt' does not exist on type 'Booking'.\n  `if (booking.paidAt) {`\n- warning at 3:7 [eslint no-unused-vars]: unused\n  `const x = 1;`",
    );
    assert.equal(out[1]!.prior, 0.55);
  });
});

describe('docs source', () => {
  test('Markdown split by section with heading trails; front matter and empty sections dropped; non-ASCII headings', () => {
    const doc = '---\ntitle: x\n---\nIntro text.\n\n# Guide\n\n## Install\n\nRun it.\n\n## Über\n\nGrüße.\n\n## Über\n\nNoch einmal.\n\n## Empty\n\n## 日本語\n\n本文。\n';
    const sections = splitDoc(doc);
    assert.deepEqual(
      sections.map((s) => [s.heading, s.slug]),
      [
        ['Introduction', 'introduction'],
        ['Guide › Install', 'install'],
        ['Guide › Über', 'über'],
        ['Guide › Über', 'über-2'],
        ['Guide › 日本語', '日本語'],
      ],
    );
    assert.equal(sections[1]!.text, '## Install\n\nRun it.');
    const out = docCandidates([{ path: 'README.md', text: doc }, { path: 'docs/ops.md', text: '# Ops\n\nRestart.' }], { inPlay: ['docs/ops.md'] });
    assert.deepEqual(out.map((c) => [c.key, c.prior]), [
      ['docs:README.md#introduction', 0.15],
      ['docs:README.md#install', 0.15],
      ['docs:README.md#über', 0.15],
      ['docs:README.md#über-2', 0.15],
      ['docs:README.md#日本語', 0.15],
      ['docs:docs/ops.md#ops', 0.9],
    ]);
  });

  test('a long section is split again at its sub-headings', () => {
    const long = `## Big\n\nLead.\n\n### One\n\n${'word '.repeat(1500)}\n\n### Two\n\n${'more '.repeat(1500)}\n`;
    assert.deepEqual(splitDoc(long).map((s) => s.heading), ['Big', 'Big › One', 'Big › Two']);
  });
});

describe('deployment source', () => {
  const STRIPE = j('sk_', 'live_', '51HqZx2KQ8mPz7vLr9Tn4WcYb');
  const DB_PW = j('s3cr3t', '-Pa55');
  const PG_PW = j('hunter2', '-Sup3r');
  const GH = j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8');
  const K8S_B64 = j('c3VwZXJz', 'ZWNyZXQ=');
  const files = [
    {
      path: 'docker-compose.yml',
      text: `services:\n  api:\n    environment:\n      - DATABASE_URL=postgres://app:${DB_PW}@db:5432/app\n      - STRIPE_API_KEY=${STRIPE}\n      - LOG_LEVEL=debug\n      - SESSION_SECRET=\${SESSION_SECRET}\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${PG_PW}\n      POSTGRES_DB: app\n`,
    },
    { path: '.env.example', text: `PORT=3000\nAPI_TOKEN=${GH}\nJWT_SECRET="${DB_PW}"\nEMPTY_SECRET=\nFEATURE_FLAG=true\n` },
    { path: 'Dockerfile', text: `FROM node:20\nARG NPM_TOKEN=${GH}\nENV DB_PASSWORD ${PG_PW}\nENV NODE_ENV=production\nRUN login --password ${PG_PW} --user me\n` },
    {
      path: 'k8s/secret.yaml',
      text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  db: ${K8S_B64}\n  cert: |\n    -----BEGIN CERT-----\n    ${K8S_B64}\n    -----END CERT-----\nstringData:\n  plain: ${PG_PW}\n`,
    },
    { path: 'k8s/deploy.yaml', text: `kind: Deployment\nspec:\n  containers:\n    - env:\n        - name: DB_PASSWORD\n          value: ${PG_PW}\n        - name: DB_HOST\n          value: db.internal\n        - name: API_KEY\n          valueFrom:\n            secretKeyRef: { name: app, key: api }\n` },
    { path: '.github/workflows/ci.yml', text: `jobs:\n  test:\n    env:\n      NPM_TOKEN: \${{ secrets.NPM_TOKEN }}\n      SLACK_WEBHOOK_URL: https://hooks.slack.com/services/T000/B000/${DB_PW}\n` },
    { path: 'src/app.ts', text: 'not deployment' },
  ];
  const secrets = [STRIPE, DB_PW, PG_PW, GH, K8S_B64];

  test('secret values never appear; names, references and harmless values stay', () => {
    const out = deploymentCandidates(files);
    assert.equal(out.length, 6);
    const all = out.map((c) => c.text).join('\n');
    for (const secret of secrets) assert.ok(!all.includes(secret), `leaked ${secret.slice(0, 6)}…`);
    assert.ok(!all.includes('BEGIN CERT'), 'block scalar under a Secret withheld');
    for (const kept of ['DATABASE_URL=', 'STRIPE_API_KEY=', 'POSTGRES_PASSWORD:', 'API_TOKEN=', 'JWT_SECRET=', 'NPM_TOKEN', 'DB_PASSWORD', 'LOG_LEVEL=debug', 'SESSION_SECRET=${SESSION_SECRET}', 'POSTGRES_DB: app', 'PORT=3000', 'FEATURE_FLAG=true', 'NODE_ENV=production', '${{ secrets.NPM_TOKEN }}', 'value: db.internal', 'secretKeyRef']) {
      assert.ok(all.includes(kept), `kept ${kept}`);
    }
    const byPath = new Map(out.map((c) => [c.path, c]));
    assert.equal(byPath.get('.env.example')!.withheld, 2);
    assert.match(byPath.get('Dockerfile')!.text, /--password <withheld> --user me/);
    assert.match(byPath.get('k8s/secret.yaml')!.text, /data:\n {2}db: <withheld>\n {2}cert: <withheld>\nstringData:\n {2}plain: <withheld>/);
    assert.deepEqual(out.map((c) => c.title.split(':')[0]), ['Docker Compose services', 'Environment variables (example)', 'Docker image', 'Kubernetes manifest', 'Kubernetes manifest', 'CI workflow']);
  });

  test('deployment kinds by path', () => {
    assert.equal(deploymentKind('Dockerfile.prod'), 'dockerfile');
    assert.equal(deploymentKind('compose.override.yaml'), 'compose');
    assert.equal(deploymentKind('deploy/overlays/prod/kustomization.yaml'), 'kubernetes');
    assert.equal(deploymentKind('charts/api/values.yaml'), 'helm');
    assert.equal(deploymentKind('.gitlab-ci.yml'), 'ci');
    assert.equal(deploymentKind('.env'), undefined, 'a real .env is never read');
    assert.equal(deploymentKind('src/config.yaml'), undefined);
  });

  test('non-ASCII and hostile input', () => {
    const text = `GRÜSSE=hallo ✓\nPASSWORT_API_KEY=${j('Ünï', 'cødé-Sëcret99')}\n${'A'.repeat(100_000)}=x\n`;
    const { text: clean } = sanitizeDeployment('.env.example', text);
    assert.ok(clean.includes('GRÜSSE=hallo ✓'));
    assert.ok(!clean.includes('cødé'));
  });
});

describe('git source', () => {
  test('branch changes (files in play first) and the commits that touched them', () => {
    const out = gitCandidates(
      {
        branch: 'fix/double-booking',
        base: 'main',
        changes: [
          { path: 'README.md', status: 'M', added: 1, deleted: 0 },
          { path: 'src/payments/webhooks.ts', status: 'M', added: 12, deleted: 3 },
          { path: 'src/new.ts', status: 'R', oldPath: 'src/old.ts', added: 0, deleted: 0 },
        ],
        commits: [
          { hash: 'aaaaaaaa1111', subject: 'Store event ids', date: '2026-01-02T10:00:00Z', files: ['src/payments/webhooks.ts', 'src/db.ts'] },
          { hash: 'bbbbbbbb2222', subject: 'Docs', date: '2026-01-01T10:00:00Z', files: ['README.md'] },
        ],
      },
      { inPlay: ['src/payments/webhooks.ts'] },
    );
    assert.equal(out[0]!.title, 'Changes on branch fix/double-booking since main: 3 files, +13 -3');
    assert.equal(out[0]!.text, '- M src/payments/webhooks.ts +12 -3\n- M README.md +1 -0\n- R src/old.ts → src/new.ts +0 -0');
    assert.equal(out[0]!.prior, 0.6);
    assert.equal(out[1]!.title, 'Recent commits on the files in play');
    assert.equal(out[1]!.text, '- aaaaaaaa 2026-01-02 Store event ids (src/payments/webhooks.ts)');
  });

  test('nothing to say, nothing offered', () => {
    assert.deepEqual(gitCandidates({ changes: [], commits: [] }), []);
  });
});

describe('task profiles', () => {
  const cases: Array<[string, { title?: string; description?: string; labels?: string[] }, string]> = [
    ['bug label', { title: 'Bookings page', labels: ['bug'] }, 'bugfix'],
    ['bug words', { title: 'Fix crash when the payment webhook is retried' }, 'bugfix'],
    ['feature words', { title: 'Add support for Apple Pay' }, 'feature'],
    ['refactor', { title: 'Refactor the booking store and rename methods' }, 'refactor'],
    ['infra', { title: 'Deploy the API to Kubernetes with a Helm chart' }, 'infrastructure'],
    ['infra label beats words', { title: 'Add a Dockerfile', labels: ['devops'] }, 'infrastructure'],
    ['research', { title: 'Investigate and compare queue libraries' }, 'research'],
    ['explicit label', { title: 'Fix the bug', labels: ['profile:research'] }, 'research'],
    ['nothing', { title: 'Bookings' }, 'feature'],
    ['non-ASCII', { title: 'Überarbeiten der Buchungen 日本語' }, 'feature'],
  ];
  for (const [name, task, expected] of cases) {
    test(`${name} -> ${expected}`, () => assert.equal(detectProfile(task).profile, expected));
  }

  test('the profile says why and orders the sources', () => {
    const bug = detectProfile({ title: 'Fix crash', labels: ['bug'] });
    assert.match(bug.reason, /label "bug"/);
    assert.deepEqual(bug.priorities.slice(0, 3), ['logs', 'diagnostics', 'code'], 'a bug fix wants what just failed first');
    assert.equal(detectProfile({ title: 'x' }, undefined, 'infrastructure').priorities[0], 'deployment');
    assert.throws(() => detectProfile({ title: 'x' }, undefined, 'chaos'), /Unknown task profile "chaos"/);
  });

  test('rules from settings replace the defaults per profile', () => {
    const rules = resolveProfileRules({ research: { keywords: ['bookings'] } });
    assert.equal(detectProfile({ title: 'Bookings' }, rules).profile, 'research');
    assert.throws(() => resolveProfileRules({ chaos: {} }), /Unknown task profile "chaos"/);
    assert.throws(() => resolveProfileRules({ bugfix: { labels: 'bug' } }), /must be a list of strings/);
  });
});

describe('ranking live candidates', () => {
  const candidate = (over: Partial<LiveCandidate>): LiveCandidate => ({ key: 'k', source: 'docs', title: 't', text: '', kind: 'markdown', prior: 0, origin: 'test', ...over });

  test('prior and text are independent evidence, weighted by profile, cut at the threshold', () => {
    const query = liveQuery({ title: 'payment webhook retried' });
    const settings = resolveSourceSettings(undefined);
    const ranked = rankLive(
      [
        candidate({ key: 'docs:a', text: 'The payment webhook is retried by the provider.' }),
        candidate({ key: 'docs:b', text: 'Unrelated gardening notes.' }),
        candidate({ key: 'diag:x', source: 'diagnostics', prior: 0.85, text: 'error' }),
        candidate({ key: 'dep:y', source: 'deployment', prior: 0.35, text: 'image: node' }),
      ],
      query,
      'bugfix',
      settings,
    );
    const byKey = new Map(ranked.map((r) => [r.candidate.key, r]));
    assert.equal(byKey.get('docs:a')!.passed, true);
    assert.equal(byKey.get('docs:b')!.passed, false);
    assert.match(byKey.get('docs:b')!.reason, /< threshold 0.4/);
    assert.equal(byKey.get('diag:x')!.passed, true, 'an error passes under a bug fix');
    assert.equal(byKey.get('dep:y')!.passed, false, 'deployment stays out of a bug fix');
    const infra = rankLive([candidate({ key: 'dep:y', source: 'deployment', prior: 0.35, title: 'Docker image: Dockerfile', text: 'FROM node' })], liveQuery({ title: 'Deploy with docker' }), 'infrastructure', settings);
    assert.equal(infra[0]!.passed, true, 'deployment comes in for infrastructure work');
    assert.deepEqual(ranked.map((r) => r.candidate.key), [...ranked].sort((a, b) => b.relevance - a.relevance || (a.candidate.key < b.candidate.key ? -1 : 1)).map((r) => r.candidate.key));
  });

  test('a source turned off passes nothing', () => {
    const settings = resolveSourceSettings({ docs: { enabled: false } });
    const [r] = rankLive([candidate({ prior: 1 })], liveQuery({ title: 'x' }), 'research', settings);
    assert.equal(r!.passed, false);
    assert.match(r!.reason, /source docs is off/);
  });

  test('settings: defaults from the design, clear errors for bad values', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(DEFAULT_SOURCE_SETTINGS).map(([k, v]) => [k, v.threshold])),
      { code: 0.5, diagnostics: 0.7, logs: 0.7, docs: 0.4, deployment: 0.6, git: 0.5, conversation: 0.3 },
    );
    assert.equal(resolveSourceSettings({ code: { threshold: 0.9, maxTokens: 10 } }).code.maxTokens, 10);
    assert.throws(() => resolveSourceSettings({ code: { threshold: 2 } }), /from 0 to 1/);
    assert.throws(() => resolveSourceSettings({ telepathy: {} }), /Unknown source "telepathy"/);
    assert.throws(() => resolveSourceSettings({ code: { cap: 1 } }), /Unknown setting "code.cap"/);
    assert.throws(() => resolveSourceSettings({ code: { maxTokens: 1.5 } }), /whole number/);
  });
});

describe('source cache', () => {
  test('same stamp hits, a new stamp recomputes, least recently used goes first', () => {
    const cache = new SourceCache<string>(2);
    let computed = 0;
    const get = (key: string, stamp: string) => cache.get(key, stamp, () => `${key}@${stamp}#${++computed}`);
    assert.equal(get('a', '1'), 'a@1#1');
    assert.equal(get('a', '1'), 'a@1#1');
    assert.equal(get('a', '2'), 'a@2#2', 'changed file recomputes');
    get('b', '1');
    get('a', '2');
    get('c', '1'); // evicts b, the least recently used
    assert.equal(cache.size, 2);
    assert.equal(get('a', '2'), 'a@2#2');
    assert.equal(get('b', '1'), 'b@1#5');
    assert.equal(cache.hits, 3);
    cache.invalidate();
    assert.equal(cache.size, 0);
  });
});
