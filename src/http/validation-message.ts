import { ValueErrorType } from '@sinclair/typebox/errors';

/** The parts of a TypeBox ValueError (as Elysia's `error.all` lists them) that a message needs. */
export interface ValidationIssue {
  type?: number;
  path?: string;
  value?: unknown;
  message?: string;
  summary?: string;
  schema?: SchemaLike;
  /** For a union: the errors of each alternative (TypeBox ValueErrorIterators). */
  errors?: Iterable<ValidationIssue>[];
}

/** The JSON Schema members the messages read. */
interface SchemaLike {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaLike[];
  format?: string;
  pattern?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  multipleOf?: number;
}

const FORMATS: Record<string, string> = {
  'date-time': 'an ISO 8601 date-time such as 2026-01-31T12:00:00Z',
  date: 'a date such as 2026-01-31',
  uuid: 'a UUID',
  email: 'an email address',
  uri: 'a URL',
  integer: 'an integer',
  numeric: 'a number',
  boolean: 'true or false',
};

const TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** A literal as a message shows it: bare words bare, other strings in single quotes. */
const show = (v: unknown) => (typeof v !== 'string' ? JSON.stringify(v) : /^[\w.:-]+$/.test(v) ? v : `'${v}'`);

/** What a schema accepts, in words: "an integer", "one of: a, b", "an ISO 8601 date-time ...". */
export function describeSchema(schema: SchemaLike | undefined): string {
  if (!schema) return 'a valid value';
  if (schema.const !== undefined) return show(schema.const);
  if (schema.enum) return `one of: ${schema.enum.map(show).join(', ')}`;
  if (schema.anyOf) {
    const literals = schema.anyOf.every((s) => s.const !== undefined);
    const options = [...new Set(schema.anyOf.map(describeSchema))];
    if (literals) return `one of: ${options.join(', ')}`;
    if (options.length <= 2) return options.join(' or ');
    return `one of: ${options.join('; ')}`;
  }
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  if (schema.description && schema.pattern) return schema.description;
  if (schema.pattern) return `a string matching /${schema.pattern}/`;
  const type = Array.isArray(schema.type) ? schema.type.map((t) => TYPES[t] ?? t).join(' or ') : TYPES[schema.type ?? ''];
  return type ?? 'a valid value';
}

/** The JSON type of a value, as JSON Schema names it. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return Number.isInteger(v) ? 'integer' : typeof v;
}

/**
 * For a union whose value has the type of exactly one alternative (an array given where
 * "a string or an array of at most 4" is allowed), that alternative's own first problem:
 * it says more than the list of alternatives.
 */
function matchingAlternative(issue: ValidationIssue): ValidationIssue | null {
  const alternatives = issue.schema?.anyOf;
  if (!alternatives || !issue.errors || alternatives.length !== issue.errors.length) return null;
  const type = jsonType(issue.value);
  const same = alternatives
    .map((alt, i) => ({ alt, i }))
    .filter(({ alt }) => alt.type === type || (alt.type === 'number' && type === 'integer'));
  if (same.length !== 1) return null;
  for (const nested of issue.errors[same[0]!.i]!) return nested;
  return null;
}

/** The issue to report: a union's matching alternative's own problem (with its deeper path), else the issue itself. */
export function resolveIssue(issue: ValidationIssue): ValidationIssue {
  const alternative = issue.type === ValueErrorType.Union ? matchingAlternative(issue) : null;
  return alternative ? resolveIssue(alternative) : issue;
}

/** The reason part of a field's message: "must be at most 2", "is required", "must be one of: on, off". */
export function describeIssue(issue: ValidationIssue): string {
  const s = issue.schema ?? {};
  switch (issue.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a known field';
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be less than ${s.exclusiveMaximum}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be greater than ${s.exclusiveMinimum}`;
    case ValueErrorType.NumberMultipleOf:
    case ValueErrorType.IntegerMultipleOf:
      return `must be a multiple of ${s.multipleOf}`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters long`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${s.maxItems} item${s.maxItems === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayUniqueItems:
      return 'must not repeat items';
  }
  if (issue.value === undefined) return 'is required';
  return `must be ${describeSchema(s)}`;
}

/** The dotted field path of an issue (`messages.0.role`), empty for the root. */
export function issuePath(issue: ValidationIssue): string[] {
  return (issue.path ?? '').split('/').filter(Boolean);
}
