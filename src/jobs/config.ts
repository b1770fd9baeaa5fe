import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';

/** Config `jobs`: the job runner's pace and limits, and where finished media is kept. */
export const JobsConfigSchema = T.Object({
  /** How often each instance looks for jobs due for a poll. */
  pollIntervalMs: T.Integer({ minimum: 10, default: 1000 }),
  /** The first wait between two polls of a job; it doubles per poll up to maxPollDelayMs. */
  minPollDelayMs: T.Integer({ minimum: 10, default: 1000 }),
  maxPollDelayMs: T.Integer({ minimum: 10, default: 15_000 }),
  /** How long a claim lasts: a worker that died frees its jobs after this. */
  leaseMs: T.Integer({ minimum: 100, default: 60_000 }),
  /** A job not finished by then is refunded. */
  deadlineMs: T.Integer({ minimum: 100, default: 60 * 60_000 }),
  /** Jobs claimed per round per instance. */
  batch: T.Integer({ minimum: 1, maximum: 1000, default: 8 }),
  /** One upstream poll or download, at most. */
  upstreamTimeoutMs: T.Integer({ minimum: 100, default: 120_000 }),
  /** Largest finished media accepted from an upstream, and largest input media fetched from a URL. */
  maxMediaBytes: T.Integer({ minimum: 1024, default: 512 * 1024 * 1024 }),
  maxInputBytes: T.Integer({ minimum: 1024, default: 50 * 1024 * 1024 }),
  inputTimeoutMs: T.Integer({ minimum: 100, default: 20_000 }),
  /** The asr model /video/transcriptions uses (default: the catalog's first asr model). */
  transcriptionModel: T.Optional(T.String({ minLength: 1 })),
  /** Where media is kept on disk (default `<dataDir>/media`) when no bucket is configured. */
  mediaDir: T.Optional(T.String({ minLength: 1 })),
  /** An S3-compatible bucket for finished media (Bun's built-in S3 client). */
  s3: T.Optional(
    T.Object({
      bucket: T.String({ minLength: 1 }),
      endpoint: T.Optional(T.String({ pattern: '^https?://' })),
      region: T.Optional(T.String({ minLength: 1 })),
      accessKeyId: T.Optional(T.String({ minLength: 1 })),
      secretAccessKey: T.Optional(T.String({ minLength: 1 })),
      /** Key prefix inside the bucket. */
      prefix: T.String({ default: 'media/' }),
    }),
  ),
});
/** The validated `jobs` section. */
export type JobsConfig = Static<typeof JobsConfigSchema>;

/** The jobs section of the config, validated (a bad field stops the start). */
export function jobsConfigOf(config: Config): JobsConfig {
  return parseConfigSection(JobsConfigSchema, config.jobs, 'jobs');
}
