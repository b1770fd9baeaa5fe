// Shared with plugins through the SDK (strip_thinking_response holds back the same tags).
export { partialTagLength } from '@svc/plugin-sdk';
