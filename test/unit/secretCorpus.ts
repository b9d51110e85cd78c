/**
 * Planted secrets: one case per pattern the redactor knows, in the shape people paste
 * them (env files, JSON, connection strings, prose). Shared by the redactor's own tests,
 * the output-path tests (every way text leaves the ledger) and `npm run fuzz`.
 * Fake secrets are assembled at run time so no scanner mistakes this file for a leak.
 */
export const j = (...parts: string[]): string => parts.join('');
const ALNUM36 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const PEM_BODY = 'MIIEowIBAAKCAQEA7bq3hF2s9Qz1xK8vN4mP0cL6yR2tW5uI9oE3aS7dG1fH4jK\nZx8Cv2Bn5Mq7Lp0Ow3Ie6Ur9Yt1Re4Wq8As2Df5Gh7Jk0Lz3Xc6Vb9Nm1Qw4Er7Ty';
const BASE64_88 = j('Zm9vYmFyYmF6cXV4', 'Q29ycE5ldDIwMjZT', 'dG9yYWdlS2V5QWJj', 'ZGVmZ2hpamtsbW5v', 'cHFyc3R1dnd4eXox', 'MjM0NTY3OA==');
const BASE64_44 = j('K3tQ9wPz5mLr8', 'vXc2Bn7Hj4Gf1Ds6Aa0Zy', 'XwVuTs/+Ab=');

export interface SecretCase {
  /** The redaction marker kind expected: `[REDACTED:<kind>]`. */
  kind: string;
  text: string;
  secret: string;
}

export const SECRET_CASES: readonly SecretCase[] = [
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
  {
    // `aws sts assume-role` output pasted into a note.
    kind: 'aws-secret-key',
    secret: j('q8Zt2LmN7vB3xC9wK4', 'pR6sD1fG5hJ0kYuIoP/+Ea'),
    text: j('"Credentials": {\n  "SecretAccessKey": "q8Zt2LmN7vB3xC9wK4', 'pR6sD1fG5hJ0kYuIoP/+Ea",\n  "Expiration": "2026-01-01T00:00:00Z"\n}'),
  },
  { kind: 'github-token', secret: j('ghp_', ALNUM36), text: j('git clone https://x:ghp_', ALNUM36, '@github.com/acme/app') },
  {
    kind: 'github-token',
    secret: j('github_pat_', '11ABCDEFG0', 'abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab'),
    text: j('The bot uses github_pat_', '11ABCDEFG0', 'abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab for releases.'),
  },
  { kind: 'gitlab-token', secret: j('glpat-', 'Xy9zAb8cDe7fGh6iJk5L'), text: j('CI uses glpat-', 'Xy9zAb8cDe7fGh6iJk5L to push tags.') },
  { kind: 'slack-token', secret: j('xoxb-', '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx'), text: j('SLACK_BOT=xoxb-', '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx') },
  {
    kind: 'slack-webhook',
    secret: j('T0123ABCD/', 'B0456EFGH/', 'Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1'),
    text: j('Alerts post to https://hooks.slack.com/services/T0123ABCD/', 'B0456EFGH/', 'Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1 on failure.'),
  },
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
  { kind: 'google-api-key', secret: j('AIza', 'SyB1c2D3e4F5g6H7i8J9k0LmNoPqRsTuVwX'), text: j('Maps key AIza', 'SyB1c2D3e4F5g6H7i8J9k0LmNoPqRsTuVwX (browser-restricted).') },
  { kind: 'google-oauth-secret', secret: j('GOCSPX-', 'Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9S'), text: j('OAuth client secret GOCSPX-', 'Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9S') },
  { kind: 'google-oauth-token', secret: j('ya29.', 'a0AfB_byC1d2E3f4G5h6I7j8K9'), text: j('curl -H "Authorization: Bearer ya29.', 'a0AfB_byC1d2E3f4G5h6I7j8K9"') },
  {
    kind: 'sendgrid-key',
    secret: j('SG.', 'aB3cD4eF5gH6iJ7kL8mN9o', '.', 'Pq1Rs2Tu3Vw4Xy5Za6Bc7De8Fg9Hi0Jk1Lm2No3Pq4R'),
    text: j('SENDGRID_API_KEY=SG.', 'aB3cD4eF5gH6iJ7kL8mN9o', '.', 'Pq1Rs2Tu3Vw4Xy5Za6Bc7De8Fg9Hi0Jk1Lm2No3Pq4R'),
  },
  {
    kind: 'azure-key',
    secret: BASE64_88,
    text: j('DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=', BASE64_88, ';EndpointSuffix=core.windows.net'),
  },
  {
    kind: 'azure-key',
    secret: BASE64_44,
    text: j('Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=', BASE64_44),
  },
  {
    kind: 'azure-client-secret',
    secret: j('Zk3', '8Q~pL2vB.3dEe4F-gH5iJ6kL7mN8oP9qR0sTu'),
    text: j('AZURE_CLIENT_SECRET=Zk3', '8Q~pL2vB.3dEe4F-gH5iJ6kL7mN8oP9qR0sTu'),
  },
  {
    // An older client secret: dots between random runs, no `Q~`.
    kind: 'password',
    secret: j('Xy7.Abc3Def9Gh', '.kLmN0pQ8rS'),
    text: j('client_secret: Xy7.Abc3Def9Gh', '.kLmN0pQ8rS'),
  },
  {
    kind: 'jwt',
    secret: j('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'),
    text: j('Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'),
  },
  { kind: 'connection-password', secret: 'S3cr3t!pw9', text: 'DATABASE_URL=postgres://booking:S3cr3t!pw9@db.internal:5432/bookings' },
  { kind: 'connection-password', secret: 'Rz8pQ2vLk9', text: 'REDIS_URL=redis://:Rz8pQ2vLk9@cache.internal:6379/0' },
  { kind: 'password', secret: 'hunter2-Prod!', text: 'db_password = "hunter2-Prod!"' },
  { kind: 'password', secret: 'Tr0ub4dor&3', text: "const smtpPassword: 'Tr0ub4dor&3'" },
  { kind: 'password', secret: 'pa55-W0rd-9x', text: 'REDIS_PASSWORD=pa55-W0rd-9x' },
  { kind: 'password', secret: 'Zq7!mK2pLx', text: 'DB_PASS=Zq7!mK2pLx' },
  { kind: 'password', secret: 'n0t-s0-s3cret', text: 'SMTP_PASS: "n0t-s0-s3cret"' },
  { kind: 'password', secret: 'a8F3kL0pQ9zX', text: 'const githubToken = "a8F3kL0pQ9zX";' },
  { kind: 'password', secret: 'S3cret!x9', text: 'psql --password=S3cret!x9 bookings' },
];

/** Text that looks like a secret and is not: it must come out unchanged. */
export const LOOK_ALIKES: readonly string[] = [
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
  // Words ending in "pass" are not passwords; neither is a setting read from code.
  'bypass = "cache-only"',
  'compass: "north-east"',
  'DB_PASS=${DB_PASS}',
  'SharedAccessKeyName=RootManageSharedAccessKey',
  'client_secret = settings.auth.clientSecret',
  'CORS_ORIGINS=https://app.example.com,https://admin.example.com:8443,http://localhost:3000',
  'redis://cache.internal:6379/0',
  'Use SG. as the prefix check for SendGrid keys.',
];
