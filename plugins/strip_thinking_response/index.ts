import { Type, definePlugin } from '@svc/plugin-sdk';
import { stripThinkResponse, stripThinkStream } from './transform';

export { stripThink, ThinkStripper } from './stripper';
export { stripThinkResponse, stripThinkStream } from './transform';

/**
 * `strip_thinking_response`: removes `<think>...</think>` blocks (legacy tag format) from
 * the answer, streaming or not; tags split across stream chunks are held back and removed.
 */
export const stripThinkingResponse = definePlugin({
  name: 'strip_thinking_response',
  parameters: {
    strip_thinking_response: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Strips <think></think> blocks from the response (models with the legacy tag format). Default false.',
      }),
    ),
  },
  suffixKeys: ['strip_thinking_response'],
  isActive: (ctx) => ctx.params.strip_thinking_response === true,
  transformStream: () => stripThinkStream(),
  transformResponse: (body) => stripThinkResponse(body),
});
