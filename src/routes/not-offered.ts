import { Elysia } from 'elysia';
import { notFound } from '../http/errors';

/** OpenAI paths clients try that the reference API does not have, and what to use instead. */
const NOT_OFFERED: Record<string, string> = {
  '/completions': 'svc does not offer the legacy text-completions API (POST /completions); use POST {base}/chat/completions',
  '/moderations': 'svc does not offer a moderation endpoint (POST /moderations); content policy is applied by the models themselves',
};

/**
 * 404s for OpenAI paths outside the reference API (`/completions`, `/moderations`), whose
 * message says so and names the endpoint to use, instead of the generic "Not found" a client
 * library shows as if the base URL were wrong.
 */
export function notOfferedRoutes(basePath: string) {
  const app = new Elysia({ name: 'svc.routes.not-offered' });
  for (const [path, message] of Object.entries(NOT_OFFERED)) {
    const text = message.replace('{base}', basePath);
    app.all(
      path,
      function notOffered() {
        throw notFound(text);
      },
      { detail: { hide: true } },
    );
  }
  return app;
}
