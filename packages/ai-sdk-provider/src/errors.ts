import type { ProviderErrorStructure } from '@ai-sdk/openai-compatible';
import { z } from 'zod';

/**
 * svc's error body: `{ error: "message" }` or `{ error, details }` (a string that names the
 * field and the reason). Inside a stream svc sends OpenAI's in-band shape instead,
 * `{ error: { message, type, code } }`; both are read here.
 */
export const svcErrorSchema = z.object({
  error: z.union([z.string(), z.looseObject({ message: z.string() })]),
  details: z.unknown().optional(),
  code: z.union([z.string(), z.number()]).nullish(),
});

/** A parsed svc error body. */
export type SvcErrorData = z.infer<typeof svcErrorSchema>;

/** Statuses svc answers for conditions worth retrying: a timeout, rate limits, a busy or broken upstream. */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/**
 * How the AI SDK reads svc's errors: the APICallError's message is svc's `error` string
 * (the OpenAI-compatible default expects `error.message`, finds none, and shows only the
 * status text, "Bad Request").
 */
export const svcErrorStructure: ProviderErrorStructure<SvcErrorData> = {
  errorSchema: svcErrorSchema,
  errorToMessage: (data) => (typeof data.error === 'string' ? data.error : data.error.message),
  isRetryable: (response) => RETRYABLE.has(response.status),
};
