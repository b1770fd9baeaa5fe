import { definePlugin, lastUserText, refuse, replaceLastUserText, Type } from '@svc/plugin-sdk';

/**
 * `shout`: upper-cases the last user message before it goes upstream and ends the answer
 * with the operator's `suffix`. Operators can refuse words (`forbidden`); callers turn it on
 * with `svc_parameters.shout: true` or the model suffix `model:shout=true`.
 */
export const shout = definePlugin({
  name: 'shout',
  parameters: {
    shout: Type.Optional(Type.Boolean({ default: false, description: 'Upper-cases your last message and ends the answer with a suffix.' })),
  },
  suffixKeys: ['shout'],
  options: {
    suffix: Type.String({ default: '!', maxLength: 20 }),
    forbidden: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  },
  isActive: (ctx) => ctx.params.shout === true,
  transformRequest(req, ctx) {
    const text = lastUserText(req);
    const word = ctx.options.forbidden.find((w) => text.toLowerCase().includes(w.toLowerCase()));
    if (word) throw refuse(`"${word}" may not be shouted`);
    replaceLastUserText(req, text.toUpperCase());
  },
  transformResponse(body, ctx) {
    for (const choice of body.choices) if (typeof choice.message.content === 'string') choice.message.content += ctx.options.suffix;
    return body;
  },
  transformStream(ctx) {
    let added = false;
    return {
      // The suffix goes in as one more piece of content, just before the finish chunk.
      transform(chunk, emit) {
        const choice = chunk.choices[0];
        if (choice?.finish_reason && !added) {
          added = true;
          emit({ ...chunk, choices: [{ index: choice.index, delta: { content: ctx.options.suffix }, finish_reason: null }] });
        }
        emit(chunk);
      },
    };
  },
});

export default shout;
