import { guardrails } from './assign';
import { denyList } from './lists';
import { limits } from './limits';
import { pii } from './pii';
import { outputSchema } from './schema';
import { webhook } from './webhook';

export { GUARDRAIL_NAMES } from './assign';

/**
 * The built-in guardrails, in the order they run: `guardrails` first (it resolves which of
 * the others run), then the cheap refusals before the costly or changing ones: limits, the
 * deny list (on the original text), the classifier, PII redaction, the output schema.
 */
export const GUARDRAILS = [guardrails, limits, denyList, webhook, pii, outputSchema];
