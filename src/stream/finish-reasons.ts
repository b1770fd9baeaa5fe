import type { ChatChunk } from './wire';

const KEY = Buffer.from('"finish_reason"', 'latin1');
/** Longer is not a finish reason (they are short identifiers): the scan stops there. */
const MAX_REASON = 64;
const bufIndexOf = Buffer.prototype.indexOf;

/**
 * The `finish_reason` values a stream carried, in the order they came (one per choice that
 * finished), for the traces' `gen_ai.response.finish_reasons`. Made only for a sampled trace:
 * the zero-copy path's forwarded regions are searched for `"finish_reason"` followed by a
 * string (the `null` of every other chunk is skipped), no event decoded; the decoded path
 * reads its chunks. A region is whole events (the tap never cuts one), so a key never
 * straddles two regions.
 */
export class FinishReasons {
  readonly list: string[] = [];

  /** Reads the reasons in a forwarded byte region (whole SSE events). */
  scan(region: Uint8Array): void {
    for (let at: number = bufIndexOf.call(region, KEY, 0); at >= 0; at = bufIndexOf.call(region, KEY, at + KEY.length)) {
      let i = at + KEY.length;
      while (i < region.length && (region[i] === 32 || region[i] === 9 || region[i] === 58) /* : */) i++;
      if (region[i] !== 34 /* " */) continue;
      let reason = '';
      for (i++; i < region.length && region[i] !== 34 && reason.length < MAX_REASON; i++) reason += String.fromCharCode(region[i]!);
      if (region[i] === 34 && reason) this.list.push(reason);
    }
  }

  /** Reads the reasons of a decoded chunk as it reaches the client. */
  take(chunk: ChatChunk): void {
    for (const choice of chunk.choices) if (typeof choice.finish_reason === 'string') this.list.push(choice.finish_reason);
  }

  /** The reasons seen, null when none was. */
  result(): string[] | null {
    return this.list.length > 0 ? this.list : null;
  }
}
