import type { ExtraCharge } from '../billing/meter';
import { invalidField, upstreamError, type ServiceError } from '../http/errors';
import type { GuardOptions } from '../net/guarded-fetch';
import { UrlRefused } from '../net/guarded-fetch';
import type { MeteredCall } from '../pipeline/metered-call';
import { fetchPage, htmlToMarkdown, truncate } from '../scrape';
import type { WebScrapeRequest, WebScrapeResponse } from './schema';

/** The line item of one scraped page. */
export const AUGMENT_SCRAPE_SKU = 'augment-web-scrape';

/** What a scrape needs: the guard's limits, the blocked hosts, the price and the markdown cap. */
export interface ScrapeSettings {
  guard: Omit<GuardOptions, 'signal'>;
  blockedHosts: readonly string[];
  priceMicros: number;
  maxChars: number;
}

const urlError = (reason: string) => invalidField('url', reason, 'body');

/** Whether `host` is a blocked host or one of its subdomains. */
export function isBlockedHost(host: string, blocked: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return blocked.some((b) => h === b.toLowerCase() || h.endsWith(`.${b.toLowerCase()}`));
}

/** The request's URL, checked before anything is reserved: http(s), and not a blocked host. */
function checkedUrl(raw: string, blocked: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw urlError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw urlError(`must be an http or https URL, not ${url.protocol}`);
  if (isBlockedHost(url.hostname, blocked)) throw urlError(`${url.hostname} blocks automated access and cannot be scraped`);
  return url;
}

/** The client's error for a URL the guard or the page refused: the caller's URL (400), the page (502) or its time (504). */
function refusal(error: UrlRefused): ServiceError {
  switch (error.code) {
    case 'protocol':
    case 'address':
    case 'dns':
    case 'redirects':
      return urlError(error.message);
    case 'timeout':
      return upstreamError(504, `url: the page did not load in time: ${error.message}`);
    default:
      return upstreamError(502, `url: the page could not be read: ${error.message}`);
  }
}

/**
 * POST /augment/scrape on a call priced by its line item: checks the URL (400 before
 * anything is reserved), reserves one page, fetches it through the SSRF guard, keeps the
 * main content as markdown, and charges only a page that gave content.
 */
export async function webScrape(req: WebScrapeRequest, call: MeteredCall, s: ScrapeSettings): Promise<WebScrapeResponse> {
  const url = checkedUrl(req.url, s.blockedHosts);
  const charge: ExtraCharge = { sku: AUGMENT_SCRAPE_SKU, units: 1, unitPriceMicros: s.priceMicros };
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [charge] });
  let content: string;
  try {
    const page = await fetchPage(url.href, { ...s.guard, signal: call.signal });
    if (page.kind === 'unsupported') throw urlError(`the page is ${page.contentType}, not HTML or text`);
    content = page.kind === 'html' ? (await htmlToMarkdown(page.body)).markdown : page.body.trim();
    if (!content) throw upstreamError(502, 'url: the page has no readable content');
  } catch (error) {
    return call.fail(error instanceof UrlRefused ? refusal(error) : error);
  }
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({ promptTokens: 0, completionTokens: 0, executionMs, extras: [charge] });
  call.chargeBeforeHeaders(settled);
  return { url: url.href, content: truncate(content, s.maxChars), format: 'markdown' };
}
