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
};

/** Throws unless the suite knows where to go and with which key. */
export function requireTarget(): void {
  if (!env.baseUrl || !env.apiKey)
    throw new Error(
      'contract: set SVC_BASE_URL (e.g. https://host/api/v1) and SVC_API_KEY (an ADMIN key), or use npm run contract -- --help',
    );
}

/** Prints why a check does not apply to this deployment (the report keeps the reason). */
export function skipped(check: string, reason: string): void {
  process.stdout.write(`contract: skipped ${check}: ${reason}\n`);
}
