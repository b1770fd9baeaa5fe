import type { RpcFamily, RpcConfig } from '../../src/rpc/config';
import { DEFAULT_METHODS, type AllowList } from '../../src/rpc/methods';
import { httpNode } from './node';
import { NodePool } from './pool';
import { SIMULATED_NETWORK, simulatedNode } from './simulated-node';

/** A network the proxy serves: its family, allowed methods with their tiers, and its nodes. */
export interface RpcNetwork {
  id: string;
  family: RpcFamily;
  allowed: AllowList;
  /** True for the built-in simulated network. */
  simulated: boolean;
  pool: NodePool;
}

/** Whether the simulated network is served: as configured, else only when no network is. */
export const servesSimulator = (config: RpcConfig) => config.simulator ?? config.networks.length === 0;

/** The networks of the config (and the simulated one when served), by id. */
export function buildNetworks(config: RpcConfig, deps: { fetch: typeof fetch; now: () => number }): Map<string, RpcNetwork> {
  const pool = { unhealthyMs: config.unhealthyMs, now: deps.now };
  const networks = new Map<string, RpcNetwork>();
  for (const n of config.networks)
    networks.set(n.id, {
      id: n.id,
      family: n.family,
      allowed: n.methods ?? config.methods[n.family] ?? DEFAULT_METHODS[n.family],
      simulated: false,
      pool: new NodePool(
        n.urls.map((url) => httpNode(url, deps.fetch)),
        pool,
      ),
    });
  if (servesSimulator(config) && !networks.has(SIMULATED_NETWORK))
    networks.set(SIMULATED_NETWORK, {
      id: SIMULATED_NETWORK,
      family: 'evm',
      allowed: config.methods.evm ?? DEFAULT_METHODS.evm,
      simulated: true,
      pool: new NodePool([simulatedNode(deps.now)], pool),
    });
  return networks;
}
