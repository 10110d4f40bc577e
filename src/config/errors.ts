/**
 * The error catalogue of `restmachine/config`. Every error thrown by this subpath is a
 * {@link ConfigError} with a stable `code`, so callers can branch on the code rather than on
 * message text.
 */

/** Stable codes carried by every configuration error. */
export type ConfigErrorCode =
  | 'NOT_FOUND'
  | 'CIRCULAR_REFERENCE'
  | 'MALFORMED'
  | 'VALIDATION'
  | 'INVALID_SCHEMA'
  | 'TOO_LARGE';

/** Where a value came from: the file (when known) and the 1-based line and column. */
export interface SourcePosition {
  readonly file?: string | undefined;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
}

/** Context shared by errors that concern one value of a configuration. */
export interface ValueContext extends SourcePosition {
  /** Dotted path of the value (`database.port`, `''` for the root). */
  readonly key?: string | undefined;
  /** The interpolation expression involved (`${env:PORT}`), when there is one. */
  readonly expression?: string | undefined;
}

/**
 * Formats the `file:line:column: ` prefix of a message: `line:column: ` for text without a file
 * name, `file: ` without a line, nothing when nothing is known.
 */
export function positionPrefix(position: SourcePosition | undefined): string {
  if (!position) return '';
  const { file, line, column } = position;
  const place =
    line === undefined ? undefined : column === undefined ? `${line}` : `${line}:${column}`;
  if (file === undefined) return place === undefined ? '' : `${place}: `;
  return place === undefined ? `${file}: ` : `${file}:${place}: `;
}

/** The dotted path as printed in messages: the root is `(root)`. */
export function printableKey(key: string): string {
  return key === '' ? '(root)' : key;
}

function describe(context: ValueContext, reason: string, quoteExpression = false): string {
  const parts: string[] = [];
  if (context.key !== undefined) parts.push(printableKey(context.key));
  if (context.expression !== undefined) {
    parts.push(quoteExpression ? JSON.stringify(context.expression) : context.expression);
  }
  parts.push(reason);
  return positionPrefix(context) + parts.join(': ');
}

/** Base class of every error thrown by `restmachine/config`. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code: ConfigErrorCode;
  /** Dotted path of the value concerned, when the error concerns one value. */
  readonly key: string | undefined;
  /** The interpolation expression concerned, when there is one. */
  readonly expression: string | undefined;
  /** The source file, when known. */
  readonly file: string | undefined;
  /** 1-based line in the source, when known. */
  readonly line: number | undefined;
  /** 1-based column in the source, when known. */
  readonly column: number | undefined;

  constructor(code: ConfigErrorCode, message: string, context: ValueContext = {}) {
    super(message);
    this.code = code;
    this.key = context.key;
    this.expression = context.expression;
    this.file = context.file;
    this.line = context.line;
    this.column = context.column;
  }
}

/** A missing environment variable, path, file or configuration file (`NOT_FOUND`). */
export class ConfigNotFoundError extends ConfigError {
  override name = 'ConfigNotFoundError';
  /** Why the lookup failed, without the key and expression. */
  readonly reason: string;

  constructor(reason: string, context: ValueContext = {}) {
    super('NOT_FOUND', describe(context, reason), context);
    this.reason = reason;
  }
}

/** References that lead back to themselves (`CIRCULAR_REFERENCE`). */
export class ConfigCircularReferenceError extends ConfigError {
  override name = 'ConfigCircularReferenceError';
  /** Every key of the cycle in order, the first repeated at the end (`['a', 'b', 'a']`). */
  readonly chain: readonly string[];

  constructor(chain: readonly string[], context: ValueContext = {}) {
    super(
      'CIRCULAR_REFERENCE',
      describe(context, `circular reference: ${chain.map(printableKey).join(' -> ')}`),
      context,
    );
    this.chain = chain;
  }
}

/**
 * Text that cannot be read: a malformed interpolation, invalid YAML, or a value that is not JSON
 * (`MALFORMED`). `reason` holds the bare reason; for interpolations, `offset` is the 1-based
 * position of the problem inside the value's text (after YAML decoded it), not a file column.
 */
export class ConfigMalformedError extends ConfigError {
  override name = 'ConfigMalformedError';
  readonly reason: string;
  /** For a malformed interpolation: the 1-based position inside the value's text. */
  readonly offset: number | undefined;

  constructor(reason: string, context: ValueContext = {}, offset?: number) {
    // The text of a malformed value is quoted: it may hold the very characters that broke it.
    super('MALFORMED', describe(context, reason, true), context);
    this.reason = reason;
    this.offset = offset;
  }
}

/**
 * A value produced by an interpolation that is larger than `maxValueBytes`, the value that
 * brings all of them in one resolution over `maxTotalBytes`, or a configuration or schema file
 * longer than `MAX_FILE_BYTES` (`TOO_LARGE`).
 */
export class ConfigTooLargeError extends ConfigError {
  override name = 'ConfigTooLargeError';
  /** The limit that was passed, in bytes. */
  readonly limit: number;
  /** The option that sets that limit, or `'file'` for the fixed limit of `MAX_FILE_BYTES`. */
  readonly option: 'maxValueBytes' | 'maxTotalBytes' | 'file';

  constructor(
    limit: number,
    context: ValueContext = {},
    option: 'maxValueBytes' | 'maxTotalBytes' | 'file' = 'maxValueBytes',
  ) {
    const reason =
      option === 'maxValueBytes'
        ? `the value is larger than the limit of ${limit} bytes (maxValueBytes)`
        : option === 'maxTotalBytes'
          ? `the values interpolations produce add up to more than the limit of ${limit} bytes (maxTotalBytes)`
          : `the file is longer than the limit of ${limit} bytes (MAX_FILE_BYTES)`;
    super('TOO_LARGE', describe(context, reason), context);
    this.limit = limit;
    this.option = option;
  }
}

/** One schema violation. */
export interface SchemaViolation {
  /** Dotted path of the offending value (`database.port`, `servers[0].host`, `''` for the root). */
  readonly path: string;
  /** What is wrong, without the path (`70000 is greater than the maximum of 65535`). */
  readonly message: string;
  /** The JSON Schema keyword that failed (`maximum`, `required`, ...). */
  readonly keyword: string;
  /**
   * The offending value (for `required` and `additionalProperties`, the object). Text that came
   * from `${env:...}` or `${file:...}` appears as `<from env:NAME>` or `<from file:PATH>`.
   */
  readonly value: unknown;
}

/** One violation of a configuration, with its place in the YAML source when known. */
export interface ConfigViolation extends SchemaViolation {
  readonly file?: string | undefined;
  /** 1-based line of the offending value, when the configuration came from YAML. */
  readonly line?: number | undefined;
  /** 1-based column of the offending value, when the configuration came from YAML. */
  readonly column?: number | undefined;
}

/** Formats one violation as a line: `file:line:column: path: message`. */
export function formatViolation(violation: ConfigViolation): string {
  return `${positionPrefix(violation)}${printableKey(violation.path)}: ${violation.message}`;
}

/** A configuration that does not satisfy its schema (`VALIDATION`), with every violation. */
export class ConfigValidationError extends ConfigError {
  override name = 'ConfigValidationError';
  readonly errors: readonly ConfigViolation[];

  constructor(errors: readonly ConfigViolation[], file?: string) {
    super('VALIDATION', errors.map(formatViolation).join('\n'), { file });
    this.errors = errors;
  }
}

/** A schema that cannot be used: unreadable text, an unknown dialect, or an invalid schema. */
export class SchemaError extends ConfigError {
  override name = 'SchemaError';

  constructor(message: string, position?: SourcePosition) {
    super('INVALID_SCHEMA', positionPrefix(position) + message, position);
  }
}
