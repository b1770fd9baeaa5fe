import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Logger } from '../log';
import { responsesConfigOf, type ResponsesConfig } from './config';
import { createResponseStore, type ResponseStore } from './store';

/** One app's stored-responses parts: the config and the store (its writer and sweep running). */
export interface ResponsesRuntime {
  config: ResponsesConfig;
  store: ResponseStore;
}

/** What the stored responses need of the app: its config, storage, log and clock. */
interface Deps {
  config: Config;
  storage: Storage;
  log: Logger;
  now: () => number;
}
const runtimes = new WeakMap<Deps, ResponsesRuntime>();

/** The stored-responses runtime of an app's deps, built (its timers started) on first use. */
export function responsesRuntimeOf(deps: Deps): ResponsesRuntime {
  let rt = runtimes.get(deps);
  if (!rt) {
    const config = responsesConfigOf(deps.config);
    const store = createResponseStore(deps.storage.db, {
      log: deps.log,
      now: deps.now,
      flushIntervalMs: config.flushIntervalMs,
      sweepIntervalMs: config.sweepIntervalMs,
    });
    rt = { config, store };
    runtimes.set(deps, rt);
  }
  return rt;
}

/** Writes what is queued and stops the timers of `deps`' store, if one was started. */
export async function stopResponses(deps: Deps): Promise<void> {
  const rt = runtimes.get(deps);
  if (!rt) return;
  runtimes.delete(deps);
  await rt.store.close();
}
