// Cost of the pii stream redaction: `bun plugins/guardrails/pii/bench.ts`. Tokens like a real
// answer (prose with an e-mail, a phone number and a card now and then); prints the CPU per
// chunk and how many characters the redactor held back (the latency it adds, in characters).
import { PII_CLASSES } from './detect';
import { Redactor } from './redact';
import { StreamRedactor } from './stream';

const TEXT =
  'Thanks for reaching out! I have updated the record for the customer, and you can reach them at jane.roe@example.org ' +
  'or on +1 415 555 2671 during office hours. The refund goes to the card 4111 1111 1111 1111 within five business days; ' +
  'version 1.2.3.4 of the app fixed the issue on 2024-05-06. Let me know if anything else comes up. ';
// Tokens of 1-6 characters cut at word boundaries, as an LLM stream arrives.
const TOKENS = TEXT.match(/\s?[^\s]{1,6}|\s/g) ?? [];
const N = 50_000;

const redactor = new Redactor(new Set(PII_CLASSES), { phoneRegion: 'US' });
const stream = new StreamRedactor(redactor);
let heldSum = 0;
let out = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const piece = TOKENS[i % TOKENS.length]!;
  out += stream.push(piece).length;
  heldSum += stream.held;
}
out += stream.end().length;
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    chunks: N,
    outChars: out,
    usPerChunkWall: +((wall * 1000) / N).toFixed(2),
    usPerChunkCpu: +((cpu.user + cpu.system) / N).toFixed(2),
    heldCharsMean: +(heldSum / N).toFixed(1),
    heldCharsMax: stream.maxHeld,
  }),
);
