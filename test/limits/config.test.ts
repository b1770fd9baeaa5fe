import { describe, expect, test } from 'bun:test';
import { parseConfig } from '../../src/config';
import { createDeps } from '../../src/boot';
import { parseRateLimitsConfig, tierTables } from '../../src/limits/config';
import { modelLimits, STANDARD_LIMITS } from '../../src/limits/tables';
import type { ModelEntry } from '../../src/models/catalog';
import { EMBEDDED } from '../helpers/backends';
import { rejectionOf } from '../helpers/rejection';

const model = (type: string, tier = 'S', id = 'm') => ({ id, type, tier }) as unknown as ModelEntry;

describe('rate limit tables and config', () => {
  test('spec 8.1 defaults, partner falling back to standard where it has no value', () => {
    const { standard, partner } = tierTables(parseRateLimitsConfig(undefined));
    expect(standard).toEqual(STANDARD_LIMITS);
    expect(partner.text).toEqual({
      XS: { rpm: 500, tpm: 2_000_000 },
      S: { rpm: 150, tpm: 1_500_000 },
      M: { rpm: 100, tpm: 1_500_000 },
      L: { rpm: 60, tpm: 1_000_000 },
    });
    expect([partner.image, partner.audio, partner.embedding, partner.videoQueue, partner.videoRetrieve]).toEqual([60, 120, 500, 40, 120]);
  });

  test('model types map to their row; video picks queue or retrieve', () => {
    const t = STANDARD_LIMITS;
    expect(modelLimits(t, undefined, model('text', 'L'))).toEqual({ rpm: 20, tpm: 500_000 });
    expect(['image', 'upscale', 'inpaint'].map((k) => modelLimits(t, undefined, model(k)).rpm)).toEqual([20, 20, 20]);
    expect(['audio', 'tts', 'asr', 'music'].map((k) => modelLimits(t, undefined, model(k)))).toEqual(Array(4).fill({ rpm: 60, tpm: null }));
    expect(modelLimits(t, undefined, model('embedding')).rpm).toBe(500);
    expect(modelLimits(t, undefined, model('video')).rpm).toBe(40);
    expect(modelLimits(t, undefined, model('video'), 'retrieve').rpm).toBe(120);
    expect(modelLimits(t, { m: { tpm: 7 } }, model('text', 'XS'))).toEqual({ rpm: 500, tpm: 7 });
    expect(modelLimits(t, { m: { rpm: 3, tpm: 7 } }, model('image'))).toEqual({ rpm: 3, tpm: null });
  });

  test('config patches the standard table, and partner inherits what it does not set', () => {
    const { standard, partner } = tierTables(
      parseRateLimitsConfig({ standard: { text: { M: { rpm: 5 } }, videoQueue: 4 }, partner: { image: 99 } }),
    );
    expect(standard.text.M).toEqual({ rpm: 5, tpm: 750_000 });
    expect(partner.text.M).toEqual({ rpm: 100, tpm: 1_500_000 });
    expect([partner.videoQueue, partner.image]).toEqual([4, 99]);
  });

  test('a bad rateLimits section stops the start, naming the field', async () => {
    expect(() => parseRateLimitsConfig({ standard: { text: { XL: { rpm: 1 } } } })).toThrow(/rateLimits\.standard\.text/);
    expect(() => parseRateLimitsConfig({ partner: { image: -1 } })).toThrow(/"rateLimits\.partner\.image"/);
    expect(() => parseRateLimitsConfig({ logFlushMs: 'soon' })).toThrow(/"rateLimits\.logFlushMs"/);
    const config = parseConfig({ logLevel: 'silent', rateLimits: { standard: { audio: 'many' } } });
    const storage = await EMBEDDED.storage();
    expect((await rejectionOf(createDeps(config, { storage, kv: await EMBEDDED.kv() }))).message).toMatch(/"rateLimits\.standard\.audio"/);
    await storage.close();
  });
});
