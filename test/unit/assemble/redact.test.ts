import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { assembleContext, redactSecrets } from '../../../src/core/assemble';
import { cli, fixedClock, jsonOf, memoryStore, tempDir } from '../helpers';

// Fake secrets are assembled at run time so no scanner mistakes this file for a leak.
const j = (...parts: string[]) => parts.join('');
const ALNUM36 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

interface Case {
  kind: string;
  text: string;
  secret: string;
}

const PEM_BODY = 'MIIEowIBAAKCAQEA7bq3hF2s9Qz1xK8vN4mP0cL6yR2tW5uI9oE3aS7dG1fH4jK\nZx8Cv2Bn5Mq7Lp0Ow3Ie6Ur9Yt1Re4Wq8As2Df5Gh7Jk0Lz3Xc6Vb9Nm1Qw4Er7Ty';
const CASES: Case[] = [
  {
    kind: 'private-key',
    secret: PEM_BODY,
    text: j('Deploy key for CI:\n\n-----BEGIN RSA ', 'PRIVATE KEY-----\n', PEM_BODY, '\n-----END RSA ', 'PRIVATE KEY-----\n\nRotate it yearly.'),
  },
  {
    kind: 'private-key',
    secret: PEM_BODY,
    text: j('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', PEM_BODY, '\n-----END OPENSSH ', 'PRIVATE KEY-----'),
  },
  { kind: 'aws-access-key', secret: j('AKIA', 'Z3QW8RT2LMN4XP7K'), text: j('export AWS_ACCESS_KEY_ID=AKIA', 'Z3QW8RT2LMN4XP7K') },
  {
    kind: 'aws-secret-key',
    secret: j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY8q7Lk2Mz3N'),
    text: j('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY8q7Lk2Mz3N'),
  },
  { kind: 'github-token', secret: j('ghp_', ALNUM36), text: j('git clone https://x:ghp_', ALNUM36, '@github.com/acme/app') },
  {
    kind: 'github-token',
    secret: j('github_pat_', '11ABCDEFG0', 'abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab'),
    text: j('The bot uses github_pat_', '11ABCDEFG0', 'abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab for releases.'),
  },
  { kind: 'slack-token', secret: j('xoxb-', '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx'), text: j('SLACK_BOT=xoxb-', '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx') },
  { kind: 'stripe-key', secret: j('sk_live_', '51HqLyjWDarjtT1zdp7dcXYZ'), text: j('Stripe prod key sk_live_', '51HqLyjWDarjtT1zdp7dcXYZ in the vault.') },
  { kind: 'stripe-key', secret: j('sk_test_', '4eC39HqLyjWDarjtT1zdp7dc'), text: j('Even test keys: sk_test_', '4eC39HqLyjWDarjtT1zdp7dc') },
  {
    kind: 'openai-key',
    secret: j('sk-proj-', 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bC4eF7hI0kL3n'),
    text: j('OPENAI_API_KEY was sk-proj-', 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bC4eF7hI0kL3n until Tuesday'),
  },
  {
    kind: 'anthropic-key',
    secret: j('sk-ant-', 'api03-', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEfGh_IjKl'),
    text: j('use sk-ant-', 'api03-', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEfGh_IjKl for the eval runs'),
  },
  {
    kind: 'jwt',
    secret: j('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'),
    text: j('Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'),
  },
  { kind: 'connection-password', secret: 'S3cr3t!pw9', text: 'DATABASE_URL=postgres://booking:S3cr3t!pw9@db.internal:5432/bookings' },
  { kind: 'password', secret: 'hunter2-Prod!', text: 'db_password = "hunter2-Prod!"' },
  { kind: 'password', secret: 'Tr0ub4dor&3', text: "const smtpPassword: 'Tr0ub4dor&3'" },
  { kind: 'password', secret: 'pa55-W0rd-9x', text: 'REDIS_PASSWORD=pa55-W0rd-9x' },
  { kind: 'password', secret: 'a8F3kL0pQ9zX', text: 'const githubToken = "a8F3kL0pQ9zX";' },
  { kind: 'password', secret: 'S3cret!x9', text: 'psql --password=S3cret!x9 bookings' },
];

const LOOK_ALIKES = [
  'Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b (see 9c1185a5).',
  'Request id 123e4567-e89b-12d3-a456-426614174000 failed twice.',
  'password_hint = "name of your first pet"',
  'The password_reset_ttl is 15 minutes.',
  'password: ${{ secrets.DB_PASSWORD }}',
  'password = "<password>"',
  'password = process.env.DB_PASSWORD',
  'const password = config.password;',
  'Token: Budget',
  'postgres://booking:<password>@db.internal:5432/bookings',
  'postgres://db.internal:5432/bookings',
  'See sk-some-long-hyphenated-name-in-prose for details.',
  'The ask-for-review-before-merging-anything rule.',
  'AKIA is the prefix of AWS access key ids.',
  'Base64 of a JSON header starts with eyJ, e.g. eyJhbGci.',
  'Set DEBUG=true and PORT=8080 before `npm start`.',
  'nextToken: cursor.next',
  'maxTokens: 8000',
  'tokenizer = o200k_base',
  // Dependency bumps in a changelog and a package.json: a package named *token is not a secret.
  '- jsonwebtoken: 10.2.0 → 10.3.0',
  '"jsonwebtoken": "^9.0.2",',
  'passport-jwt-token: v4.0.1-beta.2',
  'token: 2026-03-10',
  // A Kubernetes manifest naming the Secret that holds the key.
  'privateKey:\n  secret: my-private-key',
];

describe('secret redaction', () => {
  for (const c of CASES) {
    test(`masks a ${c.kind}: ${c.text.slice(0, 30).replace(/\n/g, ' ')}…`, () => {
      const result = redactSecrets(c.text);
      assert.ok(!result.text.includes(c.secret), `secret survived: ${result.text}`);
      assert.ok(result.text.includes(`[REDACTED:${c.kind}]`), `no ${c.kind} marker: ${result.text}`);
      assert.equal(result.count, 1, JSON.stringify(result));
      assert.deepEqual(result.kinds, { [c.kind]: 1 });
    });
  }

  test('the text around a secret is kept so it still reads', () => {
    const result = redactSecrets('DATABASE_URL=postgres://booking:S3cr3t!pw9@db.internal:5432/bookings');
    assert.equal(result.text, 'DATABASE_URL=postgres://booking:[REDACTED:connection-password]@db.internal:5432/bookings');
  });

  test('several secrets in one document are all masked and counted by kind', () => {
    const doc = CASES.map((c) => c.text).join('\n\n');
    const result = redactSecrets(doc);
    for (const c of CASES) assert.ok(!result.text.includes(c.secret), c.kind);
    assert.equal(result.count, CASES.length);
    const expected: Record<string, number> = {};
    for (const c of CASES) expected[c.kind] = (expected[c.kind] ?? 0) + 1;
    assert.deepEqual(result.kinds, expected);
    assert.deepEqual(redactSecrets(result.text), { text: result.text, count: 0, kinds: {} }, 'redaction is idempotent');
  });

  for (const text of LOOK_ALIKES) {
    test(`leaves a look-alike alone: ${text}`, () => {
      assert.deepEqual(redactSecrets(text), { text, count: 0, kinds: {} });
    });
  }

  test('adversarial long runs are redacted in linear time', () => {
    for (const text of [`${'a-'.repeat(50_000)}token`, `${'aB3_'.repeat(25_000)} secret`, `x${'a_'.repeat(50_000)}password="hunter22"`]) {
      const started = performance.now();
      redactSecrets(text);
      assert.ok(performance.now() - started < 2000, `${text.length} chars took ${performance.now() - started} ms`);
    }
  });

  test('the allow-list keeps exact strings and /regex/ matches, and only those', () => {
    const stripe = CASES.find((c) => c.secret.startsWith('sk_test_'))!;
    const github = CASES.find((c) => c.secret.startsWith('ghp_'))!;
    const both = `${stripe.text}\n${github.text}`;
    const exact = redactSecrets(both, [stripe.secret]);
    assert.ok(exact.text.includes(stripe.secret));
    assert.ok(!exact.text.includes(github.secret));
    assert.equal(exact.count, 1);
    const regex = redactSecrets(both, ['/^sk_test_/']);
    assert.ok(regex.text.includes(stripe.secret));
    assert.equal(regex.count, 1);
    assert.equal(redactSecrets(both, ['/[unclosed/']).count, 2, 'an invalid regex is a literal, not a crash');
  });

  test('the assembler masks secrets, reports the count, honours redactAllow and redact: false', async () => {
    const store = await memoryStore(fixedClock());
    const pg = CASES.find((c) => c.kind === 'connection-password')!;
    const jwt = CASES.find((c) => c.kind === 'jwt')!;
    store.createArtifact({ id: 'db-conn', type: 'learning', title: 'Webhook database connection', body: `Connect with ${pg.text}\n\nTest with ${jwt.text}` });
    const req = { budget: 4000, now: new Date('2026-02-01T00:00:00Z'), task: { title: 'webhook database connection' }, log: false };
    const masked = await assembleContext(store, req);
    assert.ok(!masked.text.includes(pg.secret) && !masked.text.includes(jwt.secret));
    assert.equal(masked.redactions.count, 2);
    assert.deepEqual(masked.redactions.kinds, { 'connection-password': 1, jwt: 1 });
    const item = masked.items.find((i) => i.id === 'db-conn');
    assert.ok(item?.redacted);
    assert.notEqual(item.mode, 'full', 'a redacted body is never reported full');

    const allowed = await assembleContext(store, { ...req, options: { redactAllow: [pg.secret] } });
    assert.ok(allowed.text.includes(pg.secret) && !allowed.text.includes(jwt.secret));
    assert.equal(allowed.redactions.count, 1);

    const off = await assembleContext(store, { ...req, options: { redact: false } });
    assert.ok(off.text.includes(pg.secret) && off.text.includes(jwt.secret));
    assert.equal(off.redactions.count, 0);
  });

  test('build --format json reports the redaction count', () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger.db');
    const stripe = CASES.find((c) => c.kind === 'stripe-key')!;
    const aws = CASES.find((c) => c.kind === 'aws-access-key')!;
    const body = `Payments webhook setup: ${stripe.text}\n\n${aws.text}`;
    assert.equal(cli(['add', '--db', db, '--type', 'note', '--id', 'keys', '--title', 'Payments webhook keys', '--body', body]).code, 0);
    const out = jsonOf<{ text: string; redactions: { count: number; kinds: Record<string, number> } }>(
      cli(['build', '--db', db, '--budget', '2000', '--task-title', 'payments webhook keys', '--format', 'json', '--no-log']),
    );
    assert.equal(out.redactions.count, 2);
    assert.deepEqual(out.redactions.kinds, { 'stripe-key': 1, 'aws-access-key': 1 });
    assert.ok(out.text.includes('[REDACTED:stripe-key]') && !out.text.includes(stripe.secret) && !out.text.includes(aws.secret));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
