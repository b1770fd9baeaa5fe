// Defined below the families, in src/stream/, so that providers can import it too.
export { clientIndexOf, rememberClientIndexes } from '../stream/message-index';
