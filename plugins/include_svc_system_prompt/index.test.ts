import { describe, expect, test } from 'bun:test';
import { testContext, testRequest } from '../../test/plugins-e2e/context';
import { includeSvcSystemPrompt as plugin } from './index';

const config = { systemPrompt: 'DEFAULT PROMPT' };

describe('include_svc_system_prompt', () => {
  test('default true: the service prompt comes first, the caller system prompt after it, in one message', () => {
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
  });

  test('without a caller system prompt a system message is inserted first', () => {
    const ctx = testContext({ config, params: {} });
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

  test('false removes the default (plugin inactive)', () => {
    expect(plugin.isActive(testContext({ config, params: { include_svc_system_prompt: false } }))).toBe(false);
  });

  test('an empty configured prompt makes the plugin inactive', () => {
    expect(plugin.isActive(testContext({ config: { systemPrompt: '' }, params: { include_svc_system_prompt: true } }))).toBe(false);
  });

  test('declares a boolean default true and accepts it as a suffix', () => {
    expect(plugin.parameters.include_svc_system_prompt!.default).toBe(true);
    expect(plugin.suffixKeys).toEqual(['include_svc_system_prompt']);
  });
});
