import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';

/** Hosts that refuse automated access (the reference names X/Twitter and Reddit): scraping them is refused at once. */
export const DEFAULT_BLOCKED_HOSTS = ['x.com', 'twitter.com', 'reddit.com'];

/** Bytes of one document at most (the reference's 25 MB). */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

const TextParserSchema = T.Object({
  maxBytes: T.Integer({ minimum: 1024, maximum: MAX_DOCUMENT_BYTES, default: MAX_DOCUMENT_BYTES, description: 'Largest file' }),
  timeoutMs: T.Integer({ minimum: 100, default: 20_000, description: 'Parse time per file; a slower one is refused' }),
  maxUncompressedBytes: T.Integer({
    minimum: 1024,
    default: 100 * 1024 * 1024,
    description: 'All parts of a zip, or all streams of a PDF: bytes they may inflate to (zip bombs are refused)',
  }),
  maxPartBytes: T.Integer({
    minimum: 1024,
    default: 64 * 1024 * 1024,
    description: 'One zip part or PDF stream: bytes it may inflate to',
  }),
  maxInflateRatio: T.Integer({
    minimum: 10,
    default: 500,
    description: 'Bytes a zip part or PDF stream may inflate to per compressed byte (past 1 MB)',
  }),
  maxZipEntries: T.Integer({ minimum: 10, default: 5_000, description: 'DOCX, PPTX and XLSX: files in the zip at most' }),
  maxTableCells: T.Integer({ minimum: 100, default: 1_000_000, description: 'Spreadsheet cells read at most' }),
  priceMicros: T.Integer({ minimum: 0, default: 1_000, description: 'Charged per parsed document, micro-USD' }),
  workers: T.Integer({ minimum: 1, maximum: 64, default: 2, description: 'Documents parsed at once (a worker thread each)' }),
  queueSize: T.Integer({ minimum: 0, default: 8, description: 'Documents waiting for a worker at most; past it a 503 with Retry-After' }),
  workerMemoryBytes: T.Integer({
    minimum: 16 * 1024 * 1024,
    default: 256 * 1024 * 1024,
    description: 'Memory one parse may add to the process; past it its worker is terminated and the file refused',
  }),
});

/** The config's `augment` section. Search and scrape prices and limits stay in `search` (shared with chat). */
export const AugmentConfigSchema = T.Object(
  {
    blockedHosts: T.Array(T.String({ minLength: 1 }), {
      default: DEFAULT_BLOCKED_HOSTS,
      description: 'Hosts (and their subdomains) that POST /augment/scrape refuses at once',
    }),
    scrapeMaxChars: T.Integer({ minimum: 1_000, default: 200_000, description: 'Markdown returned per scraped page at most' }),
    textParser: T.Object(TextParserSchema.properties, { default: {} }),
  },
  { additionalProperties: false },
);

/** The validated `augment` section. */
export type AugmentConfig = Static<typeof AugmentConfigSchema>;

/** Validates `config.augment` (absent means defaults); throws ConfigError naming the field. */
export function parseAugmentConfig(config: Pick<Config, 'augment'>): AugmentConfig {
  // Value.Default fills nested defaults only when the object exists.
  const section = { ...config.augment };
  section.textParser ??= {};
  return parseConfigSection(AugmentConfigSchema, section, 'augment');
}
