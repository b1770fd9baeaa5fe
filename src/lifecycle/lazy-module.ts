/**
 * A module that only some requests need, loaded by the first of them instead of at start.
 * Each of these packages costs idle RSS in every process whether or not the feature is ever
 * used (sharp's libvips binding, a DOM for reader view, the wallet crypto stacks), so svc
 * imports them only through this: the first call pays the load (tens of milliseconds),
 * concurrent first calls share it, and a failed load (a missing native binary) is not kept,
 * so it fails that request and is tried again by the next one.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return function loadOnFirstUse() {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
