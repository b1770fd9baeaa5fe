import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';

/** The `responses` config section: whether the Responses API stores responses, and for how long. */
export const ResponsesConfigSchema = T.Object({
  /** Store responses (`store` defaults to true, as in OpenAI's API); false: nothing is stored, `store: true` is ignored. */
  store: T.Boolean({ default: true }),
  /** Days a stored response is kept; the sweep deletes it after. */
  retentionDays: T.Integer({ minimum: 1, maximum: 3650, default: 30 }),
  /** How often stored responses are written (a batch per period, off the response's path). */
  flushIntervalMs: T.Integer({ minimum: 5, default: 100 }),
  /** How often expired responses are swept. */
  sweepIntervalMs: T.Integer({ minimum: 1000, default: 60 * 60_000 }),
  /** The longest `previous_response_id` chain followed (older turns are left out). */
  maxChainLength: T.Integer({ minimum: 1, maximum: 10_000, default: 1000 }),
});
/** The validated `responses` section. */
export type ResponsesConfig = Static<typeof ResponsesConfigSchema>;

/** The responses section of the config, validated (a bad field stops the start). */
export function responsesConfigOf(config: Config): ResponsesConfig {
  return parseConfigSection(ResponsesConfigSchema, config.responses, 'responses');
}
