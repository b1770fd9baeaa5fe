import { BodyTooLarge, responseJsonUpTo } from '../../src/net/limited-body';

/** One web search hit, in the shape of `svc_parameters.web_search_citations` entries. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
  /** Publication date when the engine knows it (ISO 8601 or the engine's text). */
  date?: string;
}

/** One search: the client's abort, the hits wanted and the W3C `traceparent` to send (tracing on). */
export interface SearchOptions {
  signal: AbortSignal;
  count: number;
  traceparent?: string;
}

/** A web search engine adapter. Errors are thrown as SearchFailed. */
export interface SearchProvider {
  readonly id: string;
  search(query: string, opts: SearchOptions): Promise<SearchResult[]>;
}

/** The search engine failed (timeout, non-2xx, unreadable answer); the message is safe to log. */
export class SearchFailed extends Error {
  override name = 'SearchFailed';
  constructor(
    message: string,
    /** The engine gave no answer within its time limit (a 504 where the failure reaches a client). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Runs one engine call with a time limit; maps every failure to SearchFailed. */
export async function callEngine<T>(
  id: string,
  timeoutMs: number,
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await run(AbortSignal.any([signal, timeout]));
  } catch (error) {
    if (error instanceof SearchFailed) throw error;
    if (timeout.aborted) throw new SearchFailed(`${id}: no answer within ${timeoutMs} ms`, true);
    throw new SearchFailed(`${id}: ${signal.aborted ? 'cancelled' : 'request failed'}`);
  }
}

/** Bytes of an engine answer read at most: a page of results is tens of KB. */
export const SEARCH_ANSWER_BYTES = 4 * 1024 * 1024;

/** An engine's JSON answer, null when unreadable; one over SEARCH_ANSWER_BYTES is a SearchFailed, not read further. */
export async function engineJson(id: string, res: Response): Promise<unknown> {
  try {
    return await responseJsonUpTo<unknown>(res, SEARCH_ANSWER_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new SearchFailed(`${id}: answer larger than ${SEARCH_ANSWER_BYTES} bytes`);
    return null;
  }
}

/** Trims a string field of an engine answer; non-strings become ''. */
export const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
