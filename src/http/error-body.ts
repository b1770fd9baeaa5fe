import { t } from 'elysia';

/** The spec's error envelope, `{ error }` or `{ error, details }`, as routes declare it in OpenAPI. */
export const ErrorBody = t.Object({ error: t.String(), details: t.Optional(t.Object({}, { additionalProperties: true })) });
