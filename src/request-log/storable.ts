/**
 * A string as Postgres stores it: a NUL (an unknown model's name echoed by its 404) and a lone
 * surrogate (JSON.stringify writes it as an unpaired `\ud800` escape) become U+FFFD. Postgres
 * refuses both in text, and one such row sent its whole batch row by row.
 */
export function storableText(value: string): string {
  const text = value.isWellFormed() ? value : value.toWellFormed();
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text;
}

/** `JSON.stringify`'s replacer that makes every string of a row storable. */
export function storable(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? storableText(value) : value;
}
