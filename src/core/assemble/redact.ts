/**
 * Masks what looks like a credential before context leaves the ledger. Patterns favour
 * precision: a key format with a known prefix, or a secret-looking value assigned to a
 * secret-looking name. Placeholders (`${{ secrets.X }}`, `<password>`, `$VAR`) survive.
 */

import { PREFIX_HINTS, PREFIXED_FORMATS } from './secretPatterns';

export interface RedactionResult {
  text: string;
  count: number;
  kinds: Record<string, number>;
}

interface Rule {
  kind: string;
  pattern: RegExp;
  /** Index of the group holding the secret; the rest of the match is kept. 0 = whole match. */
  group: number;
  /** Extra check on the secret (e.g. not a placeholder), given what surrounds it. */
  accept?: (secret: string, around: Around) => boolean;
  /** The kind when it depends on which format matched. */
  kindOf?: (secret: string) => string;
  /** Text without a match of this cannot match `pattern`: a cheap test before a costly one. */
  hint?: RegExp;
  /**
   * A rejected match whose secret holds a match of the hint is searched again from the
   * secret's start (`okta: apiToken: …` on one line: `okta` is no secret name, `apiToken` is),
   * three levels deep at most. Other rejected matches are skipped whole, which keeps every
   * rule linear in the text.
   */
  rescan?: boolean;
}

/** What surrounds a candidate secret: the rule's groups and the rest of its line. */
interface Around {
  groups: ReadonlyArray<string | undefined>;
  /** The text after the match, up to the end of its line (at most 80 characters). */
  after: string;
}

/** Every secret-looking name the assignment rules know holds one of these, then `:` or `=`. */
const ASSIGNED_SECRET_NAME = /(?:pass|pwd|secret|key|token|credential|dsn|pat)[A-Za-z0-9_.-]{0,40}["']?[ \t]*[:=]/i;

const PLACEHOLDER =
  /^(\$\{\{.*\}\}|\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_][A-Za-z0-9_]*|<[^>]*>|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|\*+|x{3,}|X{3,}|\.{3,}|…|(your|my|the)[-_ ]?[\w-]*|changeme|change[-_]?me|placeholder|redacted|example\w*|sample\w*|dummy|fake\w*|test|secret|password|passwd|passphrase|token|credentials?|none|null|nil|true|false|undefined|string|str|required|optional|env|process\.env\.\w+|os\.environ.*|os\.getenv.*|include|omit|same-origin|inherit|default|auto|enabled|disabled|yes|no|on|off|hidden|masked|sensitive|plain|plaintext|bcrypt|argon2|sha256|base64|hex|utf-?8|bearer|basic|oauth2?|jwt|hunter2|letmein|admin|root|guest|user|username|value|foo|bar|baz|abc|secretref)$/i;

/**
 * Version numbers and dates after a secret-looking name are dependency lists and
 * changelogs (`jsonwebtoken: 10.2.0 → 10.3.0`, `"jsonwebtoken": "^9.0.2"`), not secrets.
 */
const VERSION_OR_DATE = /^(?:[v^~<>=]*\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?)$/;

function notPlaceholder(secret: string): boolean {
  if (PLACEHOLDER.test(secret)) return false;
  // Elided (`sk_test_...`) or a documented example (`AKIAIOSFODNN7EXAMPLE`).
  if (/(?:\.{3}|…|EXAMPLE(?:KEY)?)$/.test(secret)) return false;
  // The passwords tutorials and test fixtures use: `password123`, `secret1`, `test1234!`.
  if (/^(?:password|passw0rd|secret|test|changeme|admin|letmein|qwerty)\d*!?$/i.test(secret)) return false;
  if (VERSION_OR_DATE.test(secret)) return false;
  if (/^\[REDACTED:/.test(secret)) return false;
  return true;
}

/** Eight or more characters mixing lower case, upper case and at least two digits. */
function randomLooking(part: string): boolean {
  return part.length >= 8 && /[a-z]/.test(part) && /[A-Z]/.test(part) && /\d.*\d/.test(part);
}

/**
 * How strongly a name says its value is a secret. `strong`: it names a password, secret,
 * passphrase, credential or DSN, and any literal value is one (`password: letmeinplease`).
 * `weak`: a token or a key, also names of cursors and lookups (`nextToken`, `sortKey`), so the
 * value must look random. Words that say the value is about the secret, not the secret
 * (`password_hint`, `TOKEN_TTL`, `publicKey`, `secretName`), make it none.
 */
function secretName(name: string): 'strong' | 'weak' | undefined {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.-]+/)
    .filter((w) => w !== '');
  if (words.some((w) => NOT_THE_SECRET.has(w))) return undefined;
  if (words.some((w) => /^(?:pass|pwd|dsn|credentials?)$|(?:password|passwd|passphrase|passcode|secret)$/.test(w))) return 'strong';
  if (words.some((w) => /^(?:api|secret|access|private|signing|master|license|auth|encryption|client|app|service|session|webhook|account|shared|storage)?key$/.test(w))) return 'weak';
  if (words.some((w) => /^(?:api|access|auth|refresh|bearer|session|bot|id|oauth|personal|github|gitlab|npm|slack|pat)?token$|^pat$/.test(w))) return 'weak';
  return undefined;
}

const NOT_THE_SECRET = new Set(
  (
    'hint reset ttl expiry expires expiration length len min max count file path dir name names id ids type header prefix field policy rotation ' +
    'public pub publishable cache sort partition primary foreign lookup ref env var source store manager provider mount format size bits ' +
    'algorithm alg version required enabled strategy mode limit usage budget model tokenizer regex pattern label description help prompt ' +
    'placeholder example schema validation validator strength policy endpoint url uri location option options setting settings input'
  ).split(' '),
);

/** Code, not a literal: a call, a property path, a variable named after a secret (`publicAccessToken`, `dbPassword`). */
function looksLikeCode(value: string): boolean {
  if (/[()]/.test(value) || value.includes('${')) return true;
  // `config.db.password` is code; `Vx8Qa.b3DkLm9.Zp2` (dotted client secrets) is not: a
  // segment of random-looking mixed case and digits is no name a person writes.
  if (/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(value) && !value.split('.').some(randomLooking)) return true;
  // An identifier naming a secret is a reference to one (`publicAccessToken`, `DB_PASSWORD`;
  // all lower case, `mysecretpassword` is a password).
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(value) && /[A-Z_]/.test(value) && !randomLooking(value) && /pass|secret|token|key|credential|dsn/i.test(value)) return true;
  // camelCase of whole words (`createdAt`, `userIdentifier`): a name.
  return /^[a-z]+(?:[A-Z][a-z]+)+$/.test(value);
}

/**
 * A lower-case word follows on the line: `secret: stored in the vault` is prose. A value in a
 * file ends its line or field (`password: hunter  # dev`); one flattened into a snippet or a
 * title is followed by the next sentence, which starts with a capital.
 */
function proseGoesOn(after: string): boolean {
  return /^[ \t]+[a-z]/.test(after);
}

/**
 * Whether a value assigned to a secret-looking name is a secret. Placeholders, versions,
 * dates, code and prose are not; for a weak name (`token`, `key`) the value must look
 * random, for a strong one (`password`) any literal word that ends its line will do.
 */
function assignedSecret(value: string, { groups, after }: Around, quoted: boolean): boolean {
  const name = groups[0] ?? '';
  const strength = secretName(name);
  if (!strength || !notPlaceholder(value) || after.startsWith('[')) return false;
  // `credential=credential`, `password: password`: a keyword argument passed on, not a value.
  if (name.toLowerCase().replace(/^-+/, '') === value.toLowerCase()) return false;
  if (/^[!&*]/.test(value) || looksLikeCode(value)) return false;
  if (/\s/.test(value)) return quoted && strength === 'strong' && value.trim().length >= 12 && !/[.!?]$/.test(value) && value.split(/\s+/).length <= 6;
  if (/^\d+$/.test(value)) return strength === 'strong' && value.length >= 6;
  if (/^[A-Za-z]+$/.test(value)) {
    if (strength === 'weak') return value.length >= 20;
    if (!quoted && proseGoesOn(after)) return false;
    // A capitalised word after `Secret:` is a heading or a label, not a password.
    return quoted ? value.length >= 4 : value.length >= 6 && !/^[A-Z][a-z]+$/.test(value);
  }
  if (strength === 'weak') return value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value);
  return value.length >= (quoted ? 4 : 6);
}

const PREFIXED = new RegExp(`(?<![A-Za-z0-9_])((?:${PREFIXED_FORMATS.map((f) => f.source).join(')|(?:')}))`, 'g');
const PREFIXED_ANCHORED = PREFIXED_FORMATS.map((f) => ({ ...f, whole: new RegExp(`^(?:${f.source})$`) }));

/**
 * A name (`DB_PASSWORD`, `"apiKey"`, `--password`, `X-Api-Key`) and what assigns to it; not
 * inside a URL (`https://x-access-token:…@github.com`) nor a shell default (`${PASSWORD:-postgres}`).
 */
const NAME = String.raw`(?<![A-Za-z0-9_.\/-])(?<!\$\{)(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,63})(["']?[ \t]*(?::|=|:=|=>)[ \t]*)`;

const RULES: Rule[] = [
  {
    kind: 'private-key',
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END \1PRIVATE KEY\2-----|$)/g,
    group: 0,
  },
  { kind: 'aws-access-key', pattern: /\b((?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA|ANPA|ANVA|APKA)[0-9A-Z]{16})\b/g, group: 1, accept: notPlaceholder },
  {
    kind: 'aws-secret-key',
    // `aws_secret_access_key = …` in a credentials file, `"SecretAccessKey": "…"` in STS JSON output.
    pattern: /((?:aws_?secret_?(?:access_?)?|secret_?access_?)key(?:_id)?["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 2,
  },
  { kind: 'github-token', pattern: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b/g, group: 1 },
  { kind: 'github-token', pattern: /\b(github_pat_[A-Za-z0-9_]{50,255})\b/g, group: 1 },
  { kind: 'gitlab-token', pattern: /\b(gl(?:pat|dt|rt|ptt|cbt|imt|oas|ft|soat)-[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/g, group: 1 },
  { kind: 'slack-token', pattern: /\b(xox[abposr]-[A-Za-z0-9-]{10,})(?![A-Za-z0-9-])/g, group: 1 },
  { kind: 'slack-webhook', pattern: /(https:\/\/hooks\.slack\.com\/services\/)(T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+)/g, group: 2 },
  { kind: 'discord-webhook', pattern: /(https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{1,20}\/)([A-Za-z0-9_-]{60,100})/g, group: 2 },
  { kind: 'stripe-key', pattern: /\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})\b/g, group: 1 },
  { kind: 'anthropic-key', pattern: /\b(sk-ant-[A-Za-z0-9]+-[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/g, group: 1 },
  {
    kind: 'openai-key',
    pattern: /\b(sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/g,
    group: 1,
    // Real keys mix letters and digits; `sk-some-long-hyphenated-name` in prose does not.
    accept: (s) => /\d/.test(s) && /[A-Za-z]/.test(s.slice(3)) && !/^sk-[a-z]+(-[a-z]+)+$/.test(s),
  },
  { kind: 'sendgrid-key', pattern: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/g, group: 1 },
  {
    // Storage and Service Bus connection strings: `AccountKey=<base64>;`, `SharedAccessKey=<base64>`.
    kind: 'azure-key',
    pattern: /\b((?:AccountKey|SharedAccessKey)\s*=\s*)([A-Za-z0-9+/]{20,512}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 2,
  },
  // The signature of an Azure shared access signature URL (`…?sv=…&sig=<url-encoded base64>`).
  { kind: 'azure-sas', pattern: /([?&;]sig=)([A-Za-z0-9%+/]{20,256}(?:=|%3[Dd]){0,2})(?![A-Za-z0-9%+/=])/g, group: 2 },
  {
    // Entra ID (Azure AD) client secrets: three characters, a digit, `Q~`, then 31 to 34 of [A-Za-z0-9_~.-].
    kind: 'azure-client-secret',
    pattern: /(?<![A-Za-z0-9_~.-])([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/g,
    group: 1,
  },
  { kind: 'google-api-key', pattern: /\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/g, group: 1 },
  { kind: 'google-oauth-secret', pattern: /\b(GOCSPX-[A-Za-z0-9_-]{28})(?![A-Za-z0-9_-])/g, group: 1 },
  { kind: 'google-oauth-token', pattern: /\b(ya29\.[0-9A-Za-z_-]{20,})(?![0-9A-Za-z_-])/g, group: 1 },
  { kind: 'jwt', pattern: /\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})(?![A-Za-z0-9_-])/g, group: 1 },
  {
    kind: 'prefixed',
    pattern: PREFIXED,
    group: 1,
    accept: (s) => PREFIXED_ANCHORED.find((f) => f.whole.test(s))?.accept?.(s) ?? true,
    kindOf: (s) => PREFIXED_ANCHORED.find((f) => f.whole.test(s))?.kind ?? 'token',
  },
  {
    // A bot id, a colon and 35 characters (Telegram's BotFather tokens).
    kind: 'telegram-bot-token',
    pattern: /(?<![\w:])(\d{8,10}:[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])/g,
    group: 1,
    accept: (s) => /[a-z]/.test(s) && /[A-Z]/.test(s),
  },
  // The key of a Sentry DSN (`https://<32 hex>@o1.ingest.sentry.io/2`): its user part, with no password.
  { kind: 'sentry-dsn', pattern: /\b(https?:\/\/)([0-9a-f]{32})(?=(?::[0-9a-f]{32})?@)/g, group: 2 },
  {
    kind: 'basic-auth',
    pattern: /\b(Authorization["']?[ \t]*[:=][ \t]*["']?Basic[ \t]+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi,
    group: 2,
    accept: notPlaceholder,
  },
  {
    // An opaque bearer token (JWTs and known formats are masked by their own rule first).
    kind: 'bearer-token',
    pattern: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/-]{16,}={0,2})(?![A-Za-z0-9._~+/=-])/gi,
    group: 2,
    accept: (s) => notPlaceholder(s) && !/^(?:your|my|the)[-_]/i.test(s) && ((/\d/.test(s) && /[A-Za-z]/.test(s)) || (s.length >= 32 && /[a-z]/.test(s) && /[A-Z]/.test(s))),
  },
  {
    // `curl -u user:password`, `--user=user:password` (and `--proxy-user`): the part after the colon.
    kind: 'curl-password',
    pattern: /(?<![\w-])(-u|--user|--proxy-user)([ \t]+|=)(["']?)([^\s:"'@]{0,128}):([^\s"'@]{1,256})\3(?![^\s"'])/g,
    group: 5,
    // `--user "${CLICKHOUSE_USER:-clickhouse}"` is a shell default, not a user and password.
    accept: (s, { groups }) => notPlaceholder(s) && !/^\d+$/.test(s) && !s.startsWith('$') && !(groups[3] ?? '').includes('$'),
  },
  {
    kind: 'connection-password',
    // The user may be empty: `redis://:password@host`.
    pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/'"`<>[\]]{0,128}:)([^\s@/'"`<>]{1,256})(@[^\s'"`<>]+)/gi,
    group: 2,
    accept: notPlaceholder,
  },
  {
    // `password = "…"`, `"apiKey": '…'`: a quoted value assigned to a secret-looking name.
    kind: 'password',
    pattern: new RegExp(`${NAME}(["'])([^"'\\n]{4,256})\\3`, 'g'),
    group: 4,
    accept: (s, around) => assignedSecret(s, around, true),
    hint: ASSIGNED_SECRET_NAME,
    rescan: true,
  },
  {
    // `DB_PASSWORD=…`, `passphrase: …`, `SECRET_KEY_BASE=…`: an unquoted one.
    kind: 'password',
    pattern: new RegExp(`${NAME}([^\\s"'\`,;{}[\\]]{4,256})`, 'g'),
    group: 3,
    accept: (s, around) => assignedSecret(s, around, false),
    hint: ASSIGNED_SECRET_NAME,
    rescan: true,
  },
];

/** An allow-list entry is an exact string, or a regular expression written `/source/flags`. */
function allowMatcher(allow: readonly string[]): (secret: string, whole: string) => boolean {
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const entry of allow) {
    const re = /^\/(.+)\/([a-z]*)$/.exec(entry);
    if (re) {
      try {
        patterns.push(new RegExp(re[1]!, re[2]!.replace(/[gy]/g, '')));
        continue;
      } catch {
        // Not a valid expression: treat it as a literal.
      }
    }
    exact.add(entry);
  }
  if (exact.size === 0 && patterns.length === 0) return () => false;
  return (secret, whole) => exact.has(secret) || exact.has(whole) || patterns.some((p) => p.test(secret) || p.test(whole));
}

export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/**
 * Quick reject: most text has none of the characters every rule needs. Every branch is
 * a literal or a run that stops at a character it starts from (`:\/\/[^\s/@]*@` stops at the
 * next `/`), so the test is linear in the text: an unbounded `:\/\/\S*:\S*@` here once made
 * 800 comma-separated CORS origins take 13 s.
 */
const MAYBE_SECRET = new RegExp(
  [
    String.raw`PRIVATE KEY|AKIA|ASIA|A[BCIGNPR][A-Z][A-Z][0-9A-Z]{16}|secret|gh[pousr]_|github_pat_|gl[a-z]{1,4}-|xox|hooks\.slack|_live_|_test_|sk-|AIza|GOCSPX|ya29\.|eyJ|SG\.`,
    String.raw`AccountKey|SharedAccessKey|\dQ~|:\/\/[^\s/@]*@|pass|pwd|token|api[_-]?key|apikey|private|dsn|credential|(?:key|pat)["']?[ \t]*[:=]|bearer|basic|sig=`,
    String.raw`-u[ \t=]|--(?:proxy-)?user|\d{8}:|discord`,
    ...PREFIX_HINTS,
  ].join('|'),
  'i',
);

export function redactSecrets(text: string, allow: readonly string[] = []): RedactionResult {
  const kinds: Record<string, number> = {};
  let count = 0;
  if (!MAYBE_SECRET.test(text)) return { text, count, kinds };
  const allowed = allowMatcher(allow);
  let out = text;
  for (const rule of RULES) {
    if (rule.hint && !rule.hint.test(out)) continue;
    const input = out;
    const pattern = rule.pattern;
    const parts: string[] = [];
    let done = 0;
    let rejectedEnd = 0;
    let depth = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(input); match; match = pattern.exec(input)) {
      const whole = match[0];
      const groups = match.slice(1);
      const secret = rule.group === 0 ? whole : groups[rule.group - 1];
      // Where the secret starts in the match: what surrounds it (the key name, the URL) is kept.
      const before = rule.group === 0 ? 0 : groups.slice(0, rule.group - 1).reduce((n, g) => n + (g ?? '').length, 0);
      const at = secret ? whole.indexOf(secret, Math.min(before, whole.length - secret.length)) : 0;
      const end = match.index + whole.length;
      const after = input.slice(end, end + 80).split('\n', 1)[0]!;
      const masked = !!secret && !secret.startsWith('[REDACTED:') && (rule.accept?.(secret, { groups, after }) ?? true) && !allowed(secret, whole);
      if (!masked) {
        // A match found by looking again inside a rejected one is looked into at most three deep
        // (`a: b: c: apiToken: …`), so a text built of names (`x=token=x=token=…`) stays linear.
        depth = match.index < rejectedEnd ? depth + 1 : 0;
        rejectedEnd = Math.max(rejectedEnd, end);
        if (rule.rescan && secret && depth < 3 && rule.hint?.test(secret)) pattern.lastIndex = match.index + Math.max(1, at);
        continue;
      }
      const kind = rule.kindOf ? rule.kindOf(secret) : rule.kind;
      count++;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      parts.push(input.slice(done, match.index), whole.slice(0, at), redactionMarker(kind), whole.slice(at + secret.length));
      done = end;
    }
    if (done > 0) out = parts.join('') + input.slice(done);
  }
  return { text: out, count, kinds };
}

/** Whether and how text leaving the ledger is masked (the assembler's `redact` and `redactAllow` options). */
export interface RedactionPolicy {
  /** false turns masking off; anything else keeps it on. */
  redact?: boolean;
  redactAllow?: readonly string[];
}

/**
 * The one gate for knowledge text leaving the ledger: `value` with every string in it
 * masked (a string, or the strings anywhere inside arrays and plain objects; keys,
 * numbers and booleans as they are). The agent tools pass their whole answer through it
 * (text and structured content), and rule-file export every title and body, so a field
 * added to either later is masked without anyone remembering to.
 */
export function redactOutgoing<T>(value: T, policy: RedactionPolicy = {}): T {
  if (policy.redact === false) return value;
  const allow = policy.redactAllow ?? [];
  // An answer often carries one text twice (the text content and its structured copy): mask it once.
  const seen = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let masked = seen.get(v);
      if (masked === undefined) seen.set(v, (masked = redactSecrets(v, allow).text));
      return masked;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(v)) out[key] = walk(field);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
