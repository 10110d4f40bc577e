/**
 * Errors a `StaticRouter` throws while it is being built. Each carries a stable `code`; the
 * message names the path, the option or the package to install.
 */

/** Stable codes of the static router's errors: at construction, and S3_CLIENT_MISSING on the first S3 request. */
export type StaticRouterErrorCode =
  /** The local directory does not exist. */
  | 'DIRECTORY_NOT_FOUND'
  /** The local path exists but is not a directory. */
  | 'NOT_A_DIRECTORY'
  /** A local directory was given on a runtime without a file system (`node:fs`). */
  | 'NO_FILE_SYSTEM'
  /** An S3 location was given but `@aws-sdk/client-s3` could not be imported (logged, 500). */
  | 'S3_CLIENT_MISSING'
  /** The `serve` location or an option is malformed. */
  | 'INVALID_OPTION';

/**
 * Thrown by `new StaticRouter(...)` when the location or an option cannot work.
 *
 * @example
 * try {
 *   new StaticRouter('./missing');
 * } catch (error) {
 *   if (error instanceof StaticRouterError && error.code === 'DIRECTORY_NOT_FOUND') { ... }
 * }
 */
export class StaticRouterError extends Error {
  readonly code: StaticRouterErrorCode;

  constructor(code: StaticRouterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StaticRouterError';
    this.code = code;
  }
}

/**
 * A file or object could not be read (an I/O error, an S3 error other than a missing key or a
 * denial). The client gets a generic 500; this error, with the detail, goes to the log.
 */
export class StaticServeError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'StaticServeError';
  }
}
