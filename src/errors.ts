/**
 * The error catalogue. Errors a request can cause carry an HTTP status; errors in how the
 * application is put together carry a stable `code` and are thrown at registration or startup.
 */
import { reasonPhrase } from './http/status.js';

/** One problem found by a validator: where (dotted path, `''` for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * An error with an HTTP status. Its message is the developer's and is sent to the client.
 *
 * @example
 * throw new HttpError(409, 'Bookmark already exists', { url });
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly details: unknown;
  /** Headers the error response must carry (for example `Allow` on a 405). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    statusCode: number,
    message?: string,
    details?: unknown,
    headers?: Readonly<Record<string, string>>,
  ) {
    super(message ?? reasonPhrase(statusCode));
    this.name = 'HttpError';
    if (!Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) {
      throw new RangeError(
        `HttpError status must be an integer from 400 to 599, got ${statusCode}`,
      );
    }
    this.statusCode = statusCode;
    this.details = details;
    this.headers = headers;
  }
}

/**
 * Thrown by a validator to reject its input: the request ends with 422 listing every issue.
 *
 * @example
 * throw new ValidationError([{ path: 'title', message: 'is required' }]);
 */
/**
 * The 400 for a request body cut short: the client went away or broke the framing mid-body, so
 * nothing it sent can be trusted. Not the application's failure; the pipeline answers it without
 * logging. `cause` keeps the runtime's reason when there is one.
 */
export function bodyCutShort(cause?: unknown): HttpError {
  const error = new HttpError(400, 'The request body was not received completely');
  if (cause !== undefined) error.cause = cause;
  return error;
}

export class ValidationError extends HttpError {
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], message = 'Validation failed') {
    super(422, message, issues);
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/** Stable codes of the errors in how an application is put together. */
export type SetupErrorCode =
  | 'INVALID_ROUTE'
  | 'INVALID_METHOD'
  | 'DUPLICATE_ROUTE'
  | 'INVALID_HANDLER'
  | 'NAME_CLASH'
  | 'UNKNOWN_DEPENDENCY'
  | 'DEPENDENCY_CYCLE'
  | 'SCOPE_MISMATCH'
  | 'STARTUP_FAILED'
  | 'SYNC_STARTUP_PROMISE'
  | 'INVALID_OPTION'
  | 'INVALID_HOOK'
  | 'UNGUARDED_ROUTE';

/** A mistake in how the application is put together, found at registration or startup. */
export class SetupError extends Error {
  readonly code: SetupErrorCode;

  constructor(code: SetupErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SetupError';
    this.code = code;
  }
}
