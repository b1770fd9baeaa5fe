// The spec wins where it and the reference disagree (DESIGN.md): these are its deltas, applied
// to the reference document before bodies are validated against it.

/**
 * The reference document with the spec's deltas applied: the neutral word `svc` for the one
 * identifier that carries the service's own name (`owned_by` of ModelResponse), the usage
 * entry's `unit` (spec 2.4), and chat `logprobs` in the chat-completions shape (spec 4.8b).
 */
export function applySpecDeltas<T extends Record<string, any>>(doc: T): T {
  const owned = doc.components?.schemas?.ModelResponse?.properties?.owned_by;
  if (owned) owned.enum = ['svc'];
  renameUsageUnits(doc);
  if (doc.paths?.['/chat/completions']) chatLogprobsAsContentList(doc);
  return doc;
}

/**
 * The reference types `choices[].logprobs` of a chat completion as one token object; the
 * spec (4.8b) makes the response the chat-completions interface's, whose `logprobs` is
 * `{ content: [token objects], refusal }`, as the openai SDK reads it. svc follows the spec:
 * the reference's token object becomes the item of `content`.
 */
function chatLogprobsAsContentList(doc: Record<string, any>): void {
  const choice = doc.paths['/chat/completions'].post.responses['200'].content['application/json'].schema.properties.choices.items;
  const token = choice.properties.logprobs;
  choice.properties.logprobs = {
    type: 'object',
    nullable: true,
    properties: { content: { type: 'array', nullable: true, items: { ...token, nullable: false } }, refusal: { nullable: true } },
    required: ['content'],
  };
}

/**
 * Where the spec and the reference disagree the spec wins (DESIGN.md): a billing usage
 * entry's field is `unit` (spec 2.4), the reference's `units`. Every usage entry schema of
 * the document gets the spec's name.
 */
function renameUsageUnits(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const schema = node as { properties?: Record<string, unknown>; required?: string[] };
  if (schema.properties?.units && schema.properties.pricePerUnitUsd) {
    schema.properties.unit = schema.properties.units;
    delete schema.properties.units;
    schema.required = schema.required?.map((r) => (r === 'units' ? 'unit' : r));
  }
  for (const value of Object.values(node)) renameUsageUnits(value);
}
