import { describe, expect, test } from 'bun:test';
import { regexRefusal } from './safety';

describe('regexRefusal', () => {
  test.each([
    ['(a+)+$', 'nested quantifiers'],
    ['(\\w+\\s?)*$', 'nested quantifiers'],
    ['(x+x+)+y', 'nested quantifiers'],
    ['(.*a){12}', 'nested quantifiers'],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', 'nested quantifiers'],
    ['(?:a{1,20}){1,20}', 'nested quantifiers'],
    ['(a)\\1', 'back-reference'],
    ['(?<x>a)\\k<x>', 'back-reference'],
    ['(unclosed', 'not a valid regular expression'],
    ['a'.repeat(1001), 'longer than 1000'],
  ])('refuses %j', (pattern, reason) => {
    expect(regexRefusal(pattern)).toContain(reason);
  });

  test.each([
    '\\bpass(word)?\\b',
    '(?<![a-z])secret',
    '\\p{L}+\\d',
    '[a-z]+@[a-z]+\\.com',
    '(\\d{1,3}\\.){3}\\d{1,3}',
    'project\\s+(apollo|gemini)',
    'a{1,5}b',
  ])('accepts %j', (pattern) => {
    expect(regexRefusal(pattern)).toBeNull();
  });

  test('a refused pattern really is slow, an accepted one of the same job is not', () => {
    const text = 'a'.repeat(24) + '!';
    let t = performance.now();
    new RegExp('^(a+)+$').test(text);
    const slow = performance.now() - t;
    t = performance.now();
    new RegExp('^a+$').test(text);
    const fast = performance.now() - t;
    expect(slow).toBeGreaterThan(fast * 10);
  });
});
