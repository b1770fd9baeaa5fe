import type { UsageMeter } from '../billing/meter';
import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Logger } from '../log';
import type { ModelCatalog } from '../models/catalog';
import type { ProviderRegistry } from '../../providers/registry';

/** What the media jobs take from the app: named here, so the jobs domain never imports the app's wiring. */
export interface JobsDeps {
  config: Config;
  storage: Storage;
  meter: UsageMeter;
  models: ModelCatalog;
  providers: ProviderRegistry;
  log: Logger;
  now: () => number;
  fetch: typeof fetch;
}
