/** A failed API call, with the server's own `error` message. */
export class ApiCallError extends Error {
  override name = 'ApiCallError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the svc API at `baseUrl` with an ADMIN key; returns the parsed JSON body or throws ApiCallError. */
export async function callApi(
  target: { url: string; key: string },
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new ApiCallError(0, `cannot reach the svc API at ${target.url}: ${(error as Error).message}`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): shown as it is.
  }
  if (!response.ok) {
    const message = (parsed as { error?: string })?.error ?? text.slice(0, 200);
    const ray = response.headers.get('cf-ray');
    // A URL without the base path reaches svc (CF-RAY) but no route: say what was probably meant.
    const hint =
      response.status === 404 && ray && !/\/api\/v\d+\/?$/.test(target.url)
        ? `; the API lives under the base path (default /api/v1): try --url ${target.url.replace(/\/$/, '')}/api/v1`
        : '';
    throw new ApiCallError(response.status, `${method} ${path}: ${response.status} ${message}${ray ? ` (request ${ray})` : ''}${hint}`);
  }
  return parsed;
}
