import { chunksToCompletion, type ChatChunk, type ChatRequest, type ChatUsage, type ChunkTransformer } from '@svc/plugin-sdk';
import type { SettledCost } from '../billing/meter';
import type { ActivePlugin, PluginRunner } from '../pipeline/plugin-runner';
import type { StreamOutcome } from '../stream/proxy';
import type { RequestPluginContext } from '../plugin-host/context';
import type { RespondedAnswer } from '../pipeline/plugin-runner';
import { settledOutcome } from './settled-outcome';

/** What the observer reads of the stream's response (src/chat/stream-response.ts). */
export interface ObservedStream {
  ctx: RequestPluginContext;
  call: { readonly answered: { id: string } };
  responded: RespondedAnswer | null;
}

/**
 * What a stream's `onSettled` plugins are told: the chunks as the upstream sent them,
 * recorded ahead of the transforms and assembled at the end (a plugin's answer: as it gave it).
 * Exists only when such a plugin is active; otherwise the stream stays zero-copy.
 */
export class StreamObserver {
  private readonly chunks: ChatChunk[] = [];
  private firstByteAt: number | null = null;
  /** The first transform of the stream: keeps a copy of each chunk (later transforms may change it in place). */
  readonly recorder: ChunkTransformer;
  /**
   * Whether each chunk is deep-copied as it is recorded: needed when a later stage (a plugin's
   * transform, another wire format's encoder) may change it in place; without one the chunk
   * itself is kept (a structuredClone per chunk was most of what recording cost).
   */
  copies = true;

  constructor(
    private readonly runner: PluginRunner,
    private readonly active: readonly ActivePlugin[],
    private readonly request: ChatRequest,
    private readonly upstreamAt: number,
  ) {
    const observer = this;
    this.recorder = {
      transform(chunk, emit) {
        observer.firstByteAt ??= performance.now();
        observer.chunks.push(observer.copies ? structuredClone(chunk) : chunk);
        emit(chunk);
      },
    };
  }

  /** Schedules the plugins' `onSettled` with how the stream ended (`settled` null: released, nothing charged). */
  report(s: ObservedStream, outcome: StreamOutcome, usage: ChatUsage | null, settled: SettledCost | null): void {
    // A plugin's answer is handed as it is (shared, never written to); the upstream's is assembled from its chunks.
    let completion = s.responded ? s.responded.answer.completion : null;
    if (!completion && this.chunks.length > 0) {
      completion = chunksToCompletion(this.chunks);
      if (usage) completion.usage = usage;
    }
    this.runner.settled(
      this.active,
      s.ctx,
      settledOutcome({
        ctx: s.ctx,
        request: this.request,
        model: s.call.answered.id,
        answeredBy: s.responded?.plugin ?? null,
        completion,
        usage,
        cost: settled,
        status: 200,
        error: outcome.aborted ? 'The client closed the stream' : outcome.error,
        upstreamAt: this.upstreamAt,
        firstByteAt: this.firstByteAt,
      }),
    );
  }
}

/** The observer of a stream whose active plugins include one with `onSettled`. */
export const streamObserver = (runner: PluginRunner, active: readonly ActivePlugin[], request: ChatRequest, upstreamAt: number) =>
  new StreamObserver(runner, active, request, upstreamAt);
