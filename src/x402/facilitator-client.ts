import { Type as T, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FacilitatorClient } from '@x402/core/server';
import {
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from '@x402/core/types';
import { BodyTooLarge, responseTextUpTo } from '../net/limited-body';

/** Bytes of a facilitator answer read at most: its answers are a few hundred bytes, /supported a few KB. */
export const FACILITATOR_ANSWER_BYTES = 64 * 1024;

/** What the facilitator is asked (its path) in each call. */
type Operation = 'verify' | 'settle' | 'supported';

/** An answer read whole (within FACILITATOR_ANSWER_BYTES). */
interface Answer {
  status: number;
  ok: boolean;
  retryAfter: string | null;
  text: string;
}

// The answer schemas of @x402/core's client (not exported): required fields typed, optional ones may be null.
const OptionalString = T.Optional(T.Union([T.String(), T.Null()]));
const OptionalRecord = T.Optional(T.Union([T.Record(T.String(), T.Unknown()), T.Null()]));
const VerifyAnswer = T.Object({
  isValid: T.Boolean(),
  invalidReason: OptionalString,
  invalidMessage: OptionalString,
  payer: OptionalString,
  extensions: OptionalRecord,
  extra: OptionalRecord,
});
const SettleAnswer = T.Object({
  success: T.Boolean(),
  errorReason: OptionalString,
  errorMessage: OptionalString,
  payer: OptionalString,
  transaction: T.String(),
  network: T.String(),
  amount: OptionalString,
  extensions: OptionalRecord,
  extra: OptionalRecord,
});
const SupportedAnswer = T.Object({
  kinds: T.Array(T.Object({ x402Version: T.Number(), scheme: T.String(), network: T.String(), extra: OptionalRecord })),
  extensions: T.Array(T.String(), { default: [] }),
  signers: T.Record(T.String(), T.Array(T.String()), { default: {} }),
});

/** /supported is asked this many times while it answers 429, as @x402/core does. */
const SUPPORTED_ATTEMPTS = 3;

/** The library's wait before another /supported: Retry-After (seconds or a date), else 1 s doubling; at most 30 s. */
function retryDelay(retryAfter: string | null, attempt: number): number {
  const value = retryAfter?.trim() ?? '';
  const asked = /^\d+$/.test(value) ? Number(value) * 1000 : value ? Date.parse(value) - Date.now() : NaN;
  return Math.min(asked > 0 ? asked : 1000 * 2 ** attempt, 30_000);
}

/** The start of an answer for an error message, whitespace collapsed, as the library quotes it. */
function excerpt(text: string): string {
  const compact = text.trim().replace(/\s+/g, ' ');
  if (!compact) return '<empty response>';
  return compact.length <= 200 ? compact : `${compact.slice(0, 197)}...`;
}

/** A 2xx answer checked against its schema, null fields dropped (the library's types have them optional, not null). */
function parseAnswer<R>(operation: Operation, text: string, schema: TSchema): R {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new FacilitatorResponseError(`Facilitator ${operation} returned invalid JSON: ${excerpt(text)}`);
  }
  data = Value.Default(schema, data);
  if (!Value.Check(schema, data)) throw new FacilitatorResponseError(`Facilitator ${operation} returned invalid data: ${excerpt(text)}`);
  return dropNulls(data as object) as R;
}

/** `o` without its null fields, as the library's schemas turn them into absent ones. */
function dropNulls<O extends object>(o: O): O {
  for (const [key, value] of Object.entries(o)) if (value === null) delete o[key as keyof O];
  return o;
}

/** The error of a non-2xx verify or settle: the library's typed refusal when the body is one (has `key`), else a plain failure. */
function refusal(operation: 'verify' | 'settle', answer: Answer, key: string, typed: (data: never) => Error): Error {
  let data: unknown;
  try {
    data = JSON.parse(answer.text);
  } catch {
    return new Error(`Facilitator ${operation} failed (${answer.status}): ${excerpt(answer.text)}`);
  }
  if (typeof data === 'object' && data !== null && key in data) return typed(data as never);
  return new Error(`Facilitator ${operation} failed (${answer.status}): ${excerpt(JSON.stringify(data))}`);
}

/**
 * The facilitator client: @x402/core's HTTPFacilitatorClient on the wire (the same paths,
 * request bodies, headers, redirects, a deadline that covers reading the answer, the same
 * error types and messages, /supported retried on 429), but each answer is read up to
 * FACILITATOR_ANSWER_BYTES. That class calls the global fetch and reads whole bodies inside
 * verify, settle and getSupported, with no fetch option to wrap, so a subclass could not bound
 * them without replacing all three anyway; patching the global fetch would reach every caller.
 * It does not decode the EXTENSION-RESPONSES header: svc registers no extensions.
 */
export class BoundedFacilitatorClient implements FacilitatorClient {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(o: { url: string; timeoutMs: number; token?: string }) {
    this.url = o.url.replace(/\/+$/, '');
    this.timeoutMs = o.timeoutMs;
    this.headers = { 'Content-Type': 'application/json', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) };
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const answer = await this.call('verify', payload, requirements);
    if (!answer.ok) throw refusal('verify', answer, 'isValid', (data: VerifyResponse) => new VerifyError(answer.status, data));
    return parseAnswer('verify', answer.text, VerifyAnswer);
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const answer = await this.call('settle', payload, requirements);
    if (!answer.ok) throw refusal('settle', answer, 'success', (data: SettleResponse) => new SettleError(answer.status, data));
    return parseAnswer('settle', answer.text, SettleAnswer);
  }

  async getSupported(): Promise<SupportedResponse> {
    for (let attempt = 0; ; attempt++) {
      const answer = await this.request('supported', { method: 'GET' });
      if (answer.ok) {
        const supported = parseAnswer<SupportedResponse>('supported', answer.text, SupportedAnswer);
        supported.kinds.forEach(dropNulls);
        return supported;
      }
      if (answer.status !== 429 || attempt === SUPPORTED_ATTEMPTS - 1)
        throw new Error(`Facilitator getSupported failed (${answer.status}): ${excerpt(answer.text)}`);
      await Bun.sleep(retryDelay(answer.retryAfter, attempt));
    }
  }

  /** POSTs a payment and its requirements (bigints as strings) to /verify or /settle. */
  private call(operation: 'verify' | 'settle', payload: PaymentPayload, requirements: PaymentRequirements): Promise<Answer> {
    const body = { x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements };
    return this.request(operation, {
      method: 'POST',
      body: JSON.stringify(body, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
    });
  }

  /** One request, its answer read under the client's deadline and size limit. */
  private async request(operation: Operation, init: { method: string; body?: string }): Promise<Answer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await fetch(`${this.url}/${operation}`, { ...init, headers: this.headers, redirect: 'follow', signal });
      const text = await responseTextUpTo(res, FACILITATOR_ANSWER_BYTES);
      return { status: res.status, ok: res.ok, retryAfter: res.headers.get('retry-after'), text };
    } catch (error) {
      if (error instanceof BodyTooLarge)
        throw new FacilitatorResponseError(`Facilitator ${operation} answer is larger than ${error.limitBytes} bytes; not read`);
      // Only fetch and the read can fail here, so once the deadline has passed it is the cause.
      if (signal.aborted) throw new FacilitatorTimeoutError(operation, this.timeoutMs);
      throw error;
    }
  }
}
