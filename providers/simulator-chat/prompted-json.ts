import type { ChatMessage } from '../../src/stream/wire';
import { contentText } from '../../src/pipeline/tokens';
import type { JsonSchema } from './sample';

/** Keywords that make an object read as a JSON Schema rather than an example of the answer. */
const SCHEMA_KEYWORDS = ['$schema', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref'];

/** Whether a parsed object is a JSON Schema (an object schema with properties, or one that says it is). */
function isSchema(value: Record<string, unknown>): boolean {
  return SCHEMA_KEYWORDS.some((k) => k in value) && (typeof value.type === 'string' || '$schema' in value || 'properties' in value);
}

/** The JSON objects written in `text`, in order: each `{` whose balanced text parses as an object. */
export function jsonObjectsIn(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    try {
      const value = JSON.parse(text.slice(start, end + 1)) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        found.push(value as Record<string, unknown>);
        start = end; // nested objects are part of this one
      }
    } catch {
      // Not JSON (prose braces, a template): look further.
    }
  }
  return found;
}

/** The index of the `}` closing the `{` at `start` (strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** The schema of an example value: its keys all required, its values' types, each leaf's example value kept (a model copies the format it is shown). */
export function schemaOfExample(value: unknown): JsonSchema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value.length ? schemaOfExample(value[0]) : {} };
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([k, v]) => [k, schemaOfExample(v)])),
      required: entries.map(([k]) => k),
    };
  }
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number', examples: [value] };
  return { type: typeof value, examples: [value] };
}

/**
 * The shape a `json_object` request's prompt asks for, as a model reads it: the last JSON
 * Schema written in the system or user messages (the AI SDK's generateObject writes one
 * there), else the schema of the last example object (LangChain's jsonMode prompts show
 * one); null when the prompt shows neither.
 */
export function promptedSchema(messages: readonly ChatMessage[]): JsonSchema | null {
  let example: Record<string, unknown> | null = null;
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m]!;
    if (message.role !== 'system' && message.role !== 'user' && message.role !== 'developer') continue;
    const objects = jsonObjectsIn(contentText(message.content ?? ''));
    for (let i = objects.length - 1; i >= 0; i--) {
      if (isSchema(objects[i]!)) return objects[i]!;
      example ??= objects[i]!;
    }
  }
  return example ? schemaOfExample(example) : null;
}
