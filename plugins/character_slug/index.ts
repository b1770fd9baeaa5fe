import { Type, definePlugin, prependSystemText } from '@svc/plugin-sdk';
import { notFound } from '../../src/http/errors';

/**
 * `character_slug`: the character's system prompt is applied, after the service default
 * prompt and before the caller's own system prompt (one leading system message). An
 * unknown slug is a 404 StandardError, before any upstream call or charge.
 */
export const characterSlug = definePlugin({
  name: 'character_slug',
  parameters: {
    character_slug: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Slug of a public character (its public ID); its system prompt is applied.',
      }),
    ),
  },
  suffixKeys: ['character_slug'],
  isActive: (ctx) => typeof ctx.params.character_slug === 'string' && ctx.params.character_slug !== '',
  async transformRequest(req, ctx) {
    const prompt = await ctx.services.characters.systemPrompt(ctx.params.character_slug ?? '');
    if (prompt === null) throw notFound('Character not found');
    prependSystemText(req, prompt.trim());
  },
});
