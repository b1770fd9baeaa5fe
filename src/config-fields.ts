import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { closest, distance } from 'fastest-levenshtein';

/** One problem in a config value: where (dotted path) and why. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** A field the schema does not declare, and the suggestion for it ('' when nothing is close). */
export interface UnknownField {
  path: string;
  hint: string;
}

type SchemaNode = TSchema & {
  properties?: Record<string, TSchema>;
  patternProperties?: Record<string, TSchema>;
  additionalProperties?: boolean | TSchema;
  items?: TSchema;
  anyOf?: TSchema[];
  const?: unknown;
};

/** ` (did you mean "x"?)` when a candidate is within a typo's reach of `word`, else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  if (candidates.length === 0) return '';
  const best = closest(word, candidates as string[]);
  // Two edits, or a third of the word for long names: close enough to be a typo, not another field.
  const reach = Math.max(2, Math.floor(word.length / 3));
  return distance(word.toLowerCase(), best.toLowerCase()) <= reach ? ` (did you mean "${best}"?)` : '';
}

const dotted = (path: (string | number)[]) => path.join('.') || '(root)';

/**
 * The first field of `value` that `schema` does not declare, with a suggestion. Objects
 * are closed unless they say otherwise (records and `additionalProperties` stay open);
 * a union is searched in the branch the value fits, so `providers.0.baseUrl` is found
 * whatever the provider kind.
 */
export function unknownField(schema: TSchema, value: unknown, path: (string | number)[] = []): UnknownField | null {
  const node = schema as SchemaNode;
  if (node[Kind] === 'Union' && node.anyOf) {
    const fits = node.anyOf.find((branch) => Value.Check(branch, value));
    return fits ? unknownField(fits, value, path) : null;
  }
  if (Array.isArray(value)) {
    if (!node.items) return null;
    for (let i = 0; i < value.length; i++) {
      const issue = unknownField(node.items, value[i], [...path, i]);
      if (issue) return issue;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const entries = Object.entries(value as Record<string, unknown>);
  if (node.patternProperties) {
    const inner = Object.values(node.patternProperties)[0];
    for (const [key, v] of entries) {
      const issue = inner ? unknownField(inner, v, [...path, key]) : null;
      if (issue) return issue;
    }
    return null;
  }
  if (!node.properties) return null;
  const known = Object.keys(node.properties);
  for (const [key, v] of entries) {
    const field = node.properties[key];
    if (field) {
      const issue = unknownField(field, v, [...path, key]);
      if (issue) return issue;
    } else if (node.additionalProperties === undefined || node.additionalProperties === false) {
      return { path: dotted([...path, key]), hint: didYouMean(key, known) };
    }
  }
  return null;
}

/** The first schema violation, worded for a person: a union of literals lists its values and suggests the closest. */
export function firstViolation(schema: TSchema, value: unknown): ConfigIssue | null {
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  const path = dotted(first.path.split('/').filter(Boolean));
  const options = ((first.schema as SchemaNode).anyOf ?? []).map((s) => (s as SchemaNode).const);
  if (options.length > 0 && options.every((o) => typeof o === 'string')) {
    const given = typeof first.value === 'string' ? `"${first.value}"` : JSON.stringify(first.value);
    const hint = typeof first.value === 'string' ? didYouMean(first.value, options as string[]) : '';
    return { path, message: `${given} is not one of: ${options.join(', ')}${hint}` };
  }
  return { path, message: first.message };
}

/** Thrown at start when the config is invalid; its message names the offending field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    /** The dotted path of the offending field, when one is to blame (used to find its line in the file). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * Reads a string where the schema wants a number or a boolean as that type ("8080" -> 8080,
 * "true" -> true): `port: ${PORT}` fills a string from the environment, and it is the
 * schema, not the YAML, that knows the field is numeric. Anything else is left for the
 * validation to refuse ("eighty" stays a string and is named as the bad field).
 */
export function typedStrings(schema: TSchema, value: unknown): unknown {
  const node = schema as SchemaNode;
  const kind = node[Kind];
  if (typeof value === 'string') {
    if ((kind === 'Integer' || kind === 'Number') && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
    if (kind === 'Boolean' && (value === 'true' || value === 'false')) return value === 'true';
    if (kind === 'Union' && node.anyOf && !Value.Check(schema, value))
      for (const branch of node.anyOf) {
        const typed = typedStrings(branch, value);
        if (typed !== value && Value.Check(branch, typed)) return typed;
      }
    return value;
  }
  if (Array.isArray(value)) return node.items ? value.map((v) => typedStrings(node.items!, v)) : value;
  if (value === null || typeof value !== 'object') return value;
  if (kind === 'Union' && node.anyOf) {
    const fits = node.anyOf.find((branch) => Value.Check(branch, typedStrings(branch, value)));
    return fits ? typedStrings(fits, value) : value;
  }
  const inner = node.patternProperties ? Object.values(node.patternProperties)[0] : undefined;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => {
      const field = node.properties?.[key] ?? inner;
      return [key, field ? typedStrings(field, v) : v];
    }),
  );
}

/** Validates `value` against `schema` after defaults: unknown fields first (a typo also looks like a missing field), then values. */
export function validated<S extends TSchema>(schema: S, raw: unknown, source: string, prefix: (string | number)[]): Static<S> {
  const value = Value.Default(schema, typedStrings(schema, Value.Clone(raw ?? {})));
  const unknown = unknownField(schema, value, prefix);
  if (unknown) throw new ConfigError(`${source}: unknown field "${unknown.path}"${unknown.hint}`, unknown.path);
  const bad = firstViolation(schema, value);
  if (bad) throw configError(source, { ...bad, path: [...prefix, bad.path].filter((p) => p !== '(root)').join('.') || '(root)' });
  return value as Static<S>;
}

/** The ConfigError of one bad field. */
export const configError = (source: string, issue: ConfigIssue) =>
  new ConfigError(`${source}: invalid field "${issue.path}": ${issue.message}`, issue.path);

/**
 * Validates one free-form section of the config (`search`, `wallets`, `rateLimits`, ...)
 * against the schema its owner declares, applying defaults; throws ConfigError naming the
 * bad or unknown field as `<section>.<path>`, so a broken section stops the start.
 */
export function parseConfigSection<S extends TSchema>(schema: S, raw: unknown, section: string): Static<S> {
  return validated(schema, raw, 'config', [section]);
}
