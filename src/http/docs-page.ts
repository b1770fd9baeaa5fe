import { Elysia } from 'elysia';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compressBytes, negotiateCoding, type ContentCoding } from './compression';
import { wholeBody } from './large-body';

const require = createRequire(import.meta.url);
// The UI is the `swagger-ui-dist` package pinned in package.json: served from node_modules,
// so the page works offline and never runs code fetched at an unpinned version from a CDN.
const UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
// The asset URLs carry the UI version, so browsers may keep them for good.
const ASSET_PATH = `/docs/assets/${UI_VERSION}`;

// Each asset is read and compressed once per coding (the bundle is 1.5 MB: compressing it per request would cost ~100 ms of CPU).
const encoded = new Map<string, Uint8Array>();
function assetBytes(file: string, coding: ContentCoding | null): Uint8Array {
  const key = `${coding ?? 'identity'}/${file}`;
  let bytes = encoded.get(key);
  if (!bytes) {
    const raw = readFileSync(join(UI_DIR, file));
    bytes = coding && !file.endsWith('.png') ? compressBytes(raw, coding) : raw;
    encoded.set(key, bytes);
  }
  return bytes;
}

/** The HTML shell: Swagger UI over the published description (`{base}/openapi.json`, whose server URL makes "Try it out" work). */
function page(specUrl: string): string {
  // validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
  const options = JSON.stringify({ url: specUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>svc inference API</title>
    <link rel="icon" type="image/png" href="${ASSET_PATH}/favicon-32x32.png" />
    <link rel="stylesheet" href="${ASSET_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSET_PATH}/swagger-ui-bundle.js"></script>
    <script>window.ui = SwaggerUIBundle(${options});</script>
  </body>
</html>
`;
}

/** GET /docs: the API reference page, with its UI assets served locally under /docs/assets/<version>/. */
export function docsPage(basePath: string) {
  const html = page(`${basePath}/openapi.json`);
  return new Elysia({ name: 'svc.http.docs-page' })
    .get(
      '/docs',
      function docsHtml({ set }) {
        set.headers['content-type'] = 'text/html; charset=utf-8';
        set.headers['cache-control'] = 'no-cache';
        return html;
      },
      { detail: { hide: true } },
    )
    .get(
      `${ASSET_PATH}/:file`,
      function docsAsset({ params, request, set }) {
        const type = ASSETS[params.file];
        if (!type) {
          set.status = 404;
          return { error: 'Not found' };
        }
        set.headers['content-type'] = type;
        set.headers['cache-control'] = 'public, max-age=31536000, immutable';
        set.headers.vary = 'accept-encoding';
        const coding = params.file.endsWith('.png') ? null : negotiateCoding(request.headers.get('accept-encoding'));
        if (coding) set.headers['content-encoding'] = coding;
        return new Response(wholeBody(assetBytes(params.file, coding)));
      },
      { detail: { hide: true } },
    );
}
