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
    ['(a|aa)+$', 'overlapping alternatives'],
    ['^(\\w|\\d)+$', 'overlapping alternatives'],
    ['(.|\\s)*x', 'overlapping alternatives'],
    ['(?:foo|f[a-z]o)*!', 'overlapping alternatives'],
    ['(x|[a-z]y){11,}', 'overlapping alternatives'],
    ['(é|É)+z', 'overlapping alternatives'],
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
    '(cat|dog)+',
    '(\\d|[a-f])+$',
    '(?:\\s|[a-z])*;',
    '(a|aa){2}',
    '(?:https?|ftp)://\\S+',
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

  // Each refused pattern on a crafted text of ~30 characters takes longer than the accepted
  // ones on a crafted text a thousand times that long: a ratio in the same run, not a time.
  test('refused overlapping alternatives really are slow; the accepted ones are not', () => {
    // The best of three runs: a garbage collection or a busy machine only makes one run slower.
    const time = (pattern: string, text: string) => {
      const re = new RegExp(pattern, 'iu');
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        re.test(text);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    const refused: [string, string][] = [
      ['^(a|aa)+$', 'a'.repeat(28) + '!'],
      ['^(\\w|\\d)+$', '1'.repeat(21) + '!'],
    ];
    const accepted: [string, string][] = [
      ['^(cat|dog)+$', 'cat'.repeat(10_000) + '!'],
      ['^(\\d|[a-f])+$', '1'.repeat(30_000) + '!'],
      ['^(?:\\s|[a-z])*;$', ' a'.repeat(15_000) + '!'],
    ];
    for (const [p] of refused) expect(regexRefusal(p)).toContain('overlapping alternatives');
    for (const [p] of accepted) expect(regexRefusal(p)).toBeNull();
    const slowest = Math.max(...accepted.map(([p, t]) => time(p, t)));
    for (const [p, t] of refused) expect(time(p, t)).toBeGreaterThan(slowest * 10);
  });
});
