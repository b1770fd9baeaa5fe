// Text is normalised before rules see it, so `ｂａｄ`, `b\u200Bad`, `bаd` (Cyrillic а) and `BÁD` all read `bad`.

// Zero-width and invisible format characters that split a word without showing: ZW space,
// joiners, word joiner, BOM, soft hyphen, Mongolian vowel separator, invisible operators.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const COMBINING = /\p{M}/gu;

// Cyrillic and Greek letters that look like Latin ones (Unicode's confusables, the Latin-target
// subset that renders identically in common fonts). NFKC does not fold these: they are distinct letters.
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ɑ: 'a',
  ɡ: 'g',
  ı: 'i',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'g');

/**
 * The form rules match against: NFKC (full-width, ligatures, mathematical letters), invisible
 * characters removed, lower case, accents dropped, Latin look-alikes folded. Length may change,
 * so offsets into the result do not map back to the original: rules decide, they do not cut.
 */
export function normalizeForMatch(text: string): string {
  let s = text.normalize('NFKC').replace(INVISIBLE, '').toLowerCase();
  // Accents: decompose, drop the marks. Only when there are non-ASCII letters, the common case is plain ASCII.
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/.test(s))
    s = s
      .normalize('NFD')
      .replace(COMBINING, '')
      .replace(LOOKALIKE, (c) => LOOKALIKES[c] ?? c);
  return s;
}
