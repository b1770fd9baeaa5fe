import { NodeFailure, type NodeCallOptions, type RpcNode } from './node';

/** What the pool needs: the nodes in config order, how long a failed node is skipped, and the clock. */
export interface PoolOptions {
  unhealthyMs: number;
  now: () => number;
}

/**
 * The nodes of one network with health-aware failover: calls go round the healthy nodes in
 * turn; a node that fails (down, 5xx, slow, garbled answer) is skipped for `unhealthyMs`,
 * and tried again only when every node is skipped. One call tries each node at most once.
 */
export class NodePool {
  private next = 0;
  private readonly downUntil: number[];

  constructor(
    readonly nodes: readonly RpcNode[],
    private readonly o: PoolOptions,
  ) {
    this.downUntil = nodes.map(() => 0);
  }

  /** The order to try the nodes in for one call: healthy ones from the round-robin position, then skipped ones by soonest recovery. */
  private order(): number[] {
    const now = this.o.now();
    const n = this.nodes.length;
    const start = this.next++ % n;
    const healthy: number[] = [];
    const down: number[] = [];
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      (this.downUntil[i]! > now ? down : healthy).push(i);
    }
    down.sort((a, b) => this.downUntil[a]! - this.downUntil[b]!);
    return [...healthy, ...down];
  }

  /**
   * Sends `body` and returns what `accept` makes of the answer; a node that fails, or whose
   * answer `accept` throws on, is marked down and the next is tried. Throws the last failure
   * when none succeeded.
   */
  async call<T>(body: string, o: NodeCallOptions, accept: (text: string) => T): Promise<T> {
    let last: NodeFailure | null = null;
    for (const i of this.order()) {
      const node = this.nodes[i]!;
      try {
        const result = accept(await node.send(body, o));
        this.downUntil[i] = 0;
        return result;
      } catch (error) {
        if (o.signal.aborted) throw error;
        const failure =
          error instanceof NodeFailure
            ? error
            : new NodeFailure(`node ${node.label} sent an answer that is not JSON-RPC for this request`, true);
        if (!failure.skip) throw failure;
        this.downUntil[i] = this.o.now() + this.o.unhealthyMs;
        last = failure;
      }
    }
    throw last ?? new NodeFailure('no node is configured', false);
  }
}
