import type { AnyRequestPlugin } from '../src/pipeline/plugin';
import { cache } from './cache';
import { characterSlug } from './character_slug';
import { disableThinking } from './disable_thinking';
import { enableWebScraping } from './enable_web_scraping';
import { enableWebSearch } from './enable_web_search';
import { enableXSearch } from './enable_x_search';
import { GUARDRAILS } from './guardrails';
import { includeSvcSystemPrompt } from './include_svc_system_prompt';
import { stripThinkingResponse } from './strip_thinking_response';

/**
 * The svc_parameters plugins, in the order they run. Adding an option is one folder in
 * plugins/ and one line here; the request schema and OpenAPI description follow from it.
 */
export const PLUGINS: AnyRequestPlugin[] = [
  // Guardrails first: the input is checked and redacted before search or scraping sees it.
  ...GUARDRAILS,
  // System text is prepended, so the plugin whose text must read first runs last.
  enableXSearch,
  enableWebScraping,
  enableWebSearch,
  characterSlug,
  includeSvcSystemPrompt,
  stripThinkingResponse,
  disableThinking,
  // Last: it answers from the request as every other plugin left it.
  cache,
];
