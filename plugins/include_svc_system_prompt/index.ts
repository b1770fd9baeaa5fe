import { t } from 'elysia';
import type { RequestPlugin } from '../../src/pipeline/types';
import { prependSystemText } from '../shared/messages';

/**
 * `include_svc_system_prompt` (default true): the service default system prompt
 * (config `systemPrompt`) comes first, the caller's system prompt after it in the same
 * leading system message; false leaves the caller's messages untouched.
 */
export const includeSvcSystemPrompt: RequestPlugin = {
  name: 'include_svc_system_prompt',
  parameters: {
    include_svc_system_prompt: t.Optional(
      t.Boolean({
        default: true,
        description: "Whether the service's default system prompt is included before the caller's. Default true.",
      }),
    ),
  },
  suffixKeys: ['include_svc_system_prompt'],
  isActive: (ctx) => ctx.params.include_svc_system_prompt !== false && ctx.deps.config.systemPrompt !== '',
  transformRequest(req, ctx) {
    prependSystemText(req, ctx.deps.config.systemPrompt);
  },
};
