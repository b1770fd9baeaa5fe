import type { PluginServices } from '@svc/plugin-sdk';
import { charactersOf } from '../characters';
import type { AppDeps } from '../deps';
import { guardedFetch } from '../net/guarded-fetch';
import { scrapeUrls } from '../scrape';
import { webToolsOf } from '../../providers/search';
import { pluginMetrics } from '../metrics/plugins';
import { textTokens } from '../pipeline/tokens';

/** The services every plugin shares; `metrics` is each plugin's own (see `servicesFor`). */
export type SharedServices = Omit<PluginServices, 'metrics'>;

/** What the plugins may use of the app (never the database or the app itself). */
export function sharedServices(deps: AppDeps): SharedServices {
  const web = webToolsOf(deps);
  const characters = charactersOf(deps);
  const guard = { allowPrivate: deps.config.allowPrivateUrls, fetch: deps.fetch };
  const scraping = web.config.scraping;
  return {
    config: deps.config,
    log: deps.log,
    now: deps.now,
    urlGuard: guard,
    fetch: (url, { operatorUrl, ...o }) => guardedFetch(url, { ...guard, ...o, allowPrivate: guard.allowPrivate || operatorUrl === true }),
    countTokens: textTokens,
    web: {
      config: web.config,
      search: web.search,
      scrape: (urls, o) =>
        scrapeUrls(urls, {
          guard: { ...guard, timeoutMs: scraping.timeoutMs, maxBytes: scraping.maxBytes, signal: o.signal },
          maxChars: scraping.maxCharsPerPage,
        }),
    },
    characters: {
      async systemPrompt(slug) {
        await characters.ready;
        return characters.store.systemPrompt(slug);
      },
    },
  };
}

/** One plugin's services: the shared ones and its own metrics. */
export function servicesFor(shared: SharedServices, plugin: string): PluginServices {
  return { ...shared, metrics: pluginMetrics(plugin) };
}
