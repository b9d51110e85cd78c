/**
 * Credential formats with a known shape: one entry per provider family, the secret a
 * fixed prefix and a bounded run (so every pattern is linear in the text). The prefixes
 * come from each provider's documented token format; a run too short or too regular to
 * be a key (an identifier that happens to start with `hf_`) is refused by `accept`.
 * The redactor runs them all as one alternation, one pass over the text.
 */

export interface PrefixedFormat {
  kind: string;
  /**
   * The whole secret, no flags; groups inside are non-capturing. A bounded run ends in a
   * lookahead for its own characters (so it is not the start of a longer word); an unbounded
   * one needs none, and must not have one that could make it give characters back.
   */
  source: string;
  accept?: (secret: string) => boolean;
}

const mixedCase = (s: string): boolean => /[a-z]/.test(s) && /[A-Z]/.test(s);

export const PREFIXED_FORMATS: readonly PrefixedFormat[] = [
  // Stripe webhook signing secrets (the API keys have their own rule).
  { kind: 'stripe-key', source: 'whsec_[A-Za-z0-9+/]{24,}' },
  { kind: 'npm-token', source: 'npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])' },
  { kind: 'pypi-token', source: 'pypi-[A-Za-z0-9_-]{50,}' },
  { kind: 'docker-token', source: 'dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}' },
  // Hugging Face: `hf_` and 34 letters; `hf_hub_download_folder` is a name, not a token.
  { kind: 'huggingface-token', source: 'hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])', accept: (s) => mixedCase(s.slice(3)) },
  { kind: 'digitalocean-token', source: 'do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])' },
  // HashiCorp Vault service, batch and recovery tokens.
  { kind: 'vault-token', source: 'hv[sbr]\\.[A-Za-z0-9_-]{24,}' },
  { kind: 'databricks-token', source: 'dapi[a-f0-9]{32}(?:-\\d)?(?![A-Za-z0-9])' },
  // Twilio API key sids are `SK` and 32 lower-case hex digits (an `AC…` account sid is no secret).
  { kind: 'twilio-key', source: 'SK[0-9a-f]{32}(?![A-Za-z0-9])' },
  { kind: 'shopify-token', source: 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])' },
  { kind: 'linear-key', source: 'lin_(?:api|oauth)_[A-Za-z0-9]{40}(?![A-Za-z0-9])' },
  { kind: 'postman-key', source: 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])' },
  { kind: 'grafana-token', source: '(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}(?![A-Za-z0-9])|glc_[A-Za-z0-9+/]{32,}={0,2})' },
  { kind: 'newrelic-key', source: 'NRAK-[A-Z0-9]{27}(?![A-Za-z0-9])' },
  { kind: 'age-secret-key', source: 'AGE-SECRET-KEY-1[0-9A-Z]{58}(?![A-Za-z0-9])' },
  { kind: 'planetscale-token', source: 'pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}(?![A-Za-z0-9_.-])' },
  { kind: 'doppler-token', source: 'dp\\.(?:pt|st|ct|sa|scim|audit)\\.[A-Za-z0-9_.-]{40,}' },
  { kind: 'mailgun-key', source: 'key-[0-9a-f]{32}(?![A-Za-z0-9])' },
  { kind: 'square-token', source: 'sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}(?![A-Za-z0-9_-])' },
  { kind: 'supabase-token', source: 'sb(?:p|_secret)_[A-Za-z0-9_]{32,}' },
  { kind: 'pulumi-token', source: 'pul-[a-f0-9]{40}(?![A-Za-z0-9])' },
  { kind: 'terraform-token', source: '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}' },
  { kind: 'sentry-token', source: '(?:sntrys_[A-Za-z0-9+/=_]{40,}|sntryu_[a-f0-9]{64}(?![A-Za-z0-9]))' },
  { kind: 'groq-key', source: 'gsk_[A-Za-z0-9]{48,56}(?![A-Za-z0-9])' },
  { kind: 'replicate-token', source: 'r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])' },
  { kind: 'perplexity-key', source: 'pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])' },
  { kind: 'xai-key', source: 'xai-[A-Za-z0-9]{60,90}(?![A-Za-z0-9])' },
  // A Mapbox secret token (`pk.` tokens are public and meant for browsers).
  { kind: 'mapbox-token', source: 'sk\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}' },
  { kind: 'heroku-key', source: 'HRKU-[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])' },
  { kind: 'contentful-token', source: 'CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])' },
  { kind: 'figma-token', source: 'figd_[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])' },
  { kind: 'notion-token', source: '(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})(?![A-Za-z0-9])', accept: (s) => /\d/.test(s) && /[A-Za-z]/.test(s.slice(7)) },
  { kind: 'airtable-token', source: 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}(?![A-Za-z0-9])' },
  { kind: 'resend-key', source: 're_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9])' },
  { kind: 'netlify-token', source: 'nfp_[A-Za-z0-9]{36}(?![A-Za-z0-9])' },
  { kind: 'render-key', source: 'rnd_[A-Za-z0-9]{32}(?![A-Za-z0-9])' },
  { kind: 'tailscale-key', source: 'tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}' },
  { kind: 'onepassword-token', source: 'ops_eyJ[A-Za-z0-9_-]{40,}' },
  { kind: 'buildkite-token', source: 'bkua_[a-f0-9]{40}(?![A-Za-z0-9])' },
  { kind: 'circleci-token', source: 'CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}(?![A-Za-z0-9])' },
  { kind: 'slack-token', source: 'xapp-\\d-[A-Z0-9]+-\\d+-[a-f0-9]{32,}' },
];

/** The literal starts of the formats above, for the redactor's quick reject (any one must be present). */
export const PREFIX_HINTS = [
  'whsec_', 'npm_', 'pypi-', 'dckr_', 'hf_', '_v1_', 'hv[sbr]\\.', 'dapi', 'SK[0-9a-f]', 'shp', 'lin_', 'PMAK-', 'gl(?:sa|c)_', 'NRAK-',
  'AGE-SECRET', 'pscale_', 'dp\\.', 'key-', 'sq0', 'sb(?:p|_secret)_', 'pul-', 'atlasv1', 'sntry', 'gsk_', 'r8_', 'pplx-', 'xai-', 'sk\\.eyJ',
  'HRKU-', 'CFPAT-', 'figd_', 'secret_', 'ntn_', 'pat[A-Za-z0-9]{14}\\.', 're_', 'nfp_', 'rnd_', 'tskey-', 'ops_', 'bkua_', 'CCIPAT_', 'xapp-',
];
