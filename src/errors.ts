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
  /**
   * Headers the error response must carry (for example `Allow` on a 405). `Vary` is merged with
   * the response's own; `Content-Type` is ignored, as the body is the built-in one or an error
   * handler's, which have their own type.
   */
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
 * The 400 for a request body cut short: the client went away or broke the framing mid-body, so
 * nothing it sent can be trusted. Not the application's failure; the pipeline answers it without
 * logging. `cause` keeps the runtime's reason when there is one.
 */
export function bodyCutShort(cause?: unknown): HttpError {
  const error = new HttpError(400, 'The request body was not received completely');
  if (cause !== undefined) error.cause = cause;
  return error;
}

// The 5xx answers the library gives itself: 501 for a method no route knows, 503 while shutting
// down or when `requestTimeout` runs out, and 500s whose cause it has logged already. The
// pipeline logs every other 5xx HttpError, which stands for a failure the application reported.
const LIBRARY_ANSWERS = new WeakSet<HttpError>();

/** Marks `error` as one of the library's own answers (not logged again); returns it. */
export function libraryAnswer(error: HttpError): HttpError {
  LIBRARY_ANSWERS.add(error);
  return error;
}

/** Whether `error` is a 5xx the application threw, which the pipeline logs. */
export function isReportedFailure(error: HttpError): boolean {
  return error.statusCode >= 500 && !LIBRARY_ANSWERS.has(error);
}

/**
 * The most issues a `ValidationError` keeps. A validator reports one issue per bad element, so a
 * 1 MiB body of `[0,0,...]` against an array of strings gave half a million, a 40 MB answer: the
 * 422 lists the first ones and how many it left out, as many as a person fixing the input reads.
 */
export const ISSUES_LISTED = 100;

/**
 * Thrown by a validator to reject its input: the request ends with 422 listing the issues (the
 * first {@link ISSUES_LISTED}, with `detailsOmitted` counting the rest).
 *
 * @example
 * throw new ValidationError([{ path: 'title', message: 'is required' }]);
 */
export class ValidationError extends HttpError {
  /** The issues, the first {@link ISSUES_LISTED} of those given. */
  readonly issues: readonly ValidationIssue[];
  /** How many issues were given beyond those `issues` keeps (0 when it keeps them all). */
  readonly issuesOmitted: number;

  constructor(issues: readonly ValidationIssue[], message = 'Validation failed') {
    const listed = issues.length > ISSUES_LISTED ? issues.slice(0, ISSUES_LISTED) : issues;
    super(422, message, listed);
    this.name = 'ValidationError';
    this.issues = listed;
    this.issuesOmitted = issues.length - listed.length;
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
