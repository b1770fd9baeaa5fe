import { describe, expect, test } from 'bun:test';
import { detectPii, luhnValid, PII_CLASSES, type PiiClass } from './detect';

const ALL = new Set<PiiClass>(PII_CLASSES);
const found = (text: string, classes: ReadonlySet<PiiClass> = ALL) =>
  detectPii(text, classes, { phoneRegion: 'US' }).map((s) => [s.cls, text.slice(s.start, s.end)]);

describe('detectPii: what it finds', () => {
  test.each([
    ['mail john.doe+tag@example.co.uk now', 'email', 'john.doe+tag@example.co.uk'],
    ['<a.b@sub.example.org>', 'email', 'a.b@sub.example.org'],
    ['card 4111 1111 1111 1111 ok', 'card', '4111 1111 1111 1111'],
    ['card 4111-1111-1111-1111.', 'card', '4111-1111-1111-1111'],
    ['amex 378282246310005', 'card', '378282246310005'],
    ['mc 5555555555554444', 'card', '5555555555554444'],
    ['iban DE89 3704 0044 0532 0130 00 thanks', 'iban', 'DE89 3704 0044 0532 0130 00'],
    ['iban GB82WEST12345698765432', 'iban', 'GB82WEST12345698765432'],
    ['host 192.168.1.20 down', 'ip', '192.168.1.20'],
    ['v6 2001:db8::8a2e:370:7334 up', 'ip', '2001:db8::8a2e:370:7334'],
    ['loopback ::1 and', 'ip', '::1'],
    ['call +1 415 555 2671 today', 'phone', '+1 415 555 2671'],
    ['call (415) 555-2671 today', 'phone', '(415) 555-2671'],
    ['ring +44 20 7946 0958', 'phone', '+44 20 7946 0958'],
    ['key sk-proj-abcdefghijklmnopqrstuvwxyz012345 here', 'secret', 'sk-proj-abcdefghijklmnopqrstuvwxyz012345'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'secret', 'AKIAIOSFODNN7EXAMPLE'],
    ['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'secret', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['stripe sk_live_abcdefghijklmnop1234', 'secret', 'sk_live_abcdefghijklmnop1234'],
  ])('%j → %s', (text, cls, value) => {
    expect(found(text)).toEqual([[cls, value]]);
  });

  test('a PEM private key block is one secret', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----';
    expect(found(`here:\n${pem}\nbye`)).toEqual([['secret', pem]]);
  });

  test('several classes in one text, in order', () => {
    expect(found('a@b.io, 10.0.0.1 and 4242424242424242').map((f) => f[0])).toEqual(['email', 'ip', 'card']);
  });

  test('classes switched off are not looked for', () => {
    expect(found('a@b.io 4242424242424242', new Set<PiiClass>(['card']))).toEqual([['card', '4242424242424242']]);
  });
});

describe('detectPii: near misses it leaves alone', () => {
  test.each([
    ['a Luhn-invalid number', 'order 4111 1111 1111 1112 shipped'],
    ['a 12-digit number', 'ref 411111111111'],
    ['digits that start with 1 (no issuer)', 'id 1234567812345670'],
    ['mixed card grouping', '4111 1111-1111 1111'],
    ['an IBAN with a bad checksum', 'DE89 3704 0044 0532 0130 01'],
    ['ISO date', 'on 2024-05-06 at 10:30'],
    ['slashed date', 'born 12/05/1985'],
    ['dotted date', 'due 06.12.2026'],
    ['a time', 'at 12:30:45 sharp'],
    ['a version string', 'release v1.2.3.4 and version 1.2.3.4.5'],
    ['an octet over 255', 'not 256.1.1.1'],
    ['a C++ scope', 'std::cout and a::b'],
    ['e-mail without a domain', 'user@localhost'],
    ['an @-mention', 'thanks @alice'],
    ['a short sk- word', 'sk-learn is a library'],
    ['a hash', 'commit 7d5ee4d1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7'],
    ['a year range', 'from 1999-2024'],
    ['a short number', 'room 4155 floor 2'],
  ])('%s', (_, text) => {
    expect(found(text)).toEqual([]);
  });
});

test('luhnValid', () => {
  expect(luhnValid('4111111111111111')).toBe(true);
  expect(luhnValid('4111111111111112')).toBe(false);
  expect(luhnValid('79927398713')).toBe(true);
});
