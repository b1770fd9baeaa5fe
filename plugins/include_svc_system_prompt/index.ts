import { Type, definePlugin, prependSystemText } from '@svc/plugin-sdk';

/**
 * `include_svc_system_prompt` (default true): the service default system prompt
 * (config `systemPrompt`) comes first, the caller's system prompt after it in the same
 * leading system message; false leaves the caller's messages untouched.
 */
export const includeSvcSystemPrompt = definePlugin({
  name: 'include_svc_system_prompt',
  parameters: {
    include_svc_system_prompt: Type.Optional(
      Type.Boolean({
        default: true,
        description: "Whether the service's default system prompt is included before the caller's. Default true.",
      }),
    ),
  },
  suffixKeys: ['include_svc_system_prompt'],
  isActive: (ctx) => ctx.params.include_svc_system_prompt !== false && ctx.services.config.systemPrompt !== '',
  transformRequest(req, ctx) {
    prependSystemText(req, ctx.services.config.systemPrompt);
  },
});
