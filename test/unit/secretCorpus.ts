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

/**
 * `n` characters of `alphabet`, the same for the same seed: fake key bodies of the exact
 * length each format has, without pasting anything that could be a real key.
 */
export function fake(alphabet: string, n: number, seed: number): string {
  let state = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface SecretCase {
  /** The redaction marker kind expected: `[REDACTED:<kind>]`. */
  kind: string;
  text: string;
  secret: string;
}

function secretCase(kind: string, secret: string, text: (secret: string) => string): SecretCase {
  return { kind, secret, text: text(secret) };
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

  // Round three (#40): the kinds that got through, one per provider family, and the generic
  // `name = value` rule in the shapes config files, shells and prose have.
  secretCase('password', 'correcthorsebattery', (S) => `password: ${S}`),
  secretCase('password', fake(HEX, 128, 1), (S) => `SECRET_KEY_BASE=${S}`),
  secretCase('stripe-key', j('whsec_', fake(ALNUM, 32, 2)), (S) => `STRIPE_WEBHOOK_SECRET=${S}`),
  secretCase('npm-token', j('npm_', fake(ALNUM, 36, 3)), (S) => `//registry.npmjs.org/:_authToken=${S}`),
  secretCase('pypi-token', j('pypi-', 'AgEIcHlwaS5vcmc', fake(URLSAFE, 70, 4)), (S) => `twine upload -p ${S} dist/*`),
  secretCase('docker-token', j('dckr_pat_', fake(URLSAFE, 27, 5)), (S) => `echo ${S} | docker login -u acme --password-stdin`),
  secretCase('huggingface-token', j('hf_', fake(LETTERS, 34, 6)), (S) => `Download the weights with ${S} (read-only).`),
  secretCase('digitalocean-token', j('dop_v1_', fake(HEX, 64, 7)), (S) => `doctl auth init -t ${S}`),
  secretCase('vault-token', j('hvs.', fake(URLSAFE, 90, 8)), (S) => `The CI role logs in and gets ${S} for ten minutes.`),
  secretCase('databricks-token', j('dapi', fake(HEX, 32, 9)), (S) => `Databricks workspace PAT ${S} expires in March.`),
  secretCase('twilio-key', j('SK', fake(HEX, 32, 10)), (S) => `Twilio API key sid ${S} belongs to the SMS service.`),
  secretCase('telegram-bot-token', j('5501234567:AA', fake(URLSAFE, 33, 11).replace(/^./, 'H')), (S) => `The alert bot is ${S} on BotFather.`),
  secretCase('basic-auth', j('YWRtaW46', 'c3VwZXJzZWNyZXQ='), (S) => `curl -H 'Authorization: Basic ${S}' https://api.internal/v1/health`),
  secretCase('bearer-token', j('9f8e7d6c5b4a', fake(ALNUM, 28, 12)), (S) => `The staging gateway wants Bearer ${S} on every call.`),
  secretCase('curl-password', 'Tr1cky-Pa55', (S) => `curl -u deploy:${S} https://ci.internal/job/build`),
  secretCase('azure-sas', j('qP3x', fake(ALNUM, 40, 13), '%3D'), (S) => `https://acme.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31&sig=${S}`),
  secretCase('sentry-dsn', fake(HEX, 32, 14), (S) => `Errors go to https://${S}@o450123.ingest.sentry.io/5501234 (the web project).`),
  secretCase('password', 'stapleshorsebatterycorrect', (S) => `passphrase: ${S}`),
  secretCase('shopify-token', j('shpat_', fake(HEX, 32, 15)), (S) => `SHOPIFY_ADMIN=${S}`),
  secretCase('linear-key', j('lin_api_', fake(ALNUM, 40, 16)), (S) => `Linear sync uses ${S}.`),
  secretCase('postman-key', j('PMAK-', fake(HEX, 24, 17), '-', fake(HEX, 34, 18)), (S) => `Postman collection runner key ${S}`),
  secretCase('grafana-token', j('glsa_', fake(ALNUM, 32, 19), '_', fake(HEX, 8, 20)), (S) => `grafana service account: ${S}`),
  secretCase('newrelic-key', j('NRAK-', fake(UPPER_DIGITS, 27, 21)), (S) => `New Relic user key ${S} for the dashboards.`),
  secretCase('age-secret-key', j('AGE-SECRET-KEY-1', fake(UPPER_DIGITS, 58, 22)), (S) => `# sops age key\n${S}`),
  secretCase('planetscale-token', j('pscale_tkn_', fake(ALNUM, 43, 23)), (S) => `PlanetScale deploy request token ${S}`),
  secretCase('doppler-token', j('dp.st.prd.', fake(ALNUM, 43, 24)), (S) => `doppler run --token ${S} -- npm start`),
  secretCase('mailgun-key', j('key-', fake(HEX, 32, 25)), (S) => `Mailgun sending key ${S} (EU region).`),
  secretCase('square-token', j('sq0atp-', fake(URLSAFE, 22, 26)), (S) => `Square sandbox access: ${S}`),
  secretCase('supabase-token', j('sbp_', fake(HEX, 40, 27)), (S) => `supabase login --token ${S}`),
  secretCase('pulumi-token', j('pul-', fake(HEX, 40, 28)), (S) => `Pulumi access token ${S} for the stack.`),
  secretCase('terraform-token', j(fake(ALNUM, 14, 29), '.atlasv1.', fake(URLSAFE, 67, 30)), (S) => `Terraform Cloud team token ${S}`),
  secretCase('sentry-token', j('sntryu_', fake(HEX, 64, 31)), (S) => `Upload source maps with ${S}.`),
  secretCase('groq-key', j('gsk_', fake(ALNUM, 52, 32)), (S) => `Groq evals run with ${S}.`),
  secretCase('replicate-token', j('r8_', fake(ALNUM, 37, 33)), (S) => `Replicate: ${S}`),
  secretCase('perplexity-key', j('pplx-', fake(ALNUM, 48, 34)), (S) => `Perplexity research key ${S}`),
  secretCase('xai-key', j('xai-', fake(ALNUM, 80, 35)), (S) => `Grok access via ${S}`),
  secretCase('mapbox-token', j('sk.eyJ1IjoiYWNtZSIsImEiOiJ', fake(URLSAFE, 20, 36), '.', fake(URLSAFE, 22, 37)), (S) => `Mapbox upload token ${S} (pk. tokens are public).`),
  secretCase('heroku-key', j('HRKU-AA', fake(URLSAFE, 58, 38)), (S) => `heroku authorizations:create gave ${S}`),
  secretCase('contentful-token', j('CFPAT-', fake(URLSAFE, 43, 39)), (S) => `Contentful management token ${S}`),
  secretCase('figma-token', j('figd_', fake(URLSAFE, 40, 40)), (S) => `Figma export script: ${S}`),
  secretCase('notion-token', j('ntn_', fake('0123456789', 11, 41), fake(ALNUM, 35, 42)), (S) => `Notion integration ${S} reads the handbook.`),
  secretCase('airtable-token', j('pat', fake(ALNUM, 14, 43), '.', fake(HEX, 64, 44)), (S) => `Airtable base sync with ${S}`),
  secretCase('resend-key', j('re_', fake(ALNUM, 8, 45), '_', fake(ALNUM, 24, 46)), (S) => `Transactional mail key ${S}`),
  secretCase('netlify-token', j('nfp_', fake(ALNUM, 36, 47)), (S) => `netlify deploy --auth ${S}`),
  secretCase('render-key', j('rnd_', fake(ALNUM, 32, 48)), (S) => `Render API key ${S}`),
  secretCase('tailscale-key', j('tskey-auth-', fake(ALNUM, 12, 49), '-', fake(ALNUM, 33, 50)), (S) => `tailscale up --authkey=${S}`),
  secretCase('onepassword-token', j('ops_eyJzaWduSW5BZGRyZXNzIjoi', fake(URLSAFE, 60, 51)), (S) => `OP_SERVICE_ACCOUNT=${S}`),
  secretCase('buildkite-token', j('bkua_', fake(HEX, 40, 52)), (S) => `Buildkite agent API token ${S}`),
  secretCase('circleci-token', j('CCIPAT_', fake(ALNUM, 22, 53), '_', fake(HEX, 40, 54)), (S) => `CircleCI personal token ${S}`),
  secretCase('slack-token', j('xapp-1-A0', fake(UPPER_DIGITS, 9, 55), '-', fake('0123456789', 13, 56), '-', fake(HEX, 64, 57)), (S) => `Socket mode app token ${S}`),
  secretCase('discord-webhook', fake(URLSAFE, 68, 58), (S) => `Deploy notices: https://discord.com/api/webhooks/1187654321098765432/${S}`),
  secretCase('gitlab-token', j('glrt-', fake(URLSAFE, 20, 59)), (S) => `gitlab-runner register --token ${S}`),
  secretCase('github-token', j('gho_', fake(ALNUM, 36, 60)), (S) => `The OAuth app returned ${S}.`),
  secretCase('github-token', j('ghs_', fake(ALNUM, 36, 61)), (S) => `GITHUB_TOKEN inside the action was ${S}`),
  secretCase('stripe-key', j('rk_live_', fake(ALNUM, 24, 62)), (S) => `Restricted key ${S} reads charges only.`),
  secretCase('openai-key', j('sk-svcacct-', fake(URLSAFE, 48, 63)), (S) => `The batch job uses ${S}`),
  secretCase('aws-access-key', j('ASIA', fake(UPPER_DIGITS, 16, 64)), (S) => `Temporary credentials: access key ${S}`),
  secretCase('google-api-key', j('AIza', fake(URLSAFE, 35, 65)), (S) => `{ "apiKey": "${S}", "authDomain": "acme.firebaseapp.com" }`),
  secretCase('jwt', j('eyJhbGciOiJSUzI1NiJ9', '.eyJpc3MiOiJhY21lIn0', '.', fake(URLSAFE, 43, 66)), (S) => `id_token in the callback: ${S}`),
  secretCase('private-key', fake(B64, 64, 67), (S) => `-----BEGIN EC PRIVATE KEY-----\n${S}\n-----END EC PRIVATE KEY-----`),
  secretCase('connection-password', 'm0ng0-Pr0d!', (S) => `MONGO_URI=mongodb+srv://app:${S}@cluster0.ab1cd.mongodb.net/prod`),
  secretCase('connection-password', 'amqpS3cret', (S) => `broker: amqp://worker:${S}@rabbit.internal:5672/vhost`),
  secretCase('password', 'letmeinplease', (S) => `DB_PASSWORD=${S}`),
  secretCase('password', 'supersecretword', (S) => `  password: ${S}  # local dev only`),
  secretCase('password', 'opensesame', (S) => `spring.datasource.password=${S}`),
  secretCase('password', 'Kj8#mQ2!xZ', (S) => `smtp:\n  host: mail.internal\n  password: ${S}\n  port: 587`),
  secretCase('password', fake(HEX, 64, 68), (S) => `DJANGO_SECRET_KEY=${S}`),
  secretCase('password', fake(ALNUM, 40, 69), (S) => `CLOUDFLARE_API_TOKEN=${S}`),
  secretCase('password', fake(HEX, 32, 70), (S) => `DD_API_KEY=${S}`),
  secretCase('password', fake(ALNUM, 32, 71), (S) => `ALGOLIA_ADMIN_KEY: ${S}`),
  secretCase('password', fake(HEX, 32, 72), (S) => `TWILIO_AUTH_TOKEN=${S}`),
  secretCase('password', j('00', fake(URLSAFE, 40, 73)), (S) => `okta:\n  apiToken: ${S}`),
  secretCase('password', fake(LOWER, 52, 74), (S) => `AZURE_DEVOPS_PAT=${S}`),
  secretCase('password', fake(B64, 44, 75), (S) => `"clientSecret": "${S}",`),
  secretCase('password', 'Wint3r-is-c0ming', (S) => `$env:ADMIN_PASSWORD = '${S}'`),
  secretCase('password', 'dragonflyfountain', (S) => `redis_passphrase = "${S}"`),
  secretCase('password', 'q7Rv-p2Lm-x9Kt', (S) => `GOOGLE_APPLICATION_CREDENTIALS_JSON=${S}`),
  secretCase('password', 'mailhog2026pw', (S) => `MAIL_PASS: ${S}`),
  secretCase('password', fake(ALNUM, 24, 76), (S) => `export ENCRYPTION_KEY=${S}`),
  secretCase('password', fake(ALNUM, 36, 77), (S) => `X-Api-Key: ${S}`),
  secretCase('password', 'bluemoonrising', (S) => `[database]\npassword = ${S}`),
  secretCase('password', 'Hx7$pQ92vL', (S) => `mysql -h db -u root --password=${S}`),
  secretCase('password', 'riverstonecloud', (S) => `keystore_password: "${S}"`),
  secretCase('password', '9c2f1e7a44', (S) => `PGPASSWORD=${S} psql -h localhost`),
  secretCase('password', fake(ALNUM, 30, 78), (S) => `auth_token = ${S}`),
  secretCase('password', 's3cr3t-Value-42', (S) => `client_secret=${S}&grant_type=client_credentials`),
  secretCase('password', 'glacierpinewood', (S) => `SENTRY_DSN_SECRET=${S}`),
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
  // Round three (#40): real rule files (trigger.dev, cline) and the shapes around the new rules.
  'const { data } = useRealtimeRun(runId, {\n    accessToken: publicAccessToken,\n  });',
  'git clone https://x-access-token:...@github.com/acme/app.git',
  'https://x-access-token:${token}@github.com/${owner}/${repo}.git',
  'PGPASSWORD="${POSTGRES_PASSWORD:-postgres}" psql -h localhost',
  'clickhouse client --user "${CLICKHOUSE_USER:-clickhouse}" --password "${CLICKHOUSE_PASSWORD:-clickhouse}"',
  'client = AzureOpenAIChatClient(\n    credential=credential,\n)',
  "const TEST_USER_PASSWORD = 'password123';",
  'Secret: Rotation',
  'secret: stored in the vault',
  "fetch(url, { credentials: 'include' })",
  'hotkey: ctrl+shift+p',
  'sortKey: createdAt',
  'Authorization: Bearer <token>',
  '-H "Authorization: Bearer ${API_TOKEN}"',
  'the Bearer token goes in the Authorization header',
  'curl -u $USER:$TOKEN https://api.example.com',
  'docker run -u 1000:1000 node:22',
  'git push -u origin main',
  'from huggingface_hub import hf_hub_download',
  'password: ********',
  'secrets: inherit',
  'token_type: bearer',
  'PASSWORD_MIN_LENGTH=12',
  'API key: ask the team lead',
  'passphrase: <your passphrase>',
  'secretName: tls-cert',
  '"key": "ctrl+shift+p",',
  'key: "src/**/*.ts"',
  'SECRET_KEY_BASE=$(rails secret)',
  'apiKey: process.env.OPENAI_API_KEY,',
  'dsn: process.env.SENTRY_DSN',
  'credential = DefaultAzureCredential()',
  'secretKey: "sk_test_..."',
  'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
  'token_url: https://oauth2.googleapis.com/token',
  'passwordless: true',
  'cancellation_token: CancellationToken = Field(default_factory=CancellationToken)',
  'internal sealed class LongRunContinuationToken : ContinuationToken',
  'Service ticket 20261128: rotate keys yearly.',
];
