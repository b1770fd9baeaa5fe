import { seedOf } from './sample';

/** One token's log probability, in the chat-completions `logprobs.content[]` shape. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

const encoder = new TextEncoder();
const bytesOf = (s: string) => [...encoder.encode(s)];
const ALTERNATIVES = [
  ' the',
  ' a',
  ',',
  '.',
  ' and',
  ' of',
  ' to',
  ' is',
  ' in',
  ' it',
  ' that',
  ' you',
  ' this',
  ' for',
  ' on',
  ' with',
  ' as',
  ' be',
  ' at',
  ' by',
];

/**
 * Made-up but well-formed log probabilities for `tokens`: the chosen token is always the
 * most likely (logprob in [-0.5, 0], fixed per token and position), followed by up to
 * `top` (0..20) less likely alternatives, as `logprobs: true, top_logprobs: k` asks.
 */
export function logprobsOf(tokens: string[], top: number): TokenLogprob[] {
  const k = Math.max(0, Math.min(20, Math.floor(top)));
  return tokens.map((token, i) => {
    const logprob = -((seedOf(`${i}:${token}`) % 500) / 1000);
    const alternatives = ALTERNATIVES.filter((a) => a !== token)
      .slice(0, Math.max(0, k - 1))
      .map((alt, j) => ({ token: alt, logprob: Math.round((logprob - 1.5 - j * 0.75) * 1000) / 1000, bytes: bytesOf(alt) }));
    const chosen = { token, logprob, bytes: bytesOf(token) };
    return { ...chosen, top_logprobs: k > 0 ? [chosen, ...alternatives] : [] };
  });
}
