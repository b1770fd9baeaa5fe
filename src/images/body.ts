import { badRequest, detailsFrom, ServiceError } from '../http/errors';
import { isJsonType, mediaType, unsupportedContentType } from '../http/json-content-type';
import { parseJsonBody } from '../http/json-shape';

/** A body that could not be read; the route's `transform` hook throws its error (Elysia would turn a parser's throw into a generic 400). */
export class UnreadableBody {
  constructor(readonly error: ServiceError) {}
}

/** How a route's multipart fields become typed values. */
export interface FormFields {
  booleans?: readonly string[];
  numbers?: readonly string[];
  /** Fields whose values are always a list (multi-edit's `images`). */
  lists?: readonly string[];
  /** Fields that must be file uploads in multipart (multi-edit takes only files). */
  filesOnly?: readonly string[];
  /** JSON-only routes (generate) answer multipart with 415. */
  jsonOnly?: boolean;
}

const unsupported = (type: string, f: FormFields) =>
  new UnreadableBody(unsupportedContentType(type, f.jsonOnly ? 'application/json' : 'application/json or multipart/form-data'));

/** A multipart value as the JSON schema expects it: "true"/"false" and numbers typed, anything else left for validation to name. */
function typed(key: string, value: FormDataEntryValue, f: FormFields): unknown {
  if (typeof value !== 'string') return value;
  if (f.booleans?.includes(key) && (value === 'true' || value === 'false')) return value === 'true';
  if (f.numbers?.includes(key) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

/** Multipart form data as an object: files stay Files, repeated keys and `key[]` become lists. */
function formObject(form: FormData, f: FormFields): Record<string, unknown> | UnreadableBody {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of form.entries()) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    if (f.filesOnly?.includes(key) && typeof value === 'string')
      return new UnreadableBody(
        badRequest(`${key}: multipart requests must upload files`, [{ path: [key], message: 'Expected a file upload' }]),
      );
    const v = typed(key, value, f);
    const list = f.lists?.includes(key);
    if (key in out) {
      const prev = out[key];
      out[key] = Array.isArray(prev) ? [...prev, v] : [prev, v];
    } else out[key] = list ? [v] : v;
  }
  return out;
}

/**
 * The `parse` hook of the image routes that take uploads: JSON or multipart/form-data by
 * Content-Type; an empty body or any other type is 415 (as in the reference), malformed
 * JSON a 400 naming the body.
 */
export function imageBodyParser(fields: FormFields) {
  return async function parseImageBody({ request, contentType }: { request: Request; contentType: string }): Promise<unknown> {
    const type = mediaType(contentType);
    if (type === 'multipart/form-data' && !fields.jsonOnly) {
      try {
        return formObject(await request.formData(), fields);
      } catch (error) {
        // A body cut by the body limits (src/gates/body-limit.ts) keeps its 408 or 413.
        if (error instanceof ServiceError) return new UnreadableBody(error);
        return new UnreadableBody(badRequest('Malformed multipart body', [{ path: ['body'], message: 'Invalid multipart/form-data' }]));
      }
    }
    const text = await request.text();
    if (text.length === 0) return unsupported('', fields);
    if (!isJsonType(type)) return unsupported(type, fields);
    try {
      return parseJsonBody(text);
    } catch (error) {
      // Past the JSON shape limits (src/http/json-shape.ts): its own 400.
      if (error instanceof ServiceError) return new UnreadableBody(error);
      return new UnreadableBody(
        new ServiceError(400, {
          error: 'Malformed request body: expected valid JSON',
          details: detailsFrom([{ path: ['body'], message: 'Invalid JSON' }]),
        }),
      );
    }
  };
}

/** The `parse` hook of JSON-only image routes: the empty body is 415, anything else is read as JSON. */
export const jsonImageBody = imageBodyParser({ jsonOnly: true });

/** The `transform` hook that pairs with the parsers: throws the error of an unreadable body. */
export function rejectUnreadable({ body }: { body: unknown }): void {
  if (body instanceof UnreadableBody) throw body.error;
}

/**
 * 400 naming each field the (strict) schema does not declare. Elysia drops unknown fields
 * when it normalizes a body; the reference's image schemas refuse them instead.
 */
export function rejectUnknownFields(schema: { properties: Record<string, unknown> }) {
  const known = new Set(Object.keys(schema.properties));
  return function unknownFields({ body }: { body: unknown }): void {
    rejectUnreadable({ body });
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    const unknown = Object.keys(body).filter((k) => !known.has(k));
    // A body may hold up to 100,000 members (src/http/json-shape.ts): name a few, not all.
    const named = unknown.slice(0, 20);
    const more = unknown.length > named.length ? ` and ${unknown.length - named.length} more` : '';
    if (unknown.length)
      throw badRequest(
        `Invalid body parameters: ${named.join(', ')}${more}`,
        named.map((k) => ({ path: [k], message: 'Unknown field' })),
      );
  };
}
