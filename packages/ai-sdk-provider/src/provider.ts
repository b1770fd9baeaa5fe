import { OpenAICompatibleChatLanguageModel, OpenAICompatibleEmbeddingModel, OpenAICompatibleImageModel } from '@ai-sdk/openai-compatible';
import type { EmbeddingModelV3, ImageModelV3, LanguageModelV3, ProviderV3 } from '@ai-sdk/provider';
import { loadApiKey, loadOptionalSetting, withoutTrailingSlash, withUserAgentSuffix, type FetchFunction } from '@ai-sdk/provider-utils';
import { svcErrorStructure } from './errors.js';
import { svcCostMetadata } from './metadata.js';

/** The version of this package, sent in the User-Agent. */
export const VERSION = '0.1.0';

/** Where svc listens when neither `baseURL` nor SVC_BASE_URL says (a local `npm start`). */
export const DEFAULT_BASE_URL = 'http://localhost:8080/api/v1';

/** Options of createSvc. */
export interface SvcProviderSettings {
  /** svc's API base, with its base path: `https://svc.example.com/api/v1`. Default: SVC_BASE_URL, else DEFAULT_BASE_URL. */
  baseURL?: string;
  /** An svc API key (INFERENCE or ADMIN). Default: SVC_API_KEY. */
  apiKey?: string;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** A fetch to call svc with (tests, proxies, `wrapFetchWithPayment`). */
  fetch?: FetchFunction;
  /** Ask for the usage chunk on streams (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
  /**
   * Send `response_format: json_schema` (with the schema) for structured output; false sends
   * `json_object` without it. Default true: svc refuses json_schema with a 400 on a model
   * whose catalog entry has no `supportsResponseSchema`, rather than answering free text.
   */
  structuredOutputs?: boolean;
}

/** The svc provider: `svc(modelId)` is a chat model. */
export interface SvcProvider extends ProviderV3 {
  (modelId: string): LanguageModelV3;
  languageModel(modelId: string): LanguageModelV3;
  chatModel(modelId: string): LanguageModelV3;
  embeddingModel(modelId: string): EmbeddingModelV3;
  textEmbeddingModel(modelId: string): EmbeddingModelV3;
  imageModel(modelId: string): ImageModelV3;
}

/**
 * An AI SDK provider for svc, on `@ai-sdk/openai-compatible`'s models with svc's defaults:
 * errors carry svc's `error` string, streams report usage, structured output sends
 * `json_schema`, `providerOptions.svc.svc_parameters` reaches svc (see svcOptions), and
 * `providerMetadata.svc.cost` holds what svc charged.
 */
export function createSvc(settings: SvcProviderSettings = {}): SvcProvider {
  const baseURL = withoutTrailingSlash(
    loadOptionalSetting({ settingValue: settings.baseURL, environmentVariableName: 'SVC_BASE_URL' }) ?? DEFAULT_BASE_URL,
  ) as string;
  const headers = () =>
    withUserAgentSuffix(
      {
        Authorization: `Bearer ${loadApiKey({ apiKey: settings.apiKey, environmentVariableName: 'SVC_API_KEY', description: 'svc' })}`,
        ...settings.headers,
      },
      `svc-ai-sdk-provider/${VERSION}`,
    );
  // `svc.<kind>`: the part before the dot is the providerOptions key, `svc`.
  const common = (kind: string) => ({
    provider: `svc.${kind}`,
    url: ({ path }: { path: string }) => `${baseURL}${path}`,
    headers,
    fetch: settings.fetch,
    errorStructure: svcErrorStructure,
  });
  const chatModel = (modelId: string) =>
    new OpenAICompatibleChatLanguageModel(modelId, {
      ...common('chat'),
      includeUsage: settings.includeUsage ?? true,
      supportsStructuredOutputs: settings.structuredOutputs ?? true,
      metadataExtractor: svcCostMetadata,
    });
  const embeddingModel = (modelId: string) => new OpenAICompatibleEmbeddingModel(modelId, common('embedding'));
  const imageModel = (modelId: string) => new OpenAICompatibleImageModel(modelId, common('image'));

  return Object.assign((modelId: string) => chatModel(modelId), {
    specificationVersion: 'v3' as const,
    languageModel: chatModel,
    chatModel,
    embeddingModel,
    textEmbeddingModel: embeddingModel,
    imageModel,
  });
}

/** A provider with the default settings (SVC_BASE_URL and SVC_API_KEY from the environment). */
export const svc = createSvc();
