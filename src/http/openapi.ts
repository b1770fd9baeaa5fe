import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { stringify } from 'yaml';
import { declareClientErrors, dropNullable, exampleBodies } from './openapi-fixups';
import { SVC_VERSION } from './version';
import { wholeText } from './large-body';

// The docs UI reads the plugin's own document; the published one is derived from it.
const UI_SPEC_PATH = '/docs/json';

type OpenApiDocument = { openapi: string; paths?: Record<string, unknown>; [key: string]: unknown };

/**
 * Rewrites the generated document the way clients of the reference API expect it: paths
 * relative to the base path with the base path as the server URL, `openapi` first; and
 * lint-clean for OpenAPI 3.1 (no `nullable`); every operation declares the client errors
 * svc answers on it (test/ops/openapi-statuses.test.ts drives them); and request bodies carry
 * the examples the docs page pre-fills (test/ops/openapi-examples.test.ts sends them).
 */
function publishable(doc: OpenApiDocument, basePath: string, exampleModel: (id: string) => string): OpenApiDocument {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    if (path.startsWith(`${basePath}/`)) paths[path.slice(basePath.length)] = item;
  const { openapi: version, info, ...rest } = doc;
  // A deep copy: the plugin keeps serving its own document at /docs/json.
  const out: OpenApiDocument = structuredClone({ openapi: version, info, ...rest, servers: [{ url: basePath }], paths });
  dropNullable(out);
  declareClientErrors(out);
  exampleBodies(out, exampleModel);
  return out;
}

/**
 * The OpenAPI description, generated from the route schemas: JSON at `{base}/openapi.json`,
 * YAML at `{base}/openapi.yaml`, (the page at `/docs` is docs-page.ts). `info.version` is x-svc-version.
 * `handle` is the composed app: the document is rendered once from what the plugin serves.
 * `exampleModel` maps an example's model to one the catalog serves (models/example-model.ts).
 */
export function openApiDocs(
  basePath: string,
  handle: (request: Request) => Promise<Response>,
  exampleModel: (id: string) => string = (id) => id,
) {
  let published: { json: string; yaml: string } | null = null;
  async function render(origin: string) {
    if (!published) {
      const doc = (await (await handle(new Request(new URL(UI_SPEC_PATH, origin)))).json()) as OpenApiDocument;
      const out = publishable(doc, basePath, exampleModel);
      published = { json: JSON.stringify(out), yaml: stringify(out, { aliasDuplicateObjects: false }) };
    }
    return published;
  }
  return new Elysia({ name: 'svc.http.openapi' })
    .use(
      openapi({
        // The page is src/http/docs-page.ts (UI assets from node_modules, not the plugin's CDN page).
        provider: null,
        specPath: UI_SPEC_PATH,
        documentation: {
          info: { title: 'svc inference API', version: SVC_VERSION, description: 'Chat, models, keys, billing and wallet access.' },
          components: {
            securitySchemes: {
              BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
              siwx: { type: 'apiKey', in: 'header', name: 'SIGN-IN-WITH-X' },
            },
          },
          security: [{ BearerAuth: [] }],
        },
        exclude: { paths: [`${basePath}/openapi.json`, `${basePath}/openapi.yaml`] },
      }),
    )
    .get(
      `${basePath}/openapi.yaml`,
      async function openapiYaml({ request }) {
        const { yaml } = await render(request.url);
        return new Response(wholeText(yaml), { headers: { 'content-type': 'application/yaml; charset=utf-8' } });
      },
      { detail: { hide: true } },
    )
    .get(
      `${basePath}/openapi.json`,
      async function openapiJson({ request }) {
        const { json } = await render(request.url);
        return new Response(wholeText(json), { headers: { 'content-type': 'application/json; charset=utf-8' } });
      },
      { detail: { hide: true } },
    );
}
