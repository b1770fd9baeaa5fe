import type { MeteredUsage } from '../billing/meter';
import { UpstreamStreamError } from '../stream/chunks';
import type { ModelCall } from '../pipeline/model-call';
import type { Routed } from '../../providers/router';
import type { BinaryResult, JsonBody } from '../../providers/types';
import { byteReader } from '../stream/prefetched';

/** Every byte of a speech answer (a broken stream throws, so nothing is charged). */
export async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/**
 * Streamed speech: the routed call is made now (its failure before the first byte is a JSON
 * error with nothing charged), then its bytes pass through untouched as they arrive, with no
 * buffering. The call settles once, when the last byte was delivered or the client stopped
 * reading audio it had asked for; a stream that breaks mid-audio errors the response and
 * releases the reservation, so audio that was not delivered is not charged.
 */
export async function meteredSpeechStream(
  call: ModelCall,
  body: JsonBody,
  usage: Pick<MeteredUsage, 'promptTokens' | 'completionTokens'>,
  onDelivered?: () => Promise<void>,
): Promise<ReadableStream<Uint8Array>> {
  let routed: Routed<BinaryResult>;
  try {
    routed = await call.route('speech', (provider, options) => provider.speech(body, options));
  } catch (error) {
    return call.fail(error);
  }
  const upstream = byteReader(routed.result.body);
  let ended = false;
  /** Ends the call exactly once: settle (delivered, or the client left) or release (the upstream broke). */
  async function end(charge: boolean): Promise<void> {
    if (ended) return;
    ended = true;
    call.end();
    routed.done();
    if (!charge) return call.release();
    await call.settle({ ...usage, executionMs: Math.round(performance.now() - call.request.startedAt) });
    await onDelivered?.();
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let r: Awaited<ReturnType<typeof upstream.read>>;
        try {
          r = await upstream.read();
        } catch {
          // A read cut because the client left is the client's choice (charged, as in `cancel`);
          // any other failure is the upstream's (nothing charged).
          const clientLeft = call.signal.aborted;
          await end(clientLeft);
          controller.error(
            new UpstreamStreamError(clientLeft ? 'Client closed the request' : 'The upstream speech stream broke; nothing was charged'),
          );
          return;
        }
        if (r.done) {
          // Settled before the stream closes, so a client that read to the end sees its charge.
          try {
            await end(true);
          } finally {
            controller.close();
          }
        } else controller.enqueue(r.value);
      },
      async cancel() {
        // The client stopped reading: the upstream is aborted and the audio asked for is charged.
        await upstream.cancel().catch(() => {});
        await end(true);
      },
    },
    { highWaterMark: 0 },
  );
}
