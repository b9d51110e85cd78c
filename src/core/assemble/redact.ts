/**
 * Masks what looks like a credential before context leaves the ledger. Patterns favour
 * precision: a key format with a known prefix, or a secret-looking value assigned to a
 * secret-looking name. Placeholders (`${{ secrets.X }}`, `<password>`, `$VAR`) survive.
 */

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
  /** Extra check on the secret (e.g. not a placeholder). */
  accept?: (secret: string) => boolean;
  /** Text without a match of this cannot match `pattern`: a cheap test before a costly one. */
  hint?: RegExp;
}

/** Every secret-looking name the assignment rules know ends in one of these, then `:` or `=`. */
const ASSIGNED_SECRET_NAME = /(?:pass(?:w(?:or)?d|phrase)?|pwd|secret|key|token)["']?\s*[:=]/i;

const PLACEHOLDER = /^(\$\{\{.*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|<[^>]*>|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|\*+|x{3,}|\.{3,}|…|(your|my|the)[-_ ]?[\w-]*|changeme|placeholder|redacted|example\w*|dummy|secret|password|passwd|token|none|null|nil|true|false|undefined|string|str|required|optional|env|process\.env\.\w+|os\.environ.*|os\.getenv.*)$/i;

/**
 * Version numbers and dates after a secret-looking name are dependency lists and
 * changelogs (`jsonwebtoken: 10.2.0 → 10.3.0`, `"jsonwebtoken": "^9.0.2"`), not secrets.
 */
const VERSION_OR_DATE = /^(?:[v^~<>=]*\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?)$/;

function notPlaceholder(secret: string): boolean {
  if (PLACEHOLDER.test(secret)) return false;
  if (VERSION_OR_DATE.test(secret)) return false;
  if (/^\[REDACTED:/.test(secret)) return false;
  return true;
}

/** Eight or more characters mixing lower case, upper case and at least two digits. */
function randomLooking(part: string): boolean {
  return part.length >= 8 && /[a-z]/.test(part) && /[A-Z]/.test(part) && /\d.*\d/.test(part);
}

/** An unquoted assignment value that looks like code rather than a literal (`config.password`, `getPass()`). */
function literalValue(secret: string): boolean {
  if (!notPlaceholder(secret)) return false;
  if (/^\d+$/.test(secret)) return false;
  if (/[()]/.test(secret)) return false;
  // `config.db.password` is code; `Vx8Qa.b3DkLm9.Zp2` (dotted client secrets) is not: a
  // segment of random-looking mixed case and digits is no name a person writes.
  if (/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(secret) && !secret.split('.').some(randomLooking)) return false;
  if (secret.length < 6) return false;
  // A plain word after "Token:" is prose ("Token: Budget"); secrets mix in digits or symbols,
  // or are long random-looking runs of mixed case.
  if (/[0-9!@#$%^&*+/=_~-]/.test(secret)) return true;
  return secret.length >= 16 && /[a-z]/.test(secret) && /[A-Z]/.test(secret);
}

const RULES: Rule[] = [
  {
    kind: 'private-key',
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END \1PRIVATE KEY\2-----|$)/g,
    group: 0,
  },
  { kind: 'aws-access-key', pattern: /\b((?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AGPA|ANPA|ANVA|APKA)[0-9A-Z]{16})\b/g, group: 1 },
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
    kind: 'connection-password',
    // The user may be empty: `redis://:password@host`.
    pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/'"`<>]{0,128}:)([^\s@/'"`<>]{1,256})(@[^\s'"`<>]+)/gi,
    group: 2,
    accept: notPlaceholder,
  },
  {
    kind: 'password',
    pattern:
      /(?<![A-Za-z0-9_-])([_-]*(?:[A-Za-z0-9]+[_-]+)*[A-Za-z0-9]*?(?:password|passwd|pwd|passphrase|(?<![A-Za-z])pass|secret|secret[_-]?key|api[_-]?key|apikey|client[_-]?secret|access[_-]?token|auth[_-]?token|token|private[_-]?key)["']?\s*(?::|=|:=|=>)\s*)(["'])([^"'\n]{4,256})\2/gi,
    group: 3,
    accept: notPlaceholder,
    hint: ASSIGNED_SECRET_NAME,
  },
  {
    kind: 'password',
    pattern:
      /(?<![A-Za-z0-9_-])([_-]*(?:[A-Za-z0-9]+[_-]+)*[A-Za-z0-9]*?(?:password|passwd|pwd|passphrase|(?<![A-Za-z])pass|secret|secret[_-]?key|api[_-]?key|apikey|client[_-]?secret|access[_-]?token|auth[_-]?token|token|private[_-]?key)\s*(?::|=|:=)[ \t]*)([^\s"'`,;{}[\]]{6,256})/gi,
    group: 2,
    accept: literalValue,
    hint: ASSIGNED_SECRET_NAME,
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
const MAYBE_SECRET = /PRIVATE KEY|AKIA|ASIA|A[BCIGNPR][A-Z][A-Z][0-9A-Z]{16}|secret|gh[pousr]_|github_pat_|gl[a-z]{1,4}-|xox|hooks\.slack|_live_|_test_|sk-|AIza|GOCSPX|ya29\.|eyJ|SG\.|AccountKey|SharedAccessKey|\dQ~|:\/\/[^\s/@]*@|pass|pwd|token|api[_-]?key|apikey|private/i;

export function redactSecrets(text: string, allow: readonly string[] = []): RedactionResult {
  const kinds: Record<string, number> = {};
  let count = 0;
  if (!MAYBE_SECRET.test(text)) return { text, count, kinds };
  const allowed = allowMatcher(allow);
  let out = text;
  for (const rule of RULES) {
    if (rule.hint && !rule.hint.test(out)) continue;
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, (...args: unknown[]) => {
      const whole = args[0] as string;
      const groups = args.slice(1, -2) as Array<string | undefined>;
      const secret = rule.group === 0 ? whole : groups[rule.group - 1];
      if (!secret || secret.startsWith('[REDACTED:')) return whole;
      if (rule.accept && !rule.accept(secret)) return whole;
      if (allowed(secret, whole)) return whole;
      count++;
      kinds[rule.kind] = (kinds[rule.kind] ?? 0) + 1;
      if (rule.group === 0) return redactionMarker(rule.kind);
      // Keep what surrounds the secret (the key name, the URL) so the text still reads.
      const at = whole.indexOf(secret, rule.group === 1 ? 0 : (groups[0] ?? '').length);
      return whole.slice(0, at) + redactionMarker(rule.kind) + whole.slice(at + secret.length);
    });
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
