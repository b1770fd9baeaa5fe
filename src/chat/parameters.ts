import type { TProperties, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../http/errors';
import type { AnyPlugin } from '@svc/plugin-sdk';

/** Echo fields the reference always returns, with their defaults (API-NOTES section 1). */
const ECHO_DEFAULTS: Record<string, unknown> = {
  enable_e2ee: true,
  enable_web_search: 'off',
  enable_web_citations: false,
  enable_web_scraping: false,
  include_svc_system_prompt: true,
  include_search_results_in_stream: false,
  return_search_results_as_documents: false,
  strip_thinking_response: false,
  disable_thinking: false,
};
/** Parameters the reference does not echo. */
const NOT_ECHOED = new Set(['enable_x_search']);

/** The composed `svc_parameters`: defaults, body/suffix merging and the response echo. */
export interface ParameterSet {
  properties: TProperties;
  /** Merges body values and the model suffix (suffix wins) over the defaults. */
  resolve(body: Record<string, unknown> | undefined, suffix: string | null): Record<string, unknown>;
  /** The response's `svc_parameters` echo. */
  echo(params: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown>;
}

/** First validation message of `value` against `schema`, or null when it is valid. */
function problem(schema: TSchema, value: unknown): string | null {
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  const anyOf = (first.schema as { anyOf?: { const?: unknown }[] }).anyOf;
  const options = anyOf?.map((s) => s.const).filter((v) => v !== undefined);
  return options?.length ? `Expected one of: ${options.join(', ')}` : first.message;
}

/**
 * Parses a model suffix `opt=v&opt2=w` (URL-decoded). Only keys a plugin lists in
 * `suffixKeys` are taken; other keys are ignored, as the reference does. A malformed pair or
 * a value that fails the plugin's schema is a 400 naming the suffix option.
 */
export function parseSuffix(suffix: string, schemas: Map<string, TSchema>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fail = (option: string, message: string) =>
    badRequest(`Invalid model suffix option "${option}": ${message}`, [
      { path: ['model'], message: `suffix option "${option}": ${message}` },
    ]);
  for (const pair of suffix.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw fail(pair, 'expected <option>=<value>');
    let key: string;
    let raw: string;
    try {
      key = decodeURIComponent(pair.slice(0, eq));
      raw = decodeURIComponent(pair.slice(eq + 1));
    } catch {
      throw fail(pair, 'not valid URL encoding');
    }
    const schema = schemas.get(key);
    if (!schema) continue;
    const value = Value.Convert(schema, raw);
    const why = problem(schema, value);
    if (why) throw fail(key, why);
    out[key] = value;
  }
  return out;
}

/** Composes the plugins' parameters into one set. */
export function composeParameters(plugins: readonly AnyPlugin[]): ParameterSet {
  const properties: TProperties = {};
  const suffixSchemas = new Map<string, TSchema>();
  for (const p of plugins) {
    for (const [key, schema] of Object.entries(p.parameters ?? {})) {
      if (key in properties) throw new Error(`plugins: svc_parameters.${key} is declared by two plugins`);
      properties[key] = schema;
    }
    for (const key of p.suffixKeys ?? []) {
      const schema = p.parameters?.[key];
      if (!schema) throw new Error(`plugins: ${p.name} lists suffix key "${key}" but declares no such parameter`);
      suffixSchemas.set(key, schema);
    }
  }
  const defaults: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) if (schema.default !== undefined) defaults[key] = schema.default;
  // The reference always echoes include_svc_system_prompt (true by default); with its plugin
  // turned off by the operator no prompt is included, and the echo says so.
  const echoDefaults = 'include_svc_system_prompt' in properties ? ECHO_DEFAULTS : { ...ECHO_DEFAULTS, include_svc_system_prompt: false };

  return {
    properties,
    resolve(body, suffix) {
      const params: Record<string, unknown> = { ...defaults };
      if (body) for (const key in body) if (key in properties && body[key] !== undefined) params[key] = body[key];
      // Echo-only: no plugin serves end-to-end encryption, but a caller's explicit value is
      // what the echo must show (the reference's default, true, only when none was sent).
      if (typeof body?.enable_e2ee === 'boolean' && !('enable_e2ee' in properties)) params.enable_e2ee = body.enable_e2ee;
      if (suffix) Object.assign(params, parseSuffix(suffix, suffixSchemas));
      return params;
    },
    echo(params, extra) {
      const out: Record<string, unknown> = { ...echoDefaults };
      for (const key in params) if (!NOT_ECHOED.has(key) && params[key] !== undefined) out[key] = params[key];
      return Object.assign(out, extra);
    },
  };
}
