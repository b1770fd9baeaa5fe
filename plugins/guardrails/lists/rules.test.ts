import { describe, expect, test } from 'bun:test';
import { normalizeForMatch } from './normalize';
import { compileRules, matchingRules, RuleError } from './rules';

const deny = compileRules(
  [
    { name: 'codename', words: ['apollo'], on: 'both' },
    { name: 'phrase', phrases: ['drop table'], on: 'input' },
    { name: 'ticket', regex: 'tkt-\\d{4}', on: 'output', action: 'flag' },
  ],
  'deny',
);
const allow = compileRules([{ name: 'mission', phrases: ['apollo 11'] }], 'allow');
const match = (text: string, side: 'input' | 'output' = 'input') => matchingRules(text, side, deny, allow)[0]?.name ?? null;

describe('normalizeForMatch', () => {
  test.each([
    ['ＡＰＯＬＬＯ', 'apollo'],
    ['apo\u200Bllo', 'apollo'],
    ['аpоllо', 'apollo'], // Cyrillic а and о
    ['ÀPÖLLÔ', 'apollo'],
    ['𝐚𝐩𝐨𝐥𝐥𝐨', 'apollo'],
    ['ﬁle', 'file'],
    ['plain', 'plain'],
  ])('%j → %j', (input, out) => {
    expect(normalizeForMatch(input)).toBe(out);
  });
});

describe('deny and allow lists', () => {
  test.each([
    ['the Apollo plan', 'codename'],
    ['the ａｐｏｌｌｏ plan', 'codename'],
    ['the apo\u200Dllo plan', 'codename'],
    ['the аpоllо plan', 'codename'],
    ['please DROP   TABLE users', 'phrase'],
  ])('%j is denied by %s', (text, rule) => {
    expect(match(text)).toBe(rule);
  });

  test.each([['apollonia is a name'], ['we watched apollo 11 landing'], ['drop the table'], ['tkt-1234 is only checked on output']])(
    '%j passes',
    (text) => {
      expect(match(text)).toBeNull();
    },
  );

  test('side and action', () => {
    expect(matchingRules('see TKT-4321', 'output', deny, allow)).toMatchObject([{ name: 'ticket', action: 'flag' }]);
    expect(matchingRules('TKT-4321 on apollo', 'output', deny, allow).map((r) => r.name)).toEqual(['codename', 'ticket']);
    expect(match('drop table x', 'output')).toBeNull();
  });

  test('a pathological regex or an empty rule is refused with the rule named', () => {
    expect(() => compileRules([{ name: 'bad', regex: '(a+)+$' }], 'deny')).toThrow(
      new RuleError(
        'rule bad: regex refused: nested quantifiers: a+ repeated inside (a+)+ can backtrack catastrophically on a crafted text (rewrite without a repeat inside a repeat)',
      ),
    );
    expect(() => compileRules([{}], 'deny')).toThrow('rule deny[0]: has no words, phrases or regex');
  });
});
