import { Type, definePlugin, messageText, refuse, type ChatMessage, type PluginContext } from '@svc/plugin-sdk';
import { assigned } from '../assign';
import { recordOutcome } from '../shared/outcome';
import { parseVerdict, type Verdict } from './verdict';
import { verdictAtEnd } from './stream';

/** Classifier latency buckets, in seconds: a local model answers in tens of ms, a remote service in hundreds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Options = { url: string; timeoutMs: number; fail: 'open' | 'closed'; check_output: boolean; headers: Record<string, string> };

/** Posts one text to the operator's classifier and reads its verdict; the latency goes to the metrics. */
async function classify(
  ctx: PluginContext<Record<string, unknown>, Options>,
  side: 'input' | 'output',
  payload: Record<string, unknown>,
): Promise<Verdict> {
  const started = performance.now();
  let result = 'error';
  try {
    const res = await ctx.services.fetch(ctx.options.url, {
      method: 'POST',
      operatorUrl: true,
      body: JSON.stringify({ side, model: ctx.model.id, request_id: ctx.request.requestId, ...payload }),
      headers: { 'content-type': 'application/json', ...ctx.options.headers },
      timeoutMs: ctx.options.timeoutMs,
      maxBytes: 64 * 1024,
      signal: ctx.signal,
    });
    const verdict = parseVerdict(new TextDecoder().decode(res.body));
    result = verdict.verdict;
    return verdict;
  } finally {
    ctx.services.metrics
      .histogram('duration_seconds', 'Time the classifier took to answer', ['side', 'result'], LATENCY_BUCKETS)
      .observe({ side, result }, (performance.now() - started) / 1000);
  }
}

/** Acts on a verdict, or on the classifier's failure as the operator chose (fail open or closed). */
async function check(
  ctx: PluginContext<Record<string, unknown>, Options>,
  side: 'input' | 'output',
  payload: Record<string, unknown>,
): Promise<void> {
  let verdict: Verdict;
  try {
    verdict = await classify(ctx, side, payload);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    recordOutcome(ctx, 'error', side);
    ctx.services.log.warn('webhook classifier failed', { requestId: ctx.request.requestId, side, error: why, fail: ctx.options.fail });
    if (ctx.options.fail === 'closed')
      throw refuse(`the classifier did not answer (${why}); this guardrail fails closed`, { status: 503, code: 'webhook' });
    return;
  }
  recordOutcome(ctx, verdict.verdict, side);
  if (verdict.verdict === 'deny')
    throw refuse(`the classifier denied the ${side}${verdict.reason ? `: ${verdict.reason}` : ''}`, {
      status: side === 'input' ? 403 : 422,
      code: 'webhook',
    });
}

const transcript = (messages: readonly ChatMessage[]) => messages.map((m) => ({ role: m.role, content: messageText(m) }));

/**
 * `webhook`: an external classifier (a moderation service, Llama Guard behind vLLM...). It
 * posts the input (and, if asked, a JSON answer) to the operator's URL and acts on the
 * verdict: deny, flag or pass; when the classifier fails or is late, fail open or closed.
 * A streamed answer flows as it comes; only its finish and `[DONE]` wait for the verdict on
 * the whole text (one classifier round trip at the end), and a deny ends it with `content_filter`.
 */
export const webhook = definePlugin({
  name: 'webhook',
  options: {
    url: Type.String({
      default: '',
      description: 'The classifier: POST {side, model, request_id, messages | output} → {verdict, reason?}',
    }),
    timeoutMs: Type.Integer({ default: 2000, minimum: 1, description: 'How long a verdict may take' }),
    fail: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      default: 'open',
      description: 'What a failed or late classifier means',
    }),
    check_output: Type.Boolean({ default: false, description: 'Also post the answer' }),
    headers: Type.Record(Type.String(), Type.String(), { default: {}, description: 'Headers sent to the classifier (e.g. its auth)' }),
  },
  isActive: (ctx) => assigned(ctx, 'webhook') && ctx.options.url !== '',
  transformRequest: async function classifyInput(req, ctx) {
    await check(ctx, 'input', { messages: transcript(req.messages) });
  },
  transformResponse: async function classifyOutput(body, ctx) {
    if (ctx.options.check_output) await check(ctx, 'output', { output: body.choices.map((c) => c.message.content ?? '').join('\n') });
    return body;
  },
  transformStream: function classifyStreamedOutput(ctx) {
    if (!ctx.options.check_output) return { transform: (chunk, emit) => emit(chunk) };
    return verdictAtEnd((output) => check(ctx, 'output', { output }));
  },
});
