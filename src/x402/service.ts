import { parseBillingConfig } from '../billing/config';
import { toMicros } from '../billing/money';
import { parseWalletsConfig, type WalletsConfig } from '../auth/wallet-config';
import type { UsageMeter } from '../billing/meter';
import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Logger } from '../log';
import type { PaymentsConfig } from './config';
import { createPaymentOptions, type PaymentOptions } from './payment-options';
import { recoverPayments } from './recovery';
import { createTopUp, type AmountBounds, type TopUp } from './top-up';

/** One instance's x402 parts: config, payment options, the top-up flow and its start-up recovery. */
export interface X402Service {
  wallets: WalletsConfig;
  payments: PaymentsConfig;
  options: PaymentOptions;
  topUp: TopUp;
  minMicros: number;
  maxMicros: number;
  /** The amounts a payment for one call on a metered route may have (`minimumPaymentUsd` up to the top-up maximum). */
  perCall: AmountBounds;
  /** Start-up recovery of unfinished payments; resolves to how many were credited. */
  recovered: Promise<number>;
}

/** What the x402 parts need from the app: its config, database, meter, log and clock. */
export interface X402Deps {
  config: Config;
  storage: Pick<Storage, 'db'>;
  meter: UsageMeter;
  log: Logger;
  now: () => number;
}

const services = new WeakMap<X402Deps, X402Service>();

/** The x402 service of an app's deps, built (and its recovery started) on first use. */
export function x402Of(deps: X402Deps): X402Service {
  let service = services.get(deps);
  if (service) return service;
  const wallets = parseWalletsConfig(deps.config);
  const payments = wallets.payments;
  const options = createPaymentOptions(payments, deps.log);
  const minMicros = toMicros(parseBillingConfig(deps.config).minimumTopUpUsd);
  const maxMicros = payments.maximumTopUpUsd * 1_000_000;
  const topUp = createTopUp({
    db: deps.storage.db,
    meter: deps.meter,
    options,
    log: deps.log,
    now: deps.now,
    minMicros,
    maxMicros,
    settleTimeoutMs: payments.settleTimeoutMs,
  });
  const recovered = options.configured
    ? recoverPayments({ db: deps.storage.db, log: deps.log, topUp, staleMs: payments.settleTimeoutMs + 5_000 }).catch((error) => {
        deps.log.warn('x402: payment recovery failed', { error: String(error) });
        return 0;
      })
    : Promise.resolve(0);
  const perCall = { minMicros: toMicros(payments.minimumPaymentUsd), maxMicros, name: 'payment for one call' };
  service = { wallets, payments, options, topUp, minMicros, maxMicros, perCall, recovered };
  services.set(deps, service);
  return service;
}
