import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';

/**
 * Refuses `response_format: json_schema` on a model whose catalog entry does not claim
 * `supportsResponseSchema` (400 naming `response_format.type`): such a model answers free text,
 * and a client that parses the answer against its schema (the OpenAI SDK's `.parse()`,
 * `generateObject`) would fail later on an answer it was charged for. `json_object` and
 * `text` stay open to every model.
 */
export function checkResponseFormat(format: unknown, model: ModelEntry): void {
  if ((format as { type?: unknown } | undefined)?.type !== 'json_schema') return;
  if (model.config.capabilities?.supportsResponseSchema) return;
  const message = `Model "${model.id}" does not support json_schema output; use json_object or a model with supportsResponseSchema`;
  throw badRequest(`response_format.type: ${message}`, [{ path: ['response_format', 'type'], message }]);
}
