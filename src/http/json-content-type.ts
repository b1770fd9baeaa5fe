import { ServiceError } from './errors';

/**
 * 415 for a body whose Content-Type is not JSON, naming the type. `accepted` says what the
 * route takes instead (the image routes also take multipart/form-data).
 */
export function unsupportedContentType(type: string, accepted = 'application/json'): ServiceError {
  return new ServiceError(415, {
    error: `Unsupported content type ${type || '(empty body)'}: send ${accepted}`,
    code: 'INVALID_CONTENT_TYPE',
  });
}

/** The media type of a Content-Type header, lower case and without parameters. */
export function mediaType(header: string | null): string {
  if (header === null) return '';
  const semicolon = header.indexOf(';');
  return (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/** Whether a media type (from mediaType) is read as JSON; no declared type counts as JSON. */
export function isJsonType(type: string): boolean {
  return type === '' || type === 'application/json' || type.endsWith('+json');
}

/**
 * Throws the 415 unless the Content-Type is JSON (`application/json` or a `+json` type).
 * A request without the header is read as JSON, as the image routes do: only a declared
 * other type (text/plain, XML, a form) is refused, rather than read and answered 400 or 200.
 */
export function requireJsonContentType(header: string | null): void {
  const type = mediaType(header);
  if (!isJsonType(type)) throw unsupportedContentType(type);
}
