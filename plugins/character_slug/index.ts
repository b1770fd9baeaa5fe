import { t } from 'elysia';
import { charactersOf } from '../../src/characters';
import { notFound } from '../../src/http/errors';
import { definePlugin } from '../../src/pipeline/plugin';
import { prependSystemText } from '../shared/messages';

/**
 * `character_slug`: the character's system prompt is applied, after the service default
 * prompt and before the caller's own system prompt (one leading system message). An
 * unknown slug is a 404 StandardError, before any upstream call or charge.
 */
export const characterSlug = definePlugin({
  name: 'character_slug',
  parameters: {
    character_slug: t.Optional(
      t.String({ minLength: 1, maxLength: 100, description: 'Slug of a public character (its public ID); its system prompt is applied.' }),
    ),
  },
  suffixKeys: ['character_slug'],
  isActive: (ctx) => typeof ctx.params.character_slug === 'string' && ctx.params.character_slug !== '',
  async transformRequest(req, ctx) {
    const characters = ctx.services.characters;
    await characters.ready;
    const prompt = await characters.store.systemPrompt(ctx.params.character_slug ?? '');
    if (prompt === null) throw notFound('Character not found');
    prependSystemText(req, prompt.trim());
  },
});
