import type { ChatChunk, PluginContext, SearchResult } from '@svc/plugin-sdk';

/** The tool call name under which search results are exposed as documents. */
export const DOCUMENTS_TOOL = 'svc_web_search_documents';

/** The system text that hands the search results to the model. */
export function searchContext(results: SearchResult[], citations: boolean, today: string): string {
  const lines = [
    `Web search results for the user's latest message (retrieved ${today}). Use them when they are relevant; prefer them over older knowledge.`,
  ];
  results.forEach((r, i) => {
    lines.push('', `[${i}] ${r.title}`, `URL: ${r.url}`);
    if (r.date) lines.push(`Published: ${r.date}`);
    if (r.content) lines.push(r.content);
  });
  if (citations)
    lines.push(
      '',
      'Cite the results you use right after the statement they support, as [REF]index[/REF] with the number of the result, ' +
        'for example [REF]0[/REF], or [REF]0[/REF][REF]2[/REF] for several. Do not cite results you did not use, and never invent an index.',
    );
  return lines.join('\n');
}

/** The `documents` argument of the svc_web_search_documents tool call. */
export function documentsArguments(results: SearchResult[]): string {
  return JSON.stringify({
    documents: results.map((r, i) => ({ id: String(i), title: r.title, url: r.url, snippet: r.content, published_at: r.date ?? null })),
  });
}

/** The tool call object (non-streaming message form). */
export const documentsToolCall = (results: SearchResult[]) => ({
  id: DOCUMENTS_TOOL,
  type: 'function' as const,
  function: { name: DOCUMENTS_TOOL, arguments: documentsArguments(results) },
});

function leadingChunk(ctx: PluginContext, fields: Pick<ChatChunk, 'choices'> & Record<string, unknown>): ChatChunk {
  return {
    id: `chatcmpl-${ctx.request.requestId}`,
    object: 'chat.completion.chunk',
    created: Math.floor(ctx.services.now() / 1000),
    model: ctx.model.id,
    ...fields,
  };
}

/** The first stream chunk carrying the citations (include_search_results_in_stream). */
export const citationsChunk = (ctx: PluginContext, results: SearchResult[]) =>
  leadingChunk(ctx, { choices: [], svc_parameters: { web_search_citations: results } });

/** The first stream chunk of an `auto` search that had no engine: the stream's form of the echo. */
export const unavailableChunk = (ctx: PluginContext, notice: string) =>
  leadingChunk(ctx, { choices: [], svc_parameters: { web_search_unavailable: notice } });

/** A stream chunk carrying the documents tool call (return_search_results_as_documents). */
export const documentsChunk = (ctx: PluginContext, results: SearchResult[]) =>
  leadingChunk(ctx, {
    choices: [
      {
        index: 0,
        delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, ...documentsToolCall(results) }] },
        finish_reason: null,
      },
    ],
  });
