import type { RedisCommands } from '../kv/redis-link';
import { runScript } from '../kv/scripts';
import { RESERVE, RESERVE_GROUP } from './redis-reserve-script';

/** An admission's RESERVE reply, and the send number taken when its script was written (PendingCharges.stamp). */
export interface Admitted {
  reply: unknown;
  stamp: number;
}

/** One admission waiting for its turn: its RESERVE keys and arguments, and its caller's answer (itself, once decided). */
interface Waiting extends Admitted {
  keys: string[];
  args: string[];
  resolve(admitted: Admitted): void;
  reject(error: unknown): void;
}

/** The most admissions one script decides (bounds the time Redis spends in one call). */
const GROUP_MAX = 64;

/**
 * Sends the admissions of one account that arrive within one event-loop turn as one script
 * (RESERVE_GROUP), decided in Redis one after the other in arrival order, each caller getting
 * its own reply. No timer: a group goes at the turn's end (setImmediate), which is when Bun's
 * Redis client would have written the commands anyway; a call alone in its turn goes as
 * RESERVE. Per account, because a Redis Cluster runs a script in one slot and every key of an
 * account carries its hash tag. A group's failure (Redis unreachable, a script error) is each
 * of its callers' failure, as it would have been alone.
 */
export class AdmissionGroups {
  private waiting = new Map<string, Waiting[]>();
  private scheduled = false;

  constructor(
    private readonly redis: RedisCommands,
    /** The send number now, taken as a group's script is written (which settlements it already sees). */
    private readonly stamp: () => number,
  ) {}

  /** RESERVE's reply for this call, decided after the calls of the account queued before it. */
  reserve(accountId: string, keys: string[], args: string[]): Promise<Admitted> {
    return new Promise((resolve, reject) => {
      const group = this.waiting.get(accountId);
      const call: Waiting = { keys, args, resolve, reject, reply: null, stamp: 0 };
      if (group === undefined) this.waiting.set(accountId, [call]);
      else if (group.push(call) >= GROUP_MAX) {
        this.waiting.delete(accountId);
        this.send(group);
      }
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.sendAll);
      }
    });
  }

  private readonly sendAll = () => {
    this.scheduled = false;
    const groups = this.waiting;
    this.waiting = new Map();
    for (const group of groups.values()) this.send(group);
  };

  private send(group: Waiting[]) {
    const stamp = this.stamp();
    if (group.length === 1) {
      const [call] = group as [Waiting];
      call.stamp = stamp;
      runScript(this.redis, RESERVE, call.keys, call.args).then((reply) => {
        call.reply = reply;
        call.resolve(call);
      }, call.reject);
      return;
    }
    const keys: string[] = [];
    const args: string[] = [];
    for (const call of group) {
      for (const key of call.keys) keys.push(key);
      args.push(String(call.keys.length), String(call.args.length));
      for (const arg of call.args) args.push(arg);
    }
    runScript(this.redis, RESERVE_GROUP, keys, args).then(
      (replies) => {
        for (let i = 0; i < group.length; i++) {
          const call = group[i]!;
          call.reply = (replies as unknown[])[i];
          call.stamp = stamp;
          call.resolve(call);
        }
      },
      (error) => {
        for (const call of group) call.reject(error);
      },
    );
  }
}
