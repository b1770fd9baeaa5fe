/**
 * `bun bench/tools/tokenizer.ts`: what the prompt estimate costs per request. The chat route counts
 * the prompt with the o200k_base tokenizer (src/tokenizer/) before reserving; this prints µs
 * per count for the bench's short prompt and for longer ones.
 */
import { chatPromptTokens } from '../../src/pipeline/tokens';
import type { ChatMessage } from '../../src/stream/wire';

const prompts: [string, ChatMessage[]][] = [
  ['bench prompt (10 chars)', [{ role: 'user', content: 'Say hello.' }]],
  [
    'system + user (~1,000 chars)',
    [
      { role: 'system', content: 'You are a helpful assistant. '.repeat(20) },
      { role: 'user', content: 'Summarise the history of Rome in three sentences. '.repeat(8) },
    ],
  ],
  [
    'long user message (~10,000 chars)',
    [{ role: 'user', content: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(175) }],
  ],
];

for (const [label, messages] of prompts) {
  for (let i = 0; i < 200; i++) chatPromptTokens(messages);
  const n = 2000;
  const t0 = performance.now();
  let tokens = 0;
  for (let i = 0; i < n; i++) tokens = chatPromptTokens(messages);
  const us = ((performance.now() - t0) * 1000) / n;
  process.stdout.write(`${label}: ${tokens} tokens, ${us.toFixed(1)} us per count\n`);
}
