import { Type, definePlugin, type PluginContext } from '@svc/plugin-sdk';

/** The built-in guardrails, by the name a request or the operator gives them. */
export const GUARDRAIL_NAMES = ['pii', 'deny_list', 'limits', 'output_schema', 'webhook'] as const;
/** One built-in guardrail's name. */
export type GuardrailName = (typeof GUARDRAIL_NAMES)[number];

const Names = Type.Array(Type.Union(GUARDRAIL_NAMES.map((n) => Type.Literal(n))), { uniqueItems: true });

/**
 * `guardrails`: decides which guardrails run for a request: the operator's for the model, the
 * key and the account (config, and for the key and the account the ADMIN API's), plus any the request adds in `svc_parameters.guardrails` (a
 * request can add, never remove). It runs first and writes the effective list back into
 * `params.guardrails`, which each guardrail's `isActive` reads; it does nothing else.
 */
export const guardrails = definePlugin({
  name: 'guardrails',
  parameters: {
    guardrails: Type.Optional(
      Type.Array(Type.Union(GUARDRAIL_NAMES.map((n) => Type.Literal(n))), {
        default: [],
        uniqueItems: true,
        description: `Guardrails to run on this request besides the operator's (${GUARDRAIL_NAMES.join(', ')}); a request can add, never remove.`,
      }),
    ),
  },
  options: {
    models: Type.Record(Type.String(), Names, { default: {}, description: 'Guardrails always run for a model id ("*": every model)' }),
    keys: Type.Record(Type.String(), Names, { default: {}, description: 'Guardrails always run for an API key id' }),
    accounts: Type.Record(Type.String(), Names, { default: {}, description: 'Guardrails always run for an account id' }),
  },
  isActive: function resolveGuardrails(ctx) {
    const o = ctx.options;
    const wanted = new Set<GuardrailName>(ctx.params.guardrails ?? []);
    const { keyId, accountId, assignedGuardrails } = ctx.request;
    for (const list of [
      o.models['*'],
      o.models[ctx.model.id],
      keyId ? o.keys[keyId] : undefined,
      accountId ? o.accounts[accountId] : undefined,
      // Names are checked when the ADMIN API stores them; one no longer built in simply matches nothing.
      assignedGuardrails.key as GuardrailName[],
      assignedGuardrails.account as GuardrailName[],
    ])
      if (list) for (const n of list) wanted.add(n);
    ctx.params.guardrails = [...wanted];
    return false;
  },
});

/** Whether guardrail `name` runs for this request (after `guardrails` resolved the list). */
export function assigned(ctx: PluginContext, name: string): boolean {
  const list = ctx.params.guardrails;
  return Array.isArray(list) && list.includes(name);
}
