import { describe, expect, test } from 'bun:test';
import { colorsFor, painted, PALETTE } from '../../console/src/colors';
import { groupByRequest, type Entry } from '../../console/src/pages/ledger-groups';

describe('chart colours', () => {
  const names = ['Llama 3.3 70B', 'Qwen 3 4B', 'Venice Uncensored', 'browser key', 'Bootstrap admin key', 'GLM 4.6'];

  test('one distinct palette colour per name, whatever the order the charts list them in', () => {
    const a = colorsFor(names);
    const b = colorsFor([...names].reverse());
    expect([...a].sort()).toEqual([...b].sort());
    const used = names.map((n) => a.get(n));
    expect(new Set(used).size).toBe(names.length);
    for (const c of used) expect(PALETTE).toContain(c as string);
    expect(a.get('other')).not.toBeOneOf(PALETTE);
  });

  test('every chart of a page gets the same colour for a name, though each ranks its lines differently', () => {
    const line = (label: string) => ({ label, values: [1] });
    const charts = painted({
      requests: ['a', 'b', 'c'].map(line),
      tokens: ['c', 'a', 'other'].map(line),
      spend: ['b', 'c'].map(line),
    });
    const colour = (chart: keyof typeof charts, label: string) => charts[chart].find((l) => l.label === label)?.color;
    expect(colour('tokens', 'a')).toBe(colour('requests', 'a') as string);
    expect(colour('spend', 'c')).toBe(colour('requests', 'c') as string);
    expect(colour('spend', 'b')).toBe(colour('requests', 'b') as string);
    expect(new Set(['a', 'b', 'c'].map((n) => colour('requests', n))).size).toBe(3);
  });

  test('past eight names colours repeat, and every name still has one', () => {
    const many = Array.from({ length: 12 }, (_, i) => `model-${i}`);
    const colors = colorsFor(many);
    expect(many.every((n) => PALETTE.includes(colors.get(n) as string))).toBe(true);
    expect(new Set(many.map((n) => colors.get(n))).size).toBe(PALETTE.length);
  });
});

describe('ledger rows by request', () => {
  const line = (requestId: string, sku: string, amount: number, timestamp = '2026-12-06T08:00:00.000Z', currency = 'USD'): Entry => ({
    timestamp,
    sku,
    pricePerUnitUsd: 1,
    unit: 1,
    amount,
    currency,
    notes: 'API Inference',
    requestId,
    apiKeyId: 'k',
    modelId: 'm',
    inferenceDetails: { requestId, promptTokens: 3, completionTokens: 4 },
  });

  test("a request's lines make one row with exact totals; a later refund of it is a row of its own", () => {
    const groups = groupByRequest([
      line('r2', 'out', 0.000002, '2026-12-06T08:00:02.000Z'),
      line('r2', 'in', 0.000001, '2026-12-06T08:00:02.000Z'),
      line('r1', 'search', -0.1, '2026-12-06T08:00:01.000Z'),
      line('r1', 'out', 0.3),
      line('r1', 'in', 0.1),
      line('r1', 'diem', 0.5, '2026-12-06T08:00:00.000Z', 'DIEM'),
    ]);
    expect(groups.map((g) => [g.key, g.lines.map((l) => l.sku), g.totals])).toEqual([
      ['r2', ['out', 'in'], [['USD', 0.000003]]],
      ['r1', ['search'], [['USD', -0.1]]],
      [
        'r1#1',
        ['out', 'in', 'diem'],
        [
          ['USD', 0.4],
          ['DIEM', 0.5],
        ],
      ],
    ]);
  });
});
