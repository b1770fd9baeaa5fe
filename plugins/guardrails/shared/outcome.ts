import type { PluginContext } from '@svc/plugin-sdk';

/** What a guardrail did in one request: `pass`, or the action it took (`retry`: it asked the upstream again). */
export type GuardAction = 'pass' | 'redact' | 'flag' | 'retry' | 'deny' | 'error';

const ORDER: Record<GuardAction, number> = { pass: 0, error: 1, flag: 2, retry: 3, redact: 4, deny: 5 };

/** The guardrails of one request and what each did, as echoed in `svc_parameters.guardrails_outcome`. */
type Outcome = Record<string, GuardAction>;

/**
 * Records what guardrail `ctx.plugin` did (the strongest action wins: deny > redact > retry > flag),
 * in the `svc_parameters` echo, the `x-svc-guardrails` header (`pii=redact, deny_list=pass`), the ledger row's notes
 * and the guardrail's `svc_plugin_<name>_actions_total{action,detail}` counter. `detail` labels the counter (a PII
 * class, a rule's action), never user text.
 */
export function recordOutcome(
  ctx: Pick<PluginContext, 'plugin' | 'echo' | 'notes' | 'setHeader' | 'services'>,
  action: GuardAction,
  detail = '',
): void {
  const outcome = (ctx.echo.guardrails_outcome ??= {}) as Outcome;
  const before = outcome[ctx.plugin];
  if (before === undefined || ORDER[action] > ORDER[before]) outcome[ctx.plugin] = action;
  const summary = Object.entries(outcome)
    .map(([name, a]) => `${name}=${a}`)
    .join(', ');
  ctx.setHeader('x-svc-guardrails', summary);
  ctx.notes.guardrails = summary;
  ctx.services.metrics.counter('actions', 'What this guardrail did, per request and side', ['action', 'detail']).inc({ action, detail });
}
