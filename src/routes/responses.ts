/** An error response of the OpenAPI description: StandardError or DetailedError (spec 2.5). */
export const errorResponse = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, details: { type: 'object' } } },
    },
  },
});

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (DetailedError naming the field)',
  401: 'Authentication failed',
  402: 'Insufficient balance',
  403: 'The key may not call this endpoint',
  404: 'Not found',
  409: "Refused by the resource's state",
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  502: 'Upstream error before the first byte (retryable)',
  503: 'The model is at capacity (retryable)',
  504: 'The upstream did not respond in time',
};

/** The documented error responses of an operation, by status. */
export function errorResponses(...statuses: number[]): Record<number, ReturnType<typeof errorResponse>> {
  const out: Record<number, ReturnType<typeof errorResponse>> = {};
  for (const status of statuses) out[status] = errorResponse(DESCRIPTIONS[status] ?? 'Error');
  return out;
}
