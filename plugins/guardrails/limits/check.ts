import type { ChatMessage } from '@svc/plugin-sdk';

/** The limits one request may be held to; absent means no limit. */
export interface LimitSet {
  max_input_tokens?: number;
  max_messages?: number;
  max_images?: number;
  max_tools?: number;
}

/** The limits that apply: the default, then the model's, then the key's, each field overriding the one before. */
export function effectiveLimits(
  layers: readonly { scope: string; limits: LimitSet | undefined }[],
): Map<keyof LimitSet, { limit: number; scope: string }> {
  const out = new Map<keyof LimitSet, { limit: number; scope: string }>();
  for (const { scope, limits } of layers)
    if (limits) for (const [k, v] of Object.entries(limits)) if (typeof v === 'number') out.set(k as keyof LimitSet, { limit: v, scope });
  return out;
}

const IMAGE_PARTS = new Set(['image_url', 'input_image', 'image']);

/** Image parts across all messages. */
export function countImages(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) if (Array.isArray(m.content)) for (const p of m.content) if (IMAGE_PARTS.has(p.type)) n++;
  return n;
}

/** What a request has, measured for each limit; tokens only when a token limit applies (counting costs). */
export interface RequestSize {
  messages: number;
  images: number;
  tools: number;
  inputTokens: () => number;
}

/**
 * The first limit the request breaks, as the refusal's reason (naming the limit, its value,
 * what the request has, and whose limit it is), or null.
 */
export function limitBreached(size: RequestSize, limits: ReturnType<typeof effectiveLimits>): string | null {
  const checks: [keyof LimitSet, () => number, string][] = [
    ['max_messages', () => size.messages, 'messages'],
    ['max_images', () => size.images, 'images'],
    ['max_tools', () => size.tools, 'tool definitions'],
    ['max_input_tokens', size.inputTokens, 'input tokens'],
  ];
  for (const [name, measure, what] of checks) {
    const l = limits.get(name);
    if (!l) continue;
    const has = measure();
    if (has > l.limit) return `${name} exceeded: the request has ${has} ${what}, the ${l.scope} limit is ${l.limit}`;
  }
  return null;
}
