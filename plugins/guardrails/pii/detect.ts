import { isIPv6 } from 'node:net';
import { isValidIBAN } from 'ibantools';
import type { CountryCode } from 'libphonenumber-js/max';

// libphonenumber's metadata (several MB) is loaded by the first phone-shaped match, not at start.
let phoneLib: typeof import('libphonenumber-js/max') | null = null;
const parsePhoneNumberFromString: (typeof import('libphonenumber-js/max'))['parsePhoneNumberFromString'] = (text, region) =>
  (phoneLib ??= require('libphonenumber-js/max') as typeof import('libphonenumber-js/max')).parsePhoneNumberFromString(text, region);

/** The PII classes the pii guardrail knows, each switched on or off by the operator. */
export const PII_CLASSES = ['email', 'phone', 'card', 'iban', 'ip', 'secret'] as const;
/** One PII class. */
export type PiiClass = (typeof PII_CLASSES)[number];

/** A detected value: its class and where it sits in the text (UTF-16 offsets, end exclusive). */
export interface PiiSpan {
  cls: PiiClass;
  start: number;
  end: number;
}

/** Settings that change what counts as a match. */
export interface DetectOptions {
  /** Region for numbers written without a country code (`(415) 555-2671`); international `+...` numbers are found regardless. */
  phoneRegion?: CountryCode;
  /** Phone candidates already parsed (one per request): a stream re-reads its held tail on every chunk. */
  phoneCache?: Map<string, boolean>;
}

const EMAIL =
  /(?<![\w.%+-])[\w.%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9])/g;
// 13 to 19 digits, optionally grouped by single spaces or dashes; Luhn and the issuer's first digit decide.
// Not the digits of an IBAN (`DE89 3704 ...`), which may pass Luhn by chance.
const CARD = /(?<![\w-]|[A-Z]{2}\d{2} )\d(?:[ -]?\d){12,18}(?![\w-]|[ -]\d)/g;
const IBAN = /(?<![\w])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?!\w)/g;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
// Not after a letter or dot (`v1.2.3.4`, `1.2.3.4.5`) nor before `.digit` (a longer version string).
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g');
// Phone candidates: digits in groups with single separators, or one run of 7-15 digits; the
// numbering plans (libphonenumber) decide. Its own text scanner costs ~1 ms per call here.
const PHONE = /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?(?:\d{7,15}|\d{1,4}(?:[ .-]\d{1,4}){1,6})(?![\w]|[.-]?\d)/g;
const IPV6_CANDIDATE = /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f.]{0,15}){2,8}(?![\w:])/g;
// Prefixes of well-known API keys, a JWT, and any PEM private key block.
const SECRET = new RegExp(
  [
    '-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----[\\s\\S]{1,8000}?-----END [A-Z ]{0,20}PRIVATE KEY-----',
    '(?<![\\w-])(?:sk-(?:proj-|ant-[a-z0-9]{0,8}-)?[A-Za-z0-9_-]{20,200}' +
      '|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,200}' +
      '|AKIA[0-9A-Z]{16}' +
      '|gh[pousr]_[A-Za-z0-9]{36,200}' +
      '|github_pat_[A-Za-z0-9_]{22,200}' +
      '|glpat-[A-Za-z0-9_-]{20,200}' +
      '|xox[abprs]-[A-Za-z0-9-]{10,200}' +
      '|AIza[0-9A-Za-z_-]{35}' +
      '|svc_[A-Za-z0-9_-]{40,60}' +
      '|eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,})(?![\\w-])',
  ].join('|'),
  'g',
);

/** True when the digits pass the Luhn checksum (payment cards). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Card numbers: 13-19 digits, consistent grouping, an issuer digit (3 to 6) and a valid Luhn sum. */
function isCard(match: string): boolean {
  const digits = match.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19 || !'3456'.includes(digits[0]!)) return false;
  if (/[ -]/.test(match) && new Set(match.match(/[ -]/g)).size > 1) return false;
  return luhnValid(digits);
}

/** A valid number in its region's numbering plan (7 to 15 digits), memoised per request. */
function isPhone(match: string, opts: DetectOptions): boolean {
  const cached = opts.phoneCache?.get(match);
  if (cached !== undefined) return cached;
  const digits = match.replace(/\D/g, '').length;
  const ok = digits >= 7 && digits <= 15 && parsePhoneNumberFromString(match, opts.phoneRegion)?.isValid() === true;
  opts.phoneCache?.set(match, ok);
  return ok;
}

function collect(text: string, re: RegExp, cls: PiiClass, out: PiiSpan[], valid?: (m: string) => boolean): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text))
    if (!valid || valid(m[0])) out.push({ cls, start: m.index, end: m.index + m[0].length });
}

/**
 * Every PII value of the enabled classes in `text`, in order, without overlaps (when two
 * overlap, the one listed first in PII_CLASSES' checking order wins: secrets, e-mail, cards,
 * IBANs, IPs, then phones, whose parser is the most permissive).
 */
export function detectPii(text: string, classes: ReadonlySet<PiiClass>, opts: DetectOptions = {}): PiiSpan[] {
  const found: PiiSpan[] = [];
  if (classes.has('secret')) collect(text, SECRET, 'secret', found);
  if (classes.has('email') && text.includes('@')) collect(text, EMAIL, 'email', found);
  if (classes.has('card')) collect(text, CARD, 'card', found, isCard);
  if (classes.has('iban')) collect(text, IBAN, 'iban', found, (m) => isValidIBAN(m.replace(/ /g, '')));
  if (classes.has('ip')) {
    collect(text, IPV4, 'ip', found);
    if (text.includes(':')) collect(text, IPV6_CANDIDATE, 'ip', found, (m) => /\d/.test(m) && isIPv6(m));
  }
  if (classes.has('phone')) collect(text, PHONE, 'phone', found, (m) => isPhone(m, opts));
  return dropOverlaps(found);
}

/** Keeps the earlier-found of overlapping spans (the detectors run in priority order), sorted by start. */
function dropOverlaps(spans: PiiSpan[]): PiiSpan[] {
  const kept: PiiSpan[] = [];
  for (const s of spans) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept.sort((a, b) => a.start - b.start);
}
