import { ConfigError, type Config } from './config';

/** svc's own secrets, with the shortest value each accepts (an HMAC key, a scrape token). */
const OWN_SECRETS = [
  { key: 'tokenSecret', env: 'SVC_TOKEN_SECRET', minLength: 32 },
  { key: 'metricsToken', env: 'SVC_METRICS_TOKEN', minLength: 16 },
] as const;

/** Values shipped in this repository's examples and manifests, and the usual stand-ins. */
const KNOWN_PLACEHOLDERS = new Set([
  'change-me-to-32-random-characters',
  'change-me-to-another-long-random-string',
  'a-long-random-string-of-16-or-more-characters',
  'at-least-16-characters-of-random',
  'sk-upstream-key',
  'optional-token',
  'secret',
  'password',
  'token',
  'admin',
  'test',
]);
const PLACEHOLDER_PATTERN = /change[-_ ]?me|replace[-_ ]?me|placeholder|^your[-_ ]|^<.*>$|^x{6,}$|^\*+$/i;

/** Field names whose values are credentials (checked for placeholders wherever they appear). */
const SECRET_FIELD = /secret|password|apikey|token$/i;

/** Whether `value` is a stand-in someone forgot to replace. */
export function isPlaceholder(value: string): boolean {
  return KNOWN_PLACEHOLDERS.has(value.trim().toLowerCase()) || PLACEHOLDER_PATTERN.test(value.trim());
}

/** Every weak secret in `config`, worded as "<where> <why>". */
export function weakSecrets(config: Config): string[] {
  const found: string[] = [];
  for (const { key, env, minLength } of OWN_SECRETS) {
    const value = config[key];
    if (value === undefined) continue;
    if (isPlaceholder(value)) found.push(`${key} (${env}) is a published placeholder`);
    else if (value.length < minLength) found.push(`${key} (${env}) has ${value.length} characters, fewer than ${minLength}`);
  }
  for (const [key, env] of [
    ['databaseUrl', 'DATABASE_URL'],
    ['redisUrl', 'REDIS_URL'],
  ] as const) {
    const password = passwordOf(config[key]);
    if (password && isPlaceholder(password)) found.push(`the password in ${key} (${env}) is a placeholder`);
  }
  const own = new Set<string>(OWN_SECRETS.map((s) => s.key));
  walk(config, [], (path, value) => {
    if (path.length === 1 && own.has(path[0]!)) return;
    if (isPlaceholder(value)) found.push(`${path.join('.')} is a placeholder`);
  });
  return found;
}

/**
 * Refuses weak secrets (a ConfigError naming them and how to make a real one), or, when the
 * operator set `allowWeakSecrets`, returns the warning to print at every start.
 */
export function checkSecrets(config: Config): string | null {
  const weak = weakSecrets(config);
  if (weak.length === 0) return null;
  const what = weak.join('; ');
  if (!config.allowWeakSecrets)
    throw new ConfigError(
      `weak secrets: ${what}. Set each to a random value (openssl rand -hex 24), or unset it, or set SVC_ALLOW_WEAK_SECRETS=true to run anyway (never in production)`,
    );
  return `svc: WARNING: running with weak secrets because SVC_ALLOW_WEAK_SECRETS is set: ${what}. Anyone who has read this repository can use them.`;
}

function passwordOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

/** Calls `visit` with each string under a secret-named field, anywhere in `value`. */
function walk(value: unknown, path: string[], visit: (path: string[], value: string) => void) {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, String(i)], visit));
  else if (value !== null && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && SECRET_FIELD.test(key)) visit([...path, key], v);
      else walk(v, [...path, key], visit);
    }
}
