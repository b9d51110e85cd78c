import { redactSecrets } from '../assemble/redact';
import { kindOfPath, languageOf } from '../compress';
import type { LiveCandidate } from './types';

export type DeploymentKind = 'dockerfile' | 'compose' | 'kubernetes' | 'helm' | 'ci' | 'env' | 'terraform' | 'platform';

const LABEL: Record<DeploymentKind, string> = {
  dockerfile: 'Docker image',
  compose: 'Docker Compose services',
  kubernetes: 'Kubernetes manifest',
  helm: 'Helm chart',
  ci: 'CI workflow',
  env: 'Environment variables (example)',
  terraform: 'Terraform',
  platform: 'Deployment platform config',
};

/** What kind of deployment file a workspace path is, or undefined if it is none. */
export function deploymentKind(path: string): DeploymentKind | undefined {
  const lower = path.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  const yaml = /\.ya?ml$/.test(name);
  if (languageOf(lower) === 'dockerfile' || name === 'containerfile') return 'dockerfile';
  if (/^(?:docker-)?compose(?:[.-][\w-]+)?\.ya?ml$/.test(name)) return 'compose';
  if (/^\.env\.(?:example|sample|template|dist|defaults)$|^(?:example|sample)\.env$/.test(name)) return 'env';
  if (/(?:^|\/)\.github\/workflows\/[^/]+\.ya?ml$/.test(lower) || name === '.gitlab-ci.yml' || /(?:^|\/)\.circleci\/config\.ya?ml$/.test(lower) || name === 'azure-pipelines.yml' || name === 'jenkinsfile' || name === '.travis.yml' || name === 'bitbucket-pipelines.yml') return 'ci';
  if (/(?:^|\/)(?:charts?|helm)\//.test(lower) && (yaml || name === 'chart.yaml')) return 'helm';
  if (/(?:^|\/)(?:k8s|kube|kubernetes|manifests|deploy|deployment|deployments|kustomize|overlays|base)\//.test(lower) && yaml) return 'kubernetes';
  if (name === 'kustomization.yaml' || name === 'kustomization.yml') return 'kubernetes';
  if (/\.tf$|\.tfvars\.example$/.test(name)) return 'terraform';
  if (['fly.toml', 'vercel.json', 'netlify.toml', 'render.yaml', 'app.yaml', 'procfile', 'heroku.yml', 'railway.json', 'railway.toml', 'nginx.conf'].includes(name)) return 'platform';
  return undefined;
}

/** Names that hold credentials: their values never leave, only the name does. */
const SECRET_NAME =
  /(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|credential|auth(?:[_-]?key|[_-]?token)?$|salt|signing[_-]?key|encryption[_-]?key|session[_-]?key|client[_-]?secret|dsn|connection[_-]?string|database[_-]?url|db[_-]?url|redis[_-]?url|mongo\w*[_-]?ur[il]|amqp[_-]?url|webhook[_-]?url|\bkey$|[_-]key$)/i;

/** A value that is a reference, not a secret: `${{ secrets.X }}`, `${VAR}`, `$VAR`, `<fill me>`, empty. */
function isReference(value: string): boolean {
  const v = value.trim().replace(/^(['"])(.*)\1$/, '$2').trim();
  return (
    v === '' ||
    /^\$\{\{[^}]*\}\}$/.test(v) ||
    /^\$\{[^}]*\}$/.test(v) ||
    /^\$[A-Za-z_]\w*$/.test(v) ||
    /^\{\{[^}]*\}\}$/.test(v) ||
    /^<[^>]*>$/.test(v) ||
    /^(?:true|false|yes|no|on|off|null|~|\d+)$/i.test(v) ||
    /^(?:changeme|change-me|placeholder|xxx+|\*+|\.\.\.|…)$/i.test(v) ||
    /^(?:valueFrom|secretKeyRef|from_secret)\b/.test(v)
  );
}

const WITHHELD = '<withheld>';

export interface Sanitized {
  text: string;
  /** How many values were withheld. */
  withheld: number;
}

/**
 * A deployment file with every credential's value withheld and its name kept: assignments
 * to secret-looking names (`KEY=value`, `key: value`, `ENV KEY value`, `--password x`),
 * every value under a Kubernetes Secret's `data` / `stringData`, and anything the
 * redactor recognises as a key format. References to secret stores stay: they say where
 * the secret comes from without being it.
 */
export function sanitizeDeployment(path: string, text: string): Sanitized {
  let withheld = 0;
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const isSecretManifest = /^\s*kind:\s*["']?Secret["']?\s*$/m.test(text);
  let secretBlockIndent = -1;
  let scalarIndent = -1;
  let envName: string | undefined;
  const out: string[] = [];
  for (const line of lines) {
    const indent = /^\s*/.exec(line)![0].length;
    const blank = line.trim() === '';
    // Inside a Secret's data: every value goes, block scalars with all their lines.
    if (scalarIndent >= 0 && (blank || indent > scalarIndent)) continue;
    scalarIndent = -1;
    if (secretBlockIndent >= 0 && (blank || indent > secretBlockIndent)) {
      const entry = /^(\s*[\w.-]+\s*:)\s*(.*)$/.exec(line);
      if (entry) {
        if (/^[|>]/.test(entry[2]!)) scalarIndent = indent;
        if (entry[2] !== '' && !isReference(entry[2]!)) withheld++;
        out.push(`${entry[1]} ${WITHHELD}`);
      } else if (!blank) {
        withheld++;
      }
      continue;
    }
    secretBlockIndent = -1;
    if (isSecretManifest && /^\s*(?:data|stringData|binaryData):\s*$/.test(line)) {
      secretBlockIndent = indent;
      out.push(line);
      continue;
    }
    // `password: |` and the block of lines under it.
    const scalar = /^(\s*(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*:\s*)[|>][-+]?\d*\s*$/.exec(line);
    if (scalar && SECRET_NAME.test(scalar[2]!)) {
      withheld++;
      scalarIndent = indent;
      out.push(scalar[1] + WITHHELD);
      continue;
    }
    // Kubernetes and compose env lists: `- name: DB_PASSWORD` then `value: ...`.
    const value = /^(\s*value\s*:\s*)(\S.*)$/.exec(line);
    if (value && envName !== undefined && SECRET_NAME.test(envName) && !isReference(value[2]!)) {
      withheld++;
      out.push(value[1] + WITHHELD);
      envName = undefined;
      continue;
    }
    envName = /^\s*-?\s*name\s*:\s*["']?([\w.-]+)/.exec(line)?.[1];
    out.push(sanitizeLine(line, () => withheld++));
  }
  // Known key formats anywhere (a token pasted into a comment, a URL with a password).
  const redacted = redactSecrets(out.join('\n'));
  return { text: redacted.text, withheld: withheld + redacted.count };
}

/** One line outside a Secret manifest: assignments to secret-looking names lose their value. */
function sanitizeLine(line: string, count: () => void): string {
  // KEY=value (env files, compose lists, Dockerfile ENV/ARG, shell)
  let m = /^(\s*(?:-\s+)?(?:export\s+|ENV\s+|ARG\s+)?["']?)([A-Za-z_][\w.-]*)(["']?\s*=\s*)(.*)$/.exec(line);
  if (m && SECRET_NAME.test(m[2]!) && !isReference(m[4]!.replace(/\s+#.*$/, ''))) {
    count();
    return m[1]! + m[2]! + m[3]! + WITHHELD;
  }
  // key: value (YAML)
  m = /^(\s*(?:-\s+)?["']?)([A-Za-z_][\w.-]*)(["']?\s*:\s+)(.*)$/.exec(line);
  if (m && SECRET_NAME.test(m[2]!) && !isReference(m[4]!.replace(/\s+#.*$/, '')) && !/^[|>]/.test(m[4]!)) {
    count();
    return m[1]! + m[2]! + m[3]! + WITHHELD;
  }
  // ENV KEY value (Dockerfile's older form)
  m = /^(\s*ENV\s+)([A-Za-z_]\w*)(\s+)(\S.*)$/.exec(line);
  if (m && SECRET_NAME.test(m[2]!) && !isReference(m[4]!)) {
    count();
    return m[1]! + m[2]! + m[3]! + WITHHELD;
  }
  // --password value / --token=value on a command line
  return line.replace(/(--?[\w-]*(?:password|passwd|secret|token|api-?key)[\w-]*)([= ])(?!\$)(["']?)([^\s"']+)\3/gi, (whole, flag: string, sep: string, _q: string, value: string) => {
    if (isReference(value)) return whole;
    count();
    return `${flag}${sep}${WITHHELD}`;
  });
}

export interface DeploymentFile {
  path: string;
  text: string;
}

export interface DeploymentOptions {
  inPlay?: readonly string[];
}

/** Environment and deployment files, one candidate each, secret values withheld. */
export function deploymentCandidates(files: readonly DeploymentFile[], options: DeploymentOptions = {}): LiveCandidate[] {
  const inPlay = new Set(options.inPlay ?? []);
  const out: LiveCandidate[] = [];
  for (const file of files) {
    const kind = deploymentKind(file.path);
    if (!kind) continue;
    const { text, withheld } = sanitizeDeployment(file.path, file.text);
    const named = inPlay.has(file.path);
    out.push({
      key: `deployment:${file.path}`,
      source: 'deployment',
      title: `${LABEL[kind]}: ${file.path}`,
      text,
      kind: kind === 'terraform' ? 'code' : kindOfPath(file.path) === 'code' ? 'config' : kindOfPath(file.path),
      path: file.path,
      language: languageOf(file.path),
      prior: named ? 0.95 : 0.35,
      origin: `${named ? 'a deployment file in play' : `${LABEL[kind].toLowerCase()}`}${withheld > 0 ? `; ${withheld} secret value${withheld === 1 ? '' : 's'} withheld` : ''}`,
      ...(withheld > 0 ? { withheld } : {}),
    });
  }
  return out;
}
