import { Type, definePlugin } from '@svc/plugin-sdk';
import { stripThinkResponse, stripThinkStream } from '../strip_thinking_response';

/**
 * `disable_thinking`: for models whose catalog capabilities say `supportsDisableThinking`,
 * asks the upstream not to think with `chat_template_kwargs: { enable_thinking: false }`
 * (the switch vLLM and SGLang pass to Qwen3-style chat templates; caller-sent kwargs are
 * kept). `reasoning_effort: 'none'` is deliberately NOT sent: vLLM validates that field as
 * low|medium|high and would reject the request. On every model, think blocks and
 * `reasoning_content` are stripped from the answer, so the caller sees no thinking.
 */
export const disableThinking = definePlugin({
  name: 'disable_thinking',
  parameters: {
    disable_thinking: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'On supporting reasoning models, disables thinking and strips the <think></think> blocks. Default false.',
      }),
    ),
  },
  suffixKeys: ['disable_thinking'],
  isActive: (ctx) => ctx.params.disable_thinking === true,
  transformRequest(req, ctx) {
    if (ctx.model.config.capabilities?.supportsDisableThinking !== true) return;
    const kwargs = req.chat_template_kwargs;
    req.chat_template_kwargs = { ...(kwargs && typeof kwargs === 'object' ? kwargs : {}), enable_thinking: false };
  },
  transformStream: () => stripThinkStream({ dropReasoning: true }),
  transformResponse: (body) => stripThinkResponse(body, { dropReasoning: true }),
});
