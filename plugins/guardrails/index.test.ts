import { describe, expect, test } from 'bun:test';
import type { PluginContext } from '@svc/plugin-sdk';
import { testContext, testModel } from '../../test/plugins-e2e/context';
import { assigned, guardrails } from './assign';
import { GUARDRAILS } from './index';
import { recordOutcome } from './shared/outcome';

const OPTIONS = { models: { '*': ['limits'], m1: ['pii'] }, keys: { k1: ['webhook'] }, accounts: { a1: ['deny_list'] } };

/** The coordinator's context for one request: model id, key, account and the request's own list. */
function ctxFor(model: string, keyId: string | null, accountId: string | null, requested?: string[]): PluginContext {
  const ctx = testContext({ model: testModel({}, model), params: requested ? { guardrails: requested } : {} });
  return { ...ctx, options: OPTIONS, request: { ...ctx.request, keyId, accountId } };
}

describe('guardrails (assignment)', () => {
  test.each([
    ['m0', null, null, undefined, ['limits']],
    ['m1', null, null, undefined, ['limits', 'pii']],
    ['m1', 'k1', 'a1', undefined, ['limits', 'pii', 'webhook', 'deny_list']],
    ['m0', null, null, ['output_schema'], ['output_schema', 'limits']],
    ['m1', 'k1', null, [], ['limits', 'pii', 'webhook']],
  ] as const)('model %s, key %s, account %s, request %j → %j', (model, key, account, requested, expected) => {
    const ctx = ctxFor(model, key, account, requested ? [...requested] : undefined);
    expect(guardrails.isActive(ctx)).toBe(false);
    expect(ctx.params.guardrails).toEqual([...expected]);
    for (const name of expected) expect(assigned(ctx, name)).toBe(true);
  });

  test('the coordinator runs before every guardrail it resolves for', () => {
    expect(GUARDRAILS[0]).toBe(guardrails);
    expect(GUARDRAILS.map((p) => p.name)).toEqual(['guardrails', 'limits', 'deny_list', 'webhook', 'pii', 'output_schema']);
  });
});

describe('recordOutcome', () => {
  test('the strongest action per guardrail wins; the header lists every guardrail that ran', () => {
    const headers: Record<string, string> = {};
    const base = testContext();
    const as = (plugin: string) => ({ ...base, plugin, setHeader: (n: string, v: string) => void (headers[n] = v) });
    recordOutcome(as('pii'), 'flag');
    recordOutcome(as('pii'), 'redact');
    recordOutcome(as('pii'), 'pass');
    recordOutcome(as('deny_list'), 'pass');
    expect(base.echo.guardrails_outcome).toEqual({ pii: 'redact', deny_list: 'pass' });
    expect(headers['x-svc-guardrails']).toBe('pii=redact, deny_list=pass');
  });
});
