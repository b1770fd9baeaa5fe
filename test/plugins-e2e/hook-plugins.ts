import { definePlugin, refuse, Type, type ChatCompletion, type SettledOutcome } from '@svc/plugin-sdk';

/** The completion the `answerer` plugin gives instead of the upstream. */
export const PLUGIN_COMPLETION: ChatCompletion = {
  id: 'chatcmpl-plugin',
  object: 'chat.completion',
  created: 1,
  model: 'ignored',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'An answer from the plugin itself.' }, finish_reason: 'stop', logprobs: null },
  ],
  usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
};

/** Answers from `respond` (no upstream call) at its `price` option, and says so in a header. */
export const answerer = definePlugin({
  name: 'answerer',
  parameters: { h_answer: Type.Optional(Type.Boolean({ default: false })) },
  suffixKeys: ['h_answer'],
  options: { price: Type.Integer({ minimum: 0, default: 500 }) },
  isActive: (ctx) => ctx.params.h_answer === true,
  respond(_req, ctx) {
    ctx.setHeader('x-test-answer', 'plugin');
    return { completion: PLUGIN_COMPLETION, charges: [{ sku: 'answerer-hit', units: 1, unitPriceMicros: ctx.options.price }] };
  },
});

/** Refuses at the stage `h_refuse` names. */
export const guard = definePlugin({
  name: 'guard',
  parameters: {
    h_refuse: Type.Optional(
      Type.Union([Type.Literal('request'), Type.Literal('respond'), Type.Literal('response'), Type.Literal('stream')]),
    ),
  },
  isActive: (ctx) => ctx.params.h_refuse !== undefined,
  transformRequest(_req, ctx) {
    if (ctx.params.h_refuse === 'request') throw refuse('the prompt names a forbidden topic');
  },
  respond(_req, ctx) {
    if (ctx.params.h_refuse === 'respond') throw refuse('not for this key', { status: 403, code: 'guard_denied' });
    return null;
  },
  transformResponse(body, ctx) {
    if (ctx.params.h_refuse === 'response') throw refuse('the answer leaks a secret');
    return body;
  },
  transformStream(ctx) {
    let seen = 0;
    return {
      transform(chunk, emit) {
        if (ctx.params.h_refuse === 'stream' && chunk.choices[0]?.delta.content && ++seen === 2) throw refuse('the answer turned unsafe');
        emit(chunk);
      },
    };
  },
});

/** Fails its request: a throw, or a hook slower than its time budget. */
export const failing = definePlugin({
  name: 'failing',
  parameters: { h_fail: Type.Optional(Type.Union([Type.Literal('throw'), Type.Literal('slow'), Type.Literal('settled')])) },
  isActive: (ctx) => ctx.params.h_fail !== undefined,
  async transformRequest(_req, ctx) {
    if (ctx.params.h_fail === 'throw') throw new Error('boom');
    if (ctx.params.h_fail === 'slow') await Bun.sleep(2_000);
  },
  onSettled() {
    throw new Error('observer boom');
  },
});

/** What the `observer` plugin saw after settlement, in order. */
export const observed: SettledOutcome[] = [];

/** Records every outcome, and counts requests in its store. */
export const observer = definePlugin({
  name: 'observer',
  parameters: { h_observe: Type.Optional(Type.Boolean({ default: false })) },
  isActive: (ctx) => ctx.params.h_observe === true,
  async onSettled(outcome, ctx) {
    await ctx.store.incrBy('requests', 1);
    ctx.services.metrics.counter('outcomes', 'Outcomes seen by the observer', ['complete']).inc({ complete: String(outcome.complete) });
    ctx.services.metrics.histogram('total_seconds', 'Request time seen by the observer').observe({}, outcome.timings.totalMs / 1000);
    observed.push(outcome);
  },
});

/** Waits until the observer has seen `n` outcomes (onSettled runs after the answer). */
export async function observedCount(n: number): Promise<SettledOutcome[]> {
  for (let i = 0; i < 200 && observed.length < n; i++) await Bun.sleep(10);
  return observed;
}
