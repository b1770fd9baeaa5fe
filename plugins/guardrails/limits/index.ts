import { Type, definePlugin, refuse, messageText } from '@svc/plugin-sdk';
import { assigned } from '../assign';
import { recordOutcome } from '../shared/outcome';
import { countImages, effectiveLimits, limitBreached, type LimitSet } from './check';

const Limits = Type.Object(
  {
    max_input_tokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Tokens of the messages (o200k count)' })),
    max_messages: Type.Optional(Type.Integer({ minimum: 1 })),
    max_images: Type.Optional(Type.Integer({ minimum: 0 })),
    max_tools: Type.Optional(Type.Integer({ minimum: 0, description: 'Tool (function) definitions' })),
  },
  { additionalProperties: false },
);

// Per-message overhead of the chat format, as the meter counts it.
const PER_MESSAGE = 3;

/**
 * `limits`: caps a request's input tokens, messages, images and tool definitions; the limits
 * are the operator's default, a model's and a key's (the more specific wins, field by field).
 * Runs when assigned, or when the operator set a limit for this model or key.
 */
export const limits = definePlugin({
  name: 'limits',
  options: {
    default: Type.Optional(Limits),
    models: Type.Record(Type.String(), Limits, { default: {}, description: 'Limits per model id' }),
    keys: Type.Record(Type.String(), Limits, { default: {}, description: 'Limits per API key id' }),
  },
  isActive: (ctx) =>
    assigned(ctx, 'limits') ||
    ctx.options.models[ctx.model.id] !== undefined ||
    (ctx.request.keyId !== null && ctx.options.keys[ctx.request.keyId] !== undefined),
  transformRequest: function checkLimits(req, ctx) {
    const o = ctx.options;
    const keyId = ctx.request.keyId;
    const layers: { scope: string; limits: LimitSet | undefined }[] = [
      { scope: 'default', limits: o.default },
      { scope: 'model', limits: o.models[ctx.model.id] },
      { scope: 'key', limits: keyId ? o.keys[keyId] : undefined },
    ];
    const tools = Array.isArray(req.tools) ? req.tools.length : Array.isArray(req.functions) ? req.functions.length : 0;
    const breach = limitBreached(
      {
        messages: req.messages.length,
        images: countImages(req.messages),
        tools,
        inputTokens: () => req.messages.reduce((n, m) => n + PER_MESSAGE + ctx.services.countTokens(messageText(m)), 3),
      },
      effectiveLimits(layers),
    );
    if (breach) {
      recordOutcome(ctx, 'deny', breach.slice(0, breach.indexOf(' ')));
      throw refuse(breach, { code: 'limits' });
    }
    recordOutcome(ctx, 'pass');
  },
});
