import type { Candidate, FinishReason, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import type { ChatCompletion, ChatUsage } from '../../src/stream/wire';
import { upstreamContentViolation, upstreamUnavailable } from '../errors';

/** A candidate as the REST API sends it (its finish reason a string). */
export type WireCandidate = Omit<Candidate, 'finishReason'> & { finishReason?: `${FinishReason}` };

/** A `generateContent` answer, or one event of `streamGenerateContent`, as the REST API sends it. */
export interface GenerateContentAnswer {
  candidates?: WireCandidate[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  usageMetadata?: GenerateContentResponseUsageMetadata;
  responseId?: string;
  modelVersion?: string;
}

/** Finish reasons that mean the provider's safety filters stopped the answer. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

/** A Gemini finish reason as a chat-completions `finish_reason`; `tool_calls` when the answer called functions. */
export function finishReasonOf(reason: string | undefined, calledTools: boolean): string {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** The refusal of a prompt blocked before any answer (`promptFeedback.blockReason`), or null. */
export function blockOf(answer: GenerateContentAnswer): ReturnType<typeof upstreamContentViolation> | null {
  const reason = answer.promptFeedback?.blockReason;
  if (reason) return upstreamContentViolation(`blocked by the provider: ${reason}`);
  const candidate = answer.candidates?.[0];
  if (candidate?.finishReason && FILTERED.has(candidate.finishReason) && !candidate.content?.parts?.length)
    return upstreamContentViolation(`blocked by the provider: ${candidate.finishReason}`);
  return null;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0);

/**
 * Gemini usage as chat-completions usage: thoughts are completion tokens (Gemini counts them
 * apart from the candidates), tool-use prompt tokens prompt tokens, and cached content
 * tokens (part of the prompt count) `cached_tokens`, priced at `cacheInput`.
 */
export function usageOf(u: GenerateContentResponseUsageMetadata | undefined): ChatUsage {
  const prompt = count(u?.promptTokenCount) + count(u?.toolUsePromptTokenCount);
  const thoughts = count(u?.thoughtsTokenCount);
  const completion = count(u?.candidatesTokenCount) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(count(u?.cachedContentTokenCount), prompt) },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/**
 * A function call part as a chat-completions tool call (Gemini's own id when it gave one).
 * Its thought signature rides along as `extra_content.google.thought_signature` (the
 * convention of Gemini's own OpenAI-compatible endpoint), for the client to send back:
 * Gemini requires it on the next turn of a thinking model's tool loop.
 */
export function toolCallOf(part: Part, n: number) {
  const call = part.functionCall!;
  return {
    id: call.id ?? `call_${n}`,
    type: 'function',
    function: { name: call.name ?? '', arguments: JSON.stringify(call.args ?? {}) },
    ...(part.thoughtSignature ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {}),
  };
}

/** A Gemini answer as a chat completion: thought parts as `reasoning_content`, function calls as `tool_calls`. */
export function completionOf(answer: GenerateContentAnswer, created: number, fallbackId: string): ChatCompletion {
  if (!answer || typeof answer !== 'object') throw upstreamUnavailable('the upstream sent a broken answer');
  const block = blockOf(answer);
  if (block) throw block;
  const candidate = answer.candidates?.[0];
  if (!candidate) throw upstreamUnavailable('the upstream sent an answer without candidates');
  let content = '';
  let reasoning = '';
  const toolCalls: ReturnType<typeof toolCallOf>[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCallOf(part, toolCalls.length));
    else if (typeof part.text === 'string') {
      if (part.thought) reasoning += part.text;
      else content += part.text;
    }
  }
  return {
    id: answer.responseId ?? fallbackId,
    object: 'chat.completion',
    created,
    model: answer.modelVersion ?? '',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content || (toolCalls.length ? null : ''),
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
        logprobs: null,
      },
    ],
    usage: usageOf(answer.usageMetadata),
  };
}
