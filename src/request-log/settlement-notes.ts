import type { MeteredUsage, MeterTicket, SettledCost, UsageMeter } from '../billing/meter';
import type { RequestContext } from '../http/request-context';
import type { SpendSeries } from './spend-series';

/** Writes a settlement on the request context (the request log reads it) and into the spend series. */
function note(ctx: RequestContext, usage: MeteredUsage, cost: SettledCost, spend: SpendSeries | null): void {
  const diem = cost.diemMicros > 0 && cost.usdMicros === 0;
  const costMicros = diem ? cost.diemMicros : cost.usdMicros;
  const currency = diem ? 'DIEM' : 'USD';
  // A call settled twice (a queued job's parts) adds up.
  const before = ctx.settled;
  ctx.settled = {
    promptTokens: (before?.promptTokens ?? 0) + usage.promptTokens,
    completionTokens: (before?.completionTokens ?? 0) + usage.completionTokens,
    costMicros: (before?.costMicros ?? 0) + costMicros,
    currency,
  };
  const caller = ctx.caller;
  if (spend && caller) spend.record(caller.apiKey?.id ?? null, caller.accountId, currency, costMicros);
}

/** The admitted ticket (the admission's end marked) with a settle that also notes what it charged and when. */
function notedTicket(ticket: MeterTicket, ctx: RequestContext, spend: SpendSeries | null): MeterTicket {
  ctx.admissionEnd = performance.now();
  return {
    headers: ticket.headers,
    balances: ticket.balances,
    release() {
      ctx.settlementStart ||= performance.now();
      return ticket.release().then(() => {
        ctx.settlementEnd = performance.now();
      });
    },
    settle(usage) {
      ctx.settlementStart ||= performance.now();
      return ticket.settle(usage).then((cost) => {
        ctx.settlementEnd = performance.now();
        note(ctx, usage, cost, spend);
        return cost;
      });
    },
  };
}

/**
 * The meter, with each ticket's admission and settlement timed and noted on its request
 * context (the stage marks) and its charge counted in the spend series: the request log and /metrics learn the tokens and cost from the one place every
 * route settles, without any route knowing about them. Everything else passes through as is.
 */
export function noteSettlements(meter: UsageMeter, spend: SpendSeries | null): UsageMeter {
  const open: UsageMeter['open'] = (input) => {
    input.ctx.admissionStart = performance.now();
    const ticket = meter.open(input);
    return ticket instanceof Promise ? ticket.then((t) => notedTicket(t, input.ctx, spend)) : notedTicket(ticket, input.ctx, spend);
  };
  return new Proxy(meter, {
    get(target, property) {
      if (property === 'open') return open;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
