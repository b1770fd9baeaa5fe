// The services a plugin is handed, declared structurally so the SDK depends on nothing of svc.

/** A structured logger writing one JSON object per line; never pass secrets. */
export interface PluginLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A document fetched through the SSRF guard. */
export interface FetchedDocument {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** Limits of one guarded fetch. */
export interface PluginFetchOptions {
  /** Whole operation: connect, redirects and body. */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** GET unless told; a redirect of another method is refused. */
  method?: 'GET' | 'POST' | 'PUT';
  body?: string | Uint8Array;
  /**
   * The URL is the operator's (from the plugin's options, e.g. a classifier on 127.0.0.1),
   * not a user's: private addresses are allowed. Never set it for a URL a request supplied.
   */
  operatorUrl?: boolean;
}

/** Fetches a URL through the SSRF guard; throws an Error whose message is safe to show when it is refused or fails. */
export type PluginFetch = (url: string, options: PluginFetchOptions) => Promise<FetchedDocument>;

/** A page read by `services.web.scrape`, or why it could not be. */
export type ScrapeResult = { ok: true; url: string; title: string; text: string } | { ok: false; url: string; error: string };

/** One web search result. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
  /** Publication date when the engine knows it. */
  date?: string;
}

/** A web search engine; a failure throws an Error named `SearchFailed` (`timedOut` set when it gave no answer in time). */
export interface PluginSearchEngine {
  readonly id: string;
  search(query: string, opts: { signal: AbortSignal; count: number }): Promise<SearchResult[]>;
}

/** The web tools the operator configured (config `search`), with their prices in micro-USD. */
export interface PluginWebTools {
  config: {
    timeoutMs: number;
    maxResults: number;
    priceMicros: number;
    xSearchPriceMicros: number;
    scraping: { timeoutMs: number; maxBytes: number; maxCharsPerPage: number; priceMicros: number };
  };
  /** The search engine, or null when none is configured. */
  search: PluginSearchEngine | null;
  /** Reads pages' text through the SSRF guard, concurrently, within the scraping limits. */
  scrape(urls: string[], opts: { signal?: AbortSignal }): Promise<ScrapeResult[]>;
}

/** The public characters. */
export interface PluginCharacters {
  /** A character's system prompt by slug, or null when there is no such character. */
  systemPrompt(slug: string): Promise<string | null>;
}
