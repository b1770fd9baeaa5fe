import type { ChatCompletion, ChatUsage } from '../stream/wire';
import type { CitedSource } from './citations';
import { NO_EVENTS, OutputBuilder, type OutputItem } from './output';
import type { ResponsesRequest } from './schema';

/** Token usage as the Responses API reports it. */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The Response object: the fields a response echoes from its request, then its output, usage and svc's cost. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  /** queued, in_progress, cancelled: a background response's states. */
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
  model: string;
  output: OutputItem[];
  /** Only on a failed response: the reference's `error` is an object, never null. */
  error?: { code: string; message: string };
  incomplete_details: { reason: string } | null;
  usage: ResponseUsage | null;
  [field: string]: unknown;
}

/** Chat usage as Responses usage (cached and reasoning tokens in the details, 0 when unknown). */
export function responseUsage(u: ChatUsage): ResponseUsage {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens,
  };
}

/** A response still in progress (the stream's `response.created`), echoing the request's settings. */
export function responseShell(req: ResponsesRequest, id: string, model: string, createdAt: number): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    model,
    output: [],
    incomplete_details: null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    temperature: req.temperature ?? null,
    top_p: req.top_p ?? null,
    tools: req.tools ?? [],
    tool_choice: req.tool_choice ?? 'auto',
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    text: { format: req.text?.format ?? { type: 'text' } },
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    previous_response_id: null,
    store: false,
    background: false,
    metadata: req.metadata ?? {},
    usage: null,
  };
}

/**
 * A chat finish reason as the response's `incomplete_details`: a cut answer says why. Its
 * status stays `completed`: the reference's statuses have no `incomplete` (OpenAI's do); the
 * AI SDK reads the reason for its finish reason.
 */
export function incompleteDetails(finishReason: string | null | undefined): ResponseObject['incomplete_details'] {
  if (finishReason === 'length') return { reason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { reason: 'content_filter' };
  return null;
}

/** What the chat pipeline answers without a stream: the completion with svc's `cost` and echo. */
export type ChatAnswer = ChatCompletion & { cost?: unknown; svc_parameters?: Record<string, unknown> };

/** The sources a chat answer may cite: the web search results its plugins echoed. */
export const citedSources = (echo: Record<string, unknown> | undefined) => echo?.web_search_citations as CitedSource[] | undefined;

/** A non-streamed chat answer as the Response object (the same builder as the stream, with no events). */
export function responseFromChat(shell: ResponseObject, answer: ChatAnswer, idBase: string): ResponseObject {
  const choice = answer.choices[0];
  const builder = new OutputBuilder(idBase, NO_EVENTS, () => citedSources(answer.svc_parameters));
  if (choice) {
    const { content, reasoning_content, reasoning, tool_calls } = choice.message;
    builder.delta({
      content,
      reasoning_content,
      reasoning,
      tool_calls: tool_calls?.map((call, index) => ({ index, ...(call as object) })),
    });
  }
  builder.finish();
  return {
    ...shell,
    status: 'completed',
    incomplete_details: incompleteDetails(choice?.finish_reason),
    output: builder.output,
    usage: responseUsage(answer.usage),
    cost: answer.cost,
    svc_parameters: answer.svc_parameters,
  };
}
