import type { RedisLink, RedisLinkOptions } from './redis-contract';

// The link's contract lives in redis-contract.ts, below both topologies, so that this module
// (which loads them on demand) and they do not import each other.
export type { RedisCommands, RedisLink, RedisLinkOptions } from './redis-contract';
export { ChannelListeners } from './redis-contract';

/** Connects to the Redis at `url`: a Redis Cluster node (detected with INFO) gets the cluster client, anything else Bun's. */
export async function connectRedis(url: string, opts: RedisLinkOptions): Promise<RedisLink> {
  const { connectSingle, isClusterNode } = await import('./redis-single');
  if (!(await isClusterNode(url, opts))) return connectSingle(url, opts);
  const { connectCluster } = await import('./redis-cluster');
  return connectCluster(url, opts);
}
