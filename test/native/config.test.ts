import { describe, expect, test } from 'bun:test';
import { createCatalog } from '../../src/models/catalog';
import type { ProviderConfig } from '../../src/models/provider-config';
import { capabilityMismatch } from '../../providers/model-capability';
import { createProviderRegistry } from '../../providers/registry';
import { createLogger } from '../../src/log';

// What src/boot.ts does with the providers and models of the config at start; its errors stop the service.
const provider = (p: Partial<ProviderConfig> & Pick<ProviderConfig, 'id' | 'kind'>): ProviderConfig => ({
  timeoutMs: 1000,
  options: {},
  ...p,
});
const registry = (providers: ProviderConfig[]) =>
  createProviderRegistry(providers, {
    fetch,
    log: createLogger('silent'),
    catalog: { isReasoning: () => false, dimensionsOf: () => undefined, capabilitiesOf: () => ({}) },
  });

describe('native providers in the config', () => {
  test('a model whose type needs a capability the provider lacks is a configuration error at start', () => {
    const models = createCatalog({
      models: [{ id: 'e', type: 'embedding', routes: [{ provider: 'claude', weight: 1 }], pricing: { input: '1' }, traits: [] }] as never,
      simulatorProviders: new Set(),
    });
    expect(capabilityMismatch(models.list(), registry([provider({ id: 'claude', kind: 'anthropic' })]))).toBe(
      'model "e" (embedding) routes to provider "claude", which does not serve "embed" (its capabilities: chat)',
    );
    expect(capabilityMismatch(models.list(), registry([provider({ id: 'claude', kind: 'gemini' })]))).toBeNull();
  });

  test('an option of the wrong type is a configuration error naming it', () => {
    expect(() => registry([provider({ id: 'claude', kind: 'anthropic', options: { version: 2026 } })])).toThrow(
      'providers: "claude" (anthropic) option "version" must be a string',
    );
    expect(() => registry([provider({ id: 'g', kind: 'gemini', options: { maxTokens: -1 } })])).toThrow(
      'providers: "g" (gemini) option "maxTokens" must be a positive integer',
    );
  });
});
