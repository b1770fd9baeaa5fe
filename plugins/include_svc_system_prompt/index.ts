import { Type, definePlugin, prependSystemText, type PluginContext } from '@svc/plugin-sdk';

type Params = { include_svc_system_prompt?: boolean };

/**
 * Whether the service prompt goes in front of this request: the request's word when it sends
 * one (body or suffix), else the model's catalog setting `includeSvcSystemPrompt`. The default
 * catalog sets it (the reference includes its prompt by default); an operator's own model does
 * not unless its entry says so, since its chat template was not written for svc's prompt.
 */
function included(ctx: PluginContext<Params>): boolean {
  return ctx.params.include_svc_system_prompt ?? ctx.model.config.includeSvcSystemPrompt === true;
}

/**
 * `include_svc_system_prompt`: the service default system prompt (config `systemPrompt`)
 * comes first, the caller's system prompt after it in the same leading system message; false
 * leaves the caller's messages untouched. Unset, the model's `includeSvcSystemPrompt` decides.
 */
export const includeSvcSystemPrompt = definePlugin({
  name: 'include_svc_system_prompt',
  parameters: {
    include_svc_system_prompt: Type.Optional(
      Type.Boolean({
        description:
          "Whether the service's default system prompt is included before the caller's. Default: the model's setting (true on the default catalog, false on an operator's model unless its entry sets includeSvcSystemPrompt).",
      }),
    ),
  },
  suffixKeys: ['include_svc_system_prompt'],
  isActive(ctx) {
    const on = included(ctx);
    // isActive is the one hook that runs for every request: the echo says what was decided.
    ctx.echo.include_svc_system_prompt = on;
    return on && ctx.services.config.systemPrompt !== '';
  },
  transformRequest(req, ctx) {
    prependSystemText(req, ctx.services.config.systemPrompt);
  },
});
