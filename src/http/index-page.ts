import { Elysia } from 'elysia';

/**
 * `GET /`: where a newcomer who opens the server's address lands. JSON (svc is an API), with
 * the links a person needs next: the API's base, its docs and spec, the console, health.
 */
export function indexRoute(basePath: string) {
  const links = {
    api: basePath,
    models: `${basePath}/models?type=all`,
    docs: '/docs',
    openapi: `${basePath}/openapi.yaml`,
    console: '/console',
    health: '/health',
  };
  return new Elysia({ name: 'svc.http.index' }).get(
    '/',
    function index({ set }) {
      set.headers['cache-control'] = 'no-store';
      return {
        name: 'svc',
        description:
          'An OpenAI-compatible inference API. Send `Authorization: Bearer <API key>` to the API; the docs page tries it in the browser.',
        links,
      };
    },
    { detail: { hide: true } },
  );
}
