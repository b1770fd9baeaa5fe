import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ServiceError } from '../../src/http/errors';
import { baseServices } from '../../src/plugin-host';
import { startTestApp, type TestApp } from '../../test/helpers/app';
import { testContext, testRequest } from '../../test/plugins-e2e/context';
import { characterSlug as plugin } from './index';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const ctxFor = (slug: unknown) => ({ ...testContext({ params: { character_slug: slug } }), services: baseServices(app.deps) });

describe('character_slug', () => {
  test('active only for a non-empty slug; suffix key declared', () => {
    expect(plugin.isActive(ctxFor('alan-watts'))).toBe(true);
    expect(plugin.isActive(ctxFor(undefined))).toBe(false);
    expect(plugin.isActive(ctxFor(''))).toBe(false);
    expect(plugin.suffixKeys).toEqual(['character_slug']);
  });

  test("the character's system prompt goes before the caller's system prompt", async () => {
    const req = testRequest([
      { role: 'system', content: 'Caller rules' },
      { role: 'user', content: 'Hi' },
    ]);
    await plugin.transformRequest!(req, ctxFor('alan-watts'));
    const system = req.messages[0]!.content as string;
    expect(system.startsWith('You are Alan Watts')).toBe(true);
    expect(system.endsWith('\n\nCaller rules')).toBe(true);
    expect(req.messages).toHaveLength(2);
  });

  test('an unknown slug throws a 404 StandardError', async () => {
    const req = testRequest([{ role: 'user', content: 'Hi' }]);
    const error = await Promise.resolve(plugin.transformRequest!(req, ctxFor('nobody'))).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(404);
    expect(error.body).toEqual({ error: 'Character not found' });
  });
});
