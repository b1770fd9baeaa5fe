// Defined below the families, in src/stream/, so that providers can import it too.
export { DEFAULT_MAX_COMPLETION_TOKENS } from '../stream/max-tokens';
