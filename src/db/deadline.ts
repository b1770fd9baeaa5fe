import { DbUnavailableError, isConnectionError } from './unavailable';

/** A promise that settles as `work` does, or rejects with DbUnavailableError once `ms` pass; connection errors become DbUnavailableError. */
function bounded<T>(work: PromiseLike<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DbUnavailableError(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (
        clearTimeout(timer),
        reject(isConnectionError(error) ? new DbUnavailableError(String(error?.message ?? error), error) : error)
      ),
    );
  });
}

/**
 * A postgres.js query (a lazy promise: it runs on its first `then`) whose result is bounded
 * by `ms`. Its other methods (`values()`, `cancel()`) stay as they are; `values()` returns
 * the query itself, so the bound holds for it too.
 */
function boundQuery<Q extends PromiseLike<unknown>>(query: Q, ms: number): Q {
  const then = query.then.bind(query);
  (query as { then: unknown }).then = (ok?: (v: unknown) => unknown, ko?: (e: unknown) => unknown) =>
    bounded({ then } as PromiseLike<unknown>, ms).then(ok, ko);
  return query;
}

type Callback = (client: unknown) => unknown;

/**
 * A transaction (`begin`, `savepoint`) whose statements are each bounded by `ms` (the
 * callback gets a bounded client), and whose start is bounded too: it waits for a free
 * connection, which a database that stopped answering never gives back. A transaction that
 * starts after its caller was told it failed runs nothing (its callback throws, so it rolls back).
 */
function boundTransaction(run: (...args: unknown[]) => Promise<unknown>, args: unknown[], ms: number): Promise<unknown> {
  const fn = args.at(-1) as Callback;
  let given = false;
  let started = false;
  const body = (client: unknown) => {
    if (given) throw new DbUnavailableError('transaction started after its deadline');
    started = true;
    return fn(withDeadlines(client as object, ms));
  };
  const work = run(...args.slice(0, -1), body);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (started) return;
      given = true;
      reject(new DbUnavailableError(`no connection within ${ms} ms`));
    }, ms);
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (
        clearTimeout(timer),
        reject(isConnectionError(error) ? new DbUnavailableError(String(error?.message ?? error), error) : error)
      ),
    );
  });
}

/**
 * Wraps a postgres.js client so that every database call has a deadline of `ms`: each
 * statement (`unsafe`, which drizzle issues every query through) and the start of each
 * transaction. Past it, or on a lost connection, the call rejects with DbUnavailableError
 * (503 with Retry-After), instead of waiting for TCP to give up. A statement cut by its
 * deadline still runs to its end on the server: the ledger's writes are idempotent by
 * request id, so a retry of its batch neither loses nor doubles a charge.
 */
export function withDeadlines<T extends object>(client: T, ms: number): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'unsafe') return (...args: unknown[]) => boundQuery(value.apply(target, args), ms);
      if (prop === 'begin' || prop === 'savepoint') return (...args: unknown[]) => boundTransaction(value.bind(target), args, ms);
      return value;
    },
  });
}
