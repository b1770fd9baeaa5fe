/**
 * The `svc_parameters` of a chat request (svc's plugins, docs/plugins.md). Every field is
 * optional; svc ignores keys it does not know. Kept in step with the server's schema by
 * svc's test `test/clients/ai-sdk-provider.test.ts`.
 */
export interface SvcParameters {
  /** Slug of a public character; its system prompt is applied. */
  character_slug?: string;
  /** On supporting reasoning models, disables thinking and strips the `<think></think>` blocks. */
  disable_thinking?: boolean;
  /** Scrapes up to 5 URLs of the user message into the context; charged per scraped URL. */
  enable_web_scraping?: boolean;
  /** `auto`: when the message asks for current facts (always for models without function calling). Charged per search. */
  enable_web_search?: 'off' | 'on' | 'auto';
  /** With web search, asks the model to cite sources as `[REF]0[/REF]`. */
  enable_web_citations?: boolean;
  /** Sends the search results as the first stream chunk (`svc_parameters.web_search_citations`). */
  include_search_results_in_stream?: boolean;
  /** Exposes the search results as a tool call named `svc_web_search_documents`. */
  return_search_results_as_documents?: boolean;
  /** The upstream's native web-plus-social search on supporting models; extra charge. */
  enable_x_search?: boolean;
  /** Whether svc's default system prompt is included before the caller's (default: the model's setting, true on svc's default catalog). */
  include_svc_system_prompt?: boolean;
  /** Strips `<think></think>` blocks from the response. */
  strip_thinking_response?: boolean;
  /** The response cache: serve a stored identical answer or store this one (`use`), replace it (`refresh`), or leave it alone (`bypass`); with `ttl` in seconds. */
  cache?: SvcCacheMode | { mode?: SvcCacheMode; ttl?: number };
  /** Guardrails to run besides the operator's (a request can add, never remove). */
  guardrails?: ('pii' | 'deny_list' | 'limits' | 'output_schema' | 'webhook')[];
  /** With the pii guardrail: the values it redacted from the input are put back into the answer. */
  pii_restore?: boolean;
}

/** A response-cache mode (`svc_parameters.cache`). */
export type SvcCacheMode = 'use' | 'refresh' | 'bypass';

/** A value of `svc_parameters` as sent. */
type SvcParameterValue = SvcParameters[keyof SvcParameters];

/** The options of a call under `providerOptions.svc`. */
export interface SvcProviderOptions {
  svc_parameters?: SvcParameters;
}

/**
 * `providerOptions` for a call with these svc_parameters, typed (the AI SDK's own
 * `providerOptions` accepts any JSON): `generateText({ ..., providerOptions: svcOptions({ enable_web_search: 'auto' }) })`.
 */
export function svcOptions(parameters: SvcParameters): { svc: { svc_parameters: Record<string, NonNullable<SvcParameterValue>> } } {
  const svc_parameters: Record<string, NonNullable<SvcParameterValue>> = {};
  for (const [key, value] of Object.entries(parameters)) if (value !== undefined) svc_parameters[key] = value;
  return { svc: { svc_parameters } };
}
