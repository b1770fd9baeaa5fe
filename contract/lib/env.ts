import { appendFileSync } from 'node:fs';

/** Where the suite points and what it may do, from the environment (`contract/run.ts` sets it from flags). */
export const env = {
  /** The deployment's base URL, version prefix included, e.g. `https://host/api/v1`. */
  baseUrl: (process.env.SVC_BASE_URL ?? '').replace(/\/+$/, ''),
  /** An ADMIN API key of the deployment. */
  apiKey: process.env.SVC_API_KEY ?? '',
  /** An INFERENCE key, for the wrong-key-type checks without `--write`. */
  inferenceKey: process.env.SVC_INFERENCE_KEY ?? '',
  /** `--write`: also create and delete a key, and with an operator key a scratch account (nothing is left behind). */
  write: process.env.CONTRACT_WRITE === '1',
  /** `--reference <file>`: also validate bodies against this OpenAPI description. */
  reference: process.env.CONTRACT_REFERENCE ?? '',
  /**
   * The deployment's abuse guard (spec 7): more than `abuseMaxFailures` non-success answers in
   * `abuseWindow` seconds block the caller; 0 means no guard (the suite then sends unpaced).
   */
  abuseMaxFailures: number(process.env.CONTRACT_ABUSE_MAX_FAILURES, 20),
  abuseWindow: number(process.env.CONTRACT_ABUSE_WINDOW, 30),
  /** How long a whole run may take: the deliberate failures are budgeted to fit. */
  maxSeconds: number(process.env.CONTRACT_MAX_SECONDS, 120),
  /** `--bad-input all|<n>`: every generated bad-input case, or this many; unset: as many as the budget allows. */
  badInput: process.env.CONTRACT_BAD_INPUT ?? '',
  /** `--seed <n>`: which sample of the bad-input cases runs (printed, so a run can be repeated). */
  seed: number(process.env.CONTRACT_SEED, 0),
};

function number(text: string | undefined, fallback: number): number {
  const n = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`contract: ${text} is not a whole number`);
  return n;
}

/** Throws unless the suite knows where to go and with which key. */
export function requireTarget(): void {
  if (!env.baseUrl || !env.apiKey)
    throw new Error(
      'contract: set SVC_BASE_URL (e.g. https://host/api/v1) and SVC_API_KEY (an ADMIN key), or use npm run contract -- --help',
    );
}

/** Prints why a check does not apply to this deployment (the report keeps the reason). */
export function skipped(check: string, reason: string): void {
  note(`contract: skipped ${check}: ${reason}`);
}

/** Prints a line of the report, and keeps it for the summary `npm run contract` prints at the end (CONTRACT_NOTES). */
export function note(line: string): void {
  process.stdout.write(`${line}\n`);
  if (process.env.CONTRACT_NOTES) appendFileSync(process.env.CONTRACT_NOTES, `${line}\n`);
}
