import type { CacheOptions } from './options';

const namespaceIndexes = new WeakMap<CacheOptions['sharedNamespaces'], Map<string, string>>();

/** account id → its shared namespace, built once per options object. */
function namespaceOf(options: CacheOptions, accountId: string): string | undefined {
  let index = namespaceIndexes.get(options.sharedNamespaces);
  if (!index) {
    index = new Map();
    for (const [name, accounts] of Object.entries(options.sharedNamespaces)) for (const id of accounts) index.set(id, name);
    namespaceIndexes.set(options.sharedNamespaces, index);
  }
  return index.get(accountId);
}

/**
 * Who may be served an entry: the account (default), the key alone (`scope: key`), or the
 * shared namespace the operator put the account in. Null without an account: nothing cached.
 */
export function cacheScope(options: CacheOptions, accountId: string | null, keyId: string | null): string | null {
  if (accountId === null) return null;
  const shared = namespaceOf(options, accountId);
  if (shared !== undefined) return `ns:${shared}`;
  if (options.scope === 'key' && keyId !== null) return `key:${keyId}`;
  return `account:${accountId}`;
}
