import { Elysia } from 'elysia';
import { badRequest } from '../http/errors';
import { findString } from '../http/string-walk';

const hasNul = (text: string) => text.includes('\u0000');
const nulShown = (name: string) => name.replaceAll('\u0000', '\\u0000');

/** The path of the first string (or key) holding a NUL character in a parsed value, or null. */
export function findNul(value: unknown, path: (string | number)[]): (string | number)[] | null {
  return findString(value, path, hasNul, nulShown);
}

/**
 * The `refuseNul` route option (composed by `auth`, so every account route takes it): a NUL
 * character (`\u0000`) in the body, query or path is a 400 that names the field. Postgres
 * cannot store it in text, and the failed insert was a 500 (and a log line with the
 * statement's parameters). Inference routes do not take it: their text goes to the
 * upstream and is never stored, and a large prompt is not walked.
 */
export const nulGuardGate = new Elysia({ name: 'svc.gate.nul-guard' }).macro({
  refuseNul: {
    transform({ body, query, params }) {
      const hit = findNul(params, []) ?? findNul(query, []) ?? findNul(body, []);
      if (!hit) return;
      const field = hit.join('.') || 'body';
      throw badRequest(`Invalid request parameters: ${field} must not contain NUL (\\u0000) characters`, [
        { path: hit, message: 'NUL (\\u0000) characters are not allowed' },
      ]);
    },
  },
});
