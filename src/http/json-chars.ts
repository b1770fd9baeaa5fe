/** Character codes of JSON's structure, for the scanners that read JSON text without parsing it. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** The index of the first character at or after `at` that is not JSON white space. */
export function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
}
