import { Kind, type TSchema } from '@sinclair/typebox';
import { ConfigSchema, ENV_KEYS } from './config';
import { CONFIG_SECTION_SCHEMAS } from './config-sections';

type Node = TSchema & {
  properties?: Record<string, TSchema>;
  required?: string[];
  items?: TSchema;
  anyOf?: TSchema[];
  const?: unknown;
  default?: unknown;
  description?: string;
};

/** The markers around the generated table in docs/configuration.md. */
export const REFERENCE_MARKERS = ['<!-- config-reference:start (npm run docs:config) -->', '<!-- config-reference:end -->'] as const;

/** A schema's type as a reader writes it: `integer`, `"a" | "b"`, `array of object`, ... */
function typeOf(node: Node): string {
  if (node.anyOf) return node.anyOf.map((n) => typeOf(n as Node)).join(' \\| ');
  if (node.const !== undefined) return JSON.stringify(node.const);
  switch (node[Kind]) {
    case 'Array':
      return `array of ${typeOf(node.items as Node)}`;
    case 'Record':
      return 'map';
    default:
      return String(node[Kind]).toLowerCase();
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One table row per field of `node` (objects and arrays of objects are walked), under `path`. */
function rows(node: Node, path: string, env: Map<string, string>, out: string[]): void {
  const object = node[Kind] === 'Array' ? (node.items as Node) : node;
  if (object[Kind] !== 'Object' || !object.properties) return;
  const prefix = node[Kind] === 'Array' ? `${path}[].` : path ? `${path}.` : '';
  for (const [name, child] of Object.entries(object.properties) as [string, Node][]) {
    const field = `${prefix}${name}`;
    const fallback = child.default === undefined ? '' : `\`${JSON.stringify(child.default)}\``;
    const variable = env.get(field) ? `\`${env.get(field)}\`` : '';
    out.push(`| \`${field}\` | ${cell(typeOf(child))} | ${cell(fallback)} | ${variable} | ${cell(child.description ?? '')} |`);
    rows(child, field, env, out);
  }
}

/**
 * The configuration reference, generated from the TypeBox schemas (the top level and each
 * section's owner's), so docs/configuration.md cannot drift from what svc accepts: every
 * field with its type, default, environment variable and description.
 */
export function configReference(): string {
  const env = new Map(Object.entries(ENV_KEYS).map(([name, { key }]) => [key as string, name]));
  env.set('billing.journalDir', 'SVC_LEDGER_JOURNAL_DIR');
  const out = ['| Field | Type | Default | Env var | Meaning |', '|---|---|---|---|---|'];
  rows(ConfigSchema as Node, '', env, out);
  for (const [section, schema] of Object.entries(CONFIG_SECTION_SCHEMAS)) rows(schema as Node, section, env, out);
  return `${REFERENCE_MARKERS[0]}\n${out.join('\n')}\n${REFERENCE_MARKERS[1]}`;
}
