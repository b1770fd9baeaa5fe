import { Elysia } from 'elysia';
import { dbUnavailable } from '../db/unavailable';
import { KvUnavailableError } from '../kv/unavailable';
import type { Logger } from '../log';
import { errorNotesOf } from './error-notes';
import { detailsFrom, invalidFields, payloadTooLarge, serviceUnavailable, ServiceError, type ErrorBody } from './errors';
import { describeIssue, issuePath, resolveIssue, type ValidationIssue } from './validation-message';

const FIELD_OF: Record<string, string> = { body: 'body', query: 'query', params: 'path', headers: 'header' };

/** Field problems a validation answer lists at most (its `details`; the `error` string names fewer). */
const MAX_REPORTED_ISSUES = 20;

/**
 * The first `limit` issues of a failed check, taken from TypeBox's lazy iterator: Elysia's
 * `error.all` collects 64, and each one past the first few can cost a walk over a wide array.
 */
function firstIssues(errors: Iterable<ValidationIssue>, limit: number): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of errors) if (issues.push(issue) >= limit) break;
  return issues;
}

/**
 * The 400 DetailedError of a body, query or path that fails its schema: the `error` string
 * names each field and its reason (see invalidFields), `details` lists the first 20 problems.
 */
export function validationFailure(errors: Iterable<ValidationIssue>, where: string): ServiceError {
  const problems = firstIssues(errors, MAX_REPORTED_ISSUES)
    .map(resolveIssue)
    .map((issue) => ({ path: issuePath(issue), message: describeIssue(issue) }));
  return invalidFields(problems, where);
}

/** The answer to Elysia's TypeBox validation error. */
function validationBody(error: { type?: string; all?: ValidationIssue[]; validator?: unknown; value?: unknown }): ErrorBody {
  const validator = error.validator as { Errors?: (value: unknown) => Iterable<ValidationIssue> } | undefined;
  const errors = typeof validator?.Errors === 'function' ? validator.Errors(error.value) : (error.all ?? []);
  return validationFailure(errors, FIELD_OF[error.type ?? ''] ?? 'request').body;
}

/**
 * The single place errors become responses: ServiceError as thrown, validation as a
 * DetailedError, unknown routes as 404, malformed JSON as 400, everything else as a 500
 * whose body says nothing internal (the log line has the detail, keyed by CF-RAY).
 */
export function errorHandler(log: Logger) {
  return new Elysia({ name: 'svc.http.errors' }).onError({ as: 'global' }, function renderError({ code, error: thrown, set, request }) {
    // What the request already did that its failure does not undo (a settled x402 payment).
    const notes = errorNotesOf(request);
    const body = renderErrorBody(code, thrown, set, log);
    return notes && typeof body === 'object' ? { ...body, ...notes } : body;
  });
}

function renderErrorBody(
  code: string | number,
  thrown: unknown,
  set: { status?: number | string; headers: Record<string, unknown> },
  log: Logger,
) {
  // A body read cut by the body limits (413, 408) fails inside a parser, which Elysia wraps as a ParseError.
  const cause = (thrown as { cause?: unknown }).cause;
  let error = code === 'PARSE' && cause instanceof ServiceError ? cause : thrown;
  const requestId = set.headers['cf-ray'];
  // Redis down or restarting: retryable, and nothing was charged (docs/operations.md "Faults and scaling out").
  if (error instanceof KvUnavailableError)
    error = serviceUnavailable(
      'Service temporarily unavailable: the rate-limit and balance store is unreachable, retry shortly',
      error.retryAfterSeconds,
    );
  // Postgres down or past a call's deadline: retryable, and nothing was charged.
  const dbDown = error instanceof ServiceError ? null : dbUnavailable(error);
  if (dbDown) {
    log.warn('database unavailable', { requestId, error: dbDown.message });
    error = serviceUnavailable('Service temporarily unavailable: the database is unreachable, retry shortly', dbDown.retryAfterSeconds);
  }
  if (error instanceof ServiceError) {
    Object.assign(set.headers, error.headers);
    set.status = error.status;
    return error.body;
  }
  switch (code) {
    case 'VALIDATION':
      set.status = 400;
      return validationBody(error as never);
    case 'PARSE':
      set.status = 400;
      return {
        error: 'Malformed request body: expected valid JSON',
        details: detailsFrom([{ path: ['body'], message: 'Invalid JSON' }]),
      };
    case 'NOT_FOUND':
      set.status = 404;
      return { error: 'Not found' };
    case 'INVALID_FILE_TYPE':
      set.status = 415;
      return { error: 'Unsupported content type' };
  }
  const status = (error as { status?: number }).status;
  if (status === 413) {
    const tooLarge = payloadTooLarge(0);
    set.status = 413;
    return { ...tooLarge.body, error: 'Request body too large' };
  }
  log.error('unhandled error', { requestId, code: String(code), error: String((error as Error)?.stack ?? error) });
  set.status = 500;
  return { error: 'An unknown error occurred' };
}
