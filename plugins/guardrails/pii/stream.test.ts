import { describe, expect, test } from 'bun:test';
import { PII_CLASSES, type PiiClass } from './detect';
import { Redactor, restorePlaceholders } from './redact';
import { chainStages, stagesTransformer, type ChatChunk, type TextStage } from '@svc/plugin-sdk';
import { heldFrom, StreamRedactor, StreamRestorer } from './stream';

const ALL = new Set<PiiClass>(PII_CLASSES);
const redactor = () => new Redactor(ALL, { phoneRegion: 'US' });

function run(stage: TextStage, pieces: readonly string[]): string {
  let out = '';
  for (const p of pieces) out += stage.push(p);
  return out + stage.end();
}

/** Every way of cutting `text` into three pieces (two cut points). */
function* threeWaySplits(text: string): Generator<string[]> {
  for (let i = 0; i <= text.length; i++) for (let j = i; j <= text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
}

describe('Redactor', () => {
  test('the same value gets the same placeholder; numbering is per class', () => {
    const r = redactor();
    expect(r.redact('a@b.io, c@d.io, a@b.io and 4111111111111111')).toBe('[EMAIL_1], [EMAIL_2], [EMAIL_1] and [CARD_1]');
    expect(r.redact('again a@b.io')).toBe('again [EMAIL_1]');
  });

  test('restore puts back only known placeholders', () => {
    const r = redactor();
    r.redact('mail a@b.io');
    const known = r.snapshot();
    r.redact('x@y.io');
    expect(restorePlaceholders('to [EMAIL_1], not [EMAIL_2] nor [CARD_9]', known)).toBe('to a@b.io, not [EMAIL_2] nor [CARD_9]');
  });
});

describe('heldFrom', () => {
  test.each([
    ['plain words ', 12],
    ['plain words and a@b.c', 16],
    ['card 4111 1111 11', 5],
    ['card 4111 ', 5],
    ['iban GB82 WEST 1234', 5],
    ['say hello world', 10],
    ['x -----BEGIN RSA PRIV', 2],
    ['x -----BEGIN CERTIFICATE----- abc', 30],
  ])('%j → %d', (s, at) => {
    expect(heldFrom(s)).toBe(at);
  });
});

describe('StreamRedactor', () => {
  const text = 'Mail jo.e@ex.io or +1 415 555 2671; card 4111 1111 1111 1111, not 4111 1111 1111 1112. Bye';
  const expected = 'Mail [EMAIL_1] or [PHONE_1]; card [CARD_1], not 4111 1111 1111 1112. Bye';

  test('whole text at once', () => {
    expect(run(new StreamRedactor(redactor()), [text])).toBe(expected);
  });

  test('every split of the text into two pieces gives the same answer', () => {
    for (let i = 0; i <= text.length; i++) expect(run(new StreamRedactor(redactor()), [text.slice(0, i), text.slice(i)])).toBe(expected);
  });

  test.each([
    ['to jo.e@ex.io.', 'to [EMAIL_1].'],
    ['call +1 415 555 2671 ok', 'call [PHONE_1] ok'],
    ['card 4111 1111 1111 1111, not 4111 1111 1111 1112', 'card [CARD_1], not 4111 1111 1111 1112'],
    ['at DE89 3704 0044 0532 0130 00.', 'at [IBAN_1].'],
  ])(
    'every split of %j into three pieces',
    (input, output) => {
      let cases = 0;
      for (const pieces of threeWaySplits(input)) {
        expect(run(new StreamRedactor(redactor()), pieces)).toBe(output);
        cases++;
      }
      expect(cases).toBeGreaterThan(100);
    },
    60_000,
  );

  test('one character per piece', () => {
    expect(run(new StreamRedactor(redactor()), [...text])).toBe(expected);
  });

  test('a private key split anywhere is redacted whole', () => {
    const pem = 'k: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY----- done';
    for (let i = 0; i <= pem.length; i++)
      expect(run(new StreamRedactor(redactor()), [pem.slice(0, i), pem.slice(i)])).toBe('k: [SECRET_1] done');
  });

  test('holds back only the unfinished run: ordinary prose passes word by word', () => {
    const s = new StreamRedactor(redactor());
    expect(s.push('Hello there, ')).toBe('Hello there, ');
    expect(s.push('how are yo')).toBe('how are ');
    expect(s.push('u?')).toBe('');
    expect(s.end()).toBe('you?');
  });
});

describe('StreamRestorer', () => {
  const known = new Map([
    ['[EMAIL_1]', 'jo.e@ex.io'],
    ['[CARD_1]', '4111111111111111'],
  ]);
  const text = 'Write to [EMAIL_1] with [CARD_1]; [x] and [EMAIL_7] stay [';
  const expected = 'Write to jo.e@ex.io with 4111111111111111; [x] and [EMAIL_7] stay [';

  test('every split of the text into three pieces', () => {
    for (const pieces of threeWaySplits(text)) expect(run(new StreamRestorer(known), pieces)).toBe(expected);
  });

  test("redact then restore in a chain: new values in the answer stay redacted, the input's come back", () => {
    const r = redactor();
    r.redact('my mail jo.e@ex.io');
    const chain = chainStages([new StreamRedactor(r), new StreamRestorer(r.snapshot())]);
    expect(run(chain, ['Sure [EMA', 'IL_1], and boss@', 'corp.com too'])).toBe('Sure jo.e@ex.io, and [EMAIL_2] too');
  });
});

describe('tool-call arguments through stagesTransformer', () => {
  /** The chunks of one tool call whose arguments come in `pieces`, then the finish chunk. */
  const chunks = (pieces: string[]): ChatChunk[] => {
    const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: string | null = null): ChatChunk => ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    return [
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'send', arguments: '' } }] }),
      ...pieces.map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })),
      chunk({}, 'tool_calls'),
    ];
  };
  /** The arguments the client assembles from what the transformer emitted. */
  const assembled = (out: ChatChunk[]) =>
    out
      .flatMap((c) => c.choices.flatMap((ch) => (ch.delta.tool_calls ?? []) as { function?: { arguments?: string } }[]))
      .map((call) => call.function?.arguments ?? '')
      .join('');

  test('every split into three pieces: the placeholder restored (JSON-escaped), the model’s own address redacted', () => {
    const r = redactor();
    r.redact('key -----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY----- and mail a@b.io');
    const known = new Map([...r.snapshot()].map(([p, v]) => [p, JSON.stringify(v).slice(1, -1)]));
    const args = '{"to":"[EMAIL_1]","cc":"boss@corp.io","key":"[SECRET_1]"}';
    let cases = 0;
    for (const pieces of threeWaySplits(args)) {
      const t = stagesTransformer(() => chainStages([new StreamRedactor(r), new StreamRestorer(known)]), ['tool_arguments']);
      const out: ChatChunk[] = [];
      for (const c of chunks(pieces)) t.transform(c, (x) => out.push(x));
      t.flush?.((x) => out.push(x));
      expect(JSON.parse(assembled(out))).toEqual({
        to: 'a@b.io',
        cc: '[EMAIL_2]',
        key: '-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----',
      });
      expect(out.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
      cases++;
    }
    expect(cases).toBeGreaterThan(1000);
  });
});
