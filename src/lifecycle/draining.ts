/**
 * Whether this process is shutting down: readiness answers 503 from then on, so a load
 * balancer stops sending new requests while open streams finish.
 */
let draining = false;

/** True once shutdown has begun. */
export function isDraining(): boolean {
  return draining;
}

/** Marks the process as shutting down (src/lifecycle/shutdown.ts). */
export function startDraining(): void {
  draining = true;
}
