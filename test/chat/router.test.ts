import { describe, expect, test } from 'bun:test';
import { createCatalog, type ModelEntry } from '../../src/models/catalog';
import type { ModelConfig } from '../../src/models/schema';
import type { Provider } from '../../providers/types';
import { UpstreamFailure } from '../../providers/errors';
import { createRouter, orderReplicas, type Replica } from '../../providers/router';
import { rejectionOf } from '../helpers/rejection';

const replica = (id: string, weight = 1): Replica => ({
  id,
  provider: {} as Provider,
  upstreamModel: 'm',
  weight,
  timeoutMs: 1000,
  inFlight: 0,
});
const keys = Array.from({ length: 2000 }, (_, i) => `conversation-${i}`);
const firstChoice = (replicas: Replica[]) => new Map(keys.map((k) => [k, orderReplicas(replicas, k, 0)[0]?.id]));

describe('consistent hashing on prompt_cache_key', () => {
  const three = [replica('r1'), replica('r2'), replica('r3')];
  const before = firstChoice(three);

  test('the same key always goes to the same replica, and keys spread over all replicas', () => {
    expect(firstChoice(three)).toEqual(before);
    const counts = new Map<string, number>();
    for (const id of before.values()) counts.set(id as string, (counts.get(id as string) ?? 0) + 1);
    for (const id of ['r1', 'r2', 'r3']) expect(counts.get(id)).toBeGreaterThan(500);
  });

  test('adding a replica moves only keys to the new replica (about 1/4 of them)', () => {
    const after = firstChoice([...three, replica('r4')]);
    let moved = 0;
    for (const k of keys) {
      if (after.get(k) === before.get(k)) continue;
      moved++;
      expect(after.get(k)).toBe('r4');
    }
    expect(moved).toBeGreaterThan(350);
    expect(moved).toBeLessThan(650);
  });

  test("removing a replica moves only that replica's keys", () => {
    const after = firstChoice([three[0] as Replica, three[2] as Replica]);
    for (const k of keys) if (before.get(k) !== 'r2') expect(after.get(k)).toBe(before.get(k) as string);
  });

  test('weights shift the share of keys', () => {
    const weighted = firstChoice([replica('r1', 3), replica('r2', 1)]);
    const r1 = [...weighted.values()].filter((v) => v === 'r1').length;
    expect(r1 / keys.length).toBeGreaterThan(0.68);
    expect(r1 / keys.length).toBeLessThan(0.82);
  });
});

describe('load balancing and retries', () => {
  test('without a key, the least loaded replica per weight goes first', () => {
    const rs = [replica('r1'), replica('r2'), replica('r3')];
    rs[0]!.inFlight = 3;
    rs[1]!.inFlight = 1;
    expect(orderReplicas(rs, undefined, 0)[0]?.id).toBe('r3');
    const seen = new Set([0, 1, 2].map((rot) => orderReplicas([replica('a'), replica('b'), replica('c')], undefined, rot)[0]?.id));
    expect(seen.size).toBe(3);
  });

  function modelWith(providers: string[]): ModelEntry {
    const id = providers.join('+');
    const config = {
      id,
      type: 'text',
      routes: providers.map((provider) => ({ provider, weight: 1 })),
      pricing: {},
      traits: [],
      privacy: 'private',
    } as ModelConfig;
    return createCatalog({ models: [config], simulatorProviders: new Set() }).get(id) as ModelEntry;
  }

  function fakeProvider(id: string, behaviour: () => void): Provider {
    return {
      id,
      simulated: false,
      capabilities: new Set(['chat']),
      async chat() {
        behaviour();
        return { kind: 'json', body: {} as never };
      },
    };
  }

  test('retryable failures move on, others stop; in-flight counts return to zero', async () => {
    const calls: string[] = [];
    const providers: Record<string, Provider> = {
      down: fakeProvider('down', () => {
        calls.push('down');
        throw new UpstreamFailure(502, 'x', true);
      }),
      bad: fakeProvider('bad', () => {
        calls.push('bad');
        throw new UpstreamFailure(400, 'x', false);
      }),
      ok: fakeProvider('ok', () => void calls.push('ok')),
    };
    const router = createRouter((id) => (providers[id] ? { provider: providers[id] as Provider, timeoutMs: 1000 } : undefined));
    const signal = new AbortController().signal;
    const model = modelWith(['down', 'ok']);
    // A cache key pins the order, so the first replica of that order is tried first.
    const key = keys.find((k) => router.order(model, k)[0]?.id === 'down') as string;
    const result = await router.call(model, 'chat', (p, o) => p.chat({ model: 'm', messages: [] }, o), { signal, cacheKey: key });
    expect(result.replica).toBe('ok');
    expect(calls).toEqual(['down', 'ok']);
    result.done();
    expect(router.order(model).every((r) => r.inFlight === 0)).toBe(true);

    calls.length = 0;
    const model2 = modelWith(['bad', 'ok']);
    const key2 = keys.find((k) => router.order(model2, k)[0]?.id === 'bad') as string;
    expect(
      await rejectionOf(router.call(model2, 'chat', (p, o) => p.chat({ model: 'm', messages: [] }, o), { signal, cacheKey: key2 })),
    ).toMatchObject({ status: 400 });
    expect(calls).toEqual(['bad']);
  });
});
