import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { stringify } from 'yaml';
import { SVC_VERSION } from './version';

/**
 * The OpenAPI description, generated from the route schemas: JSON at `{base}/openapi.json`,
 * YAML at `{base}/openapi.yaml`, and a docs UI at `/docs`. `info.version` is x-svc-version.
 * `handle` is the composed app: the YAML is rendered once from the JSON document it serves.
 */
export function openApiDocs(basePath: string, handle: (request: Request) => Promise<Response>) {
  const jsonPath = `${basePath}/openapi.json`;
  let yamlCache: string | null = null;
  return new Elysia({ name: 'svc.http.openapi' })
    .use(
      openapi({
        path: '/docs',
        specPath: jsonPath,
        documentation: {
          info: { title: 'svc inference API', version: SVC_VERSION, description: 'Chat, models, keys, billing and wallet access.' },
          servers: [{ url: basePath }],
          components: {
            securitySchemes: {
              BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
              siwx: { type: 'apiKey', in: 'header', name: 'SIGN-IN-WITH-X' },
            },
          },
          security: [{ BearerAuth: [] }],
        },
        exclude: { paths: [jsonPath, `${basePath}/openapi.yaml`] },
      }),
    )
    .get(
      `${basePath}/openapi.yaml`,
      async function openapiYaml({ request }) {
        if (!yamlCache) {
          const url = new URL(jsonPath, request.url);
          const json = await (await handle(new Request(url))).json();
          yamlCache = stringify(json, { aliasDuplicateObjects: false });
        }
        return new Response(yamlCache, { headers: { 'content-type': 'application/yaml; charset=utf-8' } });
      },
      { detail: { hide: true } },
    );
}
