import { describe, expect, test } from 'bun:test';
import { testContext, testModel, testRequest } from '../../test/plugins-e2e/context';
import { includeSvcSystemPrompt as plugin } from './index';

const config = { systemPrompt: 'DEFAULT PROMPT' };
/** A catalog model whose entry sets includeSvcSystemPrompt (as the default catalog's text models do). */
const prompted = () => {
  const model = testModel();
  model.config.includeSvcSystemPrompt = true;
  return model;
};

describe('include_svc_system_prompt', () => {
  test('true: the service prompt comes first, the caller system prompt after it, in one message', () => {
    const ctx = testContext({ config, params: { include_svc_system_prompt: true } });
    const req = testRequest([
      { role: 'system', content: 'Caller prompt' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(plugin.isActive(ctx)).toBe(true);
    plugin.transformRequest!(req, ctx);
    expect(req.messages).toEqual([
      { role: 'system', content: 'DEFAULT PROMPT\n\nCaller prompt' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(ctx.echo.include_svc_system_prompt).toBe(true);
  });

  test("unset: the model's includeSvcSystemPrompt decides, off when its entry does not set it", () => {
    const plain = testContext({ config, params: {} });
    expect(plugin.isActive(plain)).toBe(false);
    expect(plain.echo.include_svc_system_prompt).toBe(false);
    const on = testContext({ config, params: {}, model: prompted() });
    expect(plugin.isActive(on)).toBe(true);
    expect(on.echo.include_svc_system_prompt).toBe(true);
  });

  test('without a caller system prompt a system message is inserted first', () => {
    const ctx = testContext({ config, params: {}, model: prompted() });
    const req = testRequest([{ role: 'user', content: 'Hi' }]);
    expect(plugin.isActive(ctx)).toBe(true);
    plugin.transformRequest!(req, ctx);
    expect(req.messages[0]).toEqual({ role: 'system', content: 'DEFAULT PROMPT' });
    expect(req.messages).toHaveLength(2);
  });

  test('array system content (cache_control parts) keeps its parts after a text part', () => {
    const ctx = testContext({ config });
    const part = { type: 'text', text: 'Cached', cache_control: { type: 'ephemeral' as const } };
    const req = testRequest([
      { role: 'system', content: [part] },
      { role: 'user', content: 'Hi' },
    ]);
    plugin.transformRequest!(req, ctx);
    expect(req.messages[0]!.content).toEqual([{ type: 'text', text: 'DEFAULT PROMPT' }, part]);
  });

  test('false removes the default even on a model that sets it (plugin inactive, echoed false)', () => {
    const ctx = testContext({ config, params: { include_svc_system_prompt: false }, model: prompted() });
    expect(plugin.isActive(ctx)).toBe(false);
    expect(ctx.echo.include_svc_system_prompt).toBe(false);
  });

  test('an empty configured prompt makes the plugin inactive', () => {
    expect(plugin.isActive(testContext({ config: { systemPrompt: '' }, params: { include_svc_system_prompt: true } }))).toBe(false);
  });

  test('declares a boolean without a fixed default (the model decides) and accepts it as a suffix', () => {
    expect(plugin.parameters.include_svc_system_prompt!.type).toBe('boolean');
    expect(plugin.parameters.include_svc_system_prompt!.default).toBeUndefined();
    expect(plugin.suffixKeys).toEqual(['include_svc_system_prompt']);
  });
});
