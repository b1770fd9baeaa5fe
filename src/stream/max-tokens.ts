/**
 * Completion tokens reserved when the request sets no limit and the model declares none;
 * also the limit native providers send upstream then (Anthropic requires one), so that the
 * upstream never produces more than was reserved.
 */
export const DEFAULT_MAX_COMPLETION_TOKENS = 4096;
