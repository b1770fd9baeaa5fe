import { describe, expect, test } from 'bun:test';
import { startTestApp } from '../helpers/app';

const start = (providers: Record<string, unknown>[], models: Record<string, unknown>[]) => startTestApp({ config: { providers, models } });
const text = (provider: string) => ({ id: 't', type: 'text', routes: [{ provider }], pricing: { input: '1', output: '1' } });

describe('native providers in the config', () => {
  test('a model whose type needs a capability the provider lacks is a configuration error at start', async () => {
    const embedding = { id: 'e', type: 'embedding', routes: [{ provider: 'claude' }], pricing: { input: '1' } };
    await expect(start([{ id: 'claude', kind: 'anthropic' }], [embedding])).rejects.toThrow(
      'model "e" (embedding) routes to provider "claude", which does not serve "embed" (its capabilities: chat)',
    );
  });

  test('an option of the wrong type is a configuration error naming it', async () => {
    await expect(start([{ id: 'claude', kind: 'anthropic', options: { version: 2026 } }], [text('claude')])).rejects.toThrow(
      'providers: "claude" (anthropic) option "version" must be a string',
    );
    await expect(start([{ id: 'g', kind: 'gemini', options: { maxTokens: -1 } }], [text('g')])).rejects.toThrow(
      'providers: "g" (gemini) option "maxTokens" must be a positive integer',
    );
  });
});
