import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';
import type { Logger } from '../log';
import { responseJsonUpTo } from '../net/limited-body';

/** Bytes of a classifier answer read at most: it is `{"nsfw": true}` and little more. */
const CLASSIFIER_ANSWER_BYTES = 64 * 1024;

/** Config `images`: the optional adult-content classifier that safe mode consults. */
export const ImagesConfigSchema = T.Object({
  safetyClassifier: T.Optional(
    T.Object({
      /** POSTed each image's bytes (Content-Type image/...); answers JSON `{ "nsfw": true|false }`. */
      url: T.String({ pattern: '^https?://' }),
      apiKey: T.Optional(T.String({ minLength: 1 })),
      timeoutMs: T.Integer({ minimum: 100, default: 5000 }),
    }),
  ),
});
export type ImagesConfig = Static<typeof ImagesConfigSchema>;

/** Whether an image is adult content, as the configured classifier says. */
export type AdultClassifier = (image: Uint8Array, mediaType: string, requestId?: string) => Promise<boolean>;

/** The images section of the config, validated (a bad field stops the start). */
export function imagesConfigOf(config: Config): ImagesConfig {
  return parseConfigSection(ImagesConfigSchema, config.images, 'images');
}

/**
 * The configured classifier, or none. It is the operator's own service (not a user URL, so
 * no SSRF guard). It fails closed: an error or timeout counts as adult, so under safe mode
 * the image is blurred rather than shown unchecked, and the failure is logged.
 */
export function adultClassifier(config: ImagesConfig, o: { fetch: typeof fetch; log: Logger }): AdultClassifier | undefined {
  const c = config.safetyClassifier;
  if (!c) return undefined;
  const headers: Record<string, string> = c.apiKey ? { authorization: `Bearer ${c.apiKey}` } : {};
  return async function classify(image, mediaType, requestId) {
    try {
      const res = await o.fetch(c.url, {
        method: 'POST',
        headers: { ...headers, 'content-type': mediaType },
        body: image as Uint8Array<ArrayBuffer>,
        signal: AbortSignal.timeout(c.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = await responseJsonUpTo<{ nsfw?: unknown }>(res, CLASSIFIER_ANSWER_BYTES);
      if (typeof body.nsfw !== 'boolean') throw new Error('the answer has no boolean "nsfw"');
      return body.nsfw;
    } catch (error) {
      o.log.warn('image safety classifier failed; the image is treated as adult content', { requestId, error: String(error) });
      return true;
    }
  };
}
