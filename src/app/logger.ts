/**
 * The one replaceable logger. Every line is a message plus structured fields; the pipeline adds
 * the request id to each line it writes for a request.
 */

import { Request } from '../request.js';
import { Response } from '../response.js';
import { choice, knownOptions } from './options.js';

export type LogFields = Record<string, unknown>;

/**
 * The logger interface, in restmachine's argument order: a message, then structured fields. Any
 * object with these four methods can be the application's logger; a pino logger and a
 * Powertools `Logger` are accepted as they are and called in their own order (docs/logging.md).
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * Powertools' `Logger`, known by the two methods only it has. It takes the message first and
 * merges an object given after it into the line, so it is called as a `Logger`.
 */
export interface PowertoolsLogger {
  appendKeys(attributes: LogFields): void;
  injectLambdaContext(...options: never[]): unknown;
}

/**
 * What the `logger` option accepts: a `Logger`, a Powertools `Logger`, or a pino logger (whose
 * overloads include `info(message)`, so its type fits `Logger`; it is told apart at run time).
 */
export type AnyLogger = Logger | PowertoolsLogger;

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const LEVELS = Object.keys(ORDER) as Level[];

/** Options of `createConsoleLogger()`. */
export interface ConsoleLoggerOptions {
  /** The least level written (default `'info'`). */
  level?: Level;
}
const CONSOLE_LOGGER_OPTIONS = Object.keys({
  level: true,
} satisfies Record<keyof ConsoleLoggerOptions, true>);

/**
 * `holder[key]` as JSON writes it (what its `toJSON()` gives, when it has one), or
 * `"[Unreadable]"` when reading it throws (a getter, a `toJSON`): the failure costs that field,
 * not the line.
 */
function readField(holder: object, key: string): unknown {
  try {
    const value = (holder as Record<string, unknown>)[key];
    const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
    return typeof toJSON === 'function' ? toJSON.call(value, key) : value;
  } catch {
    return '[Unreadable]';
  }
}

/** A copy of `value`'s own enumerable fields, each read with {@link readField}. */
function readEach(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = Array.isArray(value) ? ([] as never) : {};
  for (const key of Object.keys(value)) out[key] = readField(value, key);
  return out;
}

/**
 * What an error tells: its own fields (a system error's `code`, `errno`, `syscall`), its name,
 * message and stack, the `cause` it wraps (the root of a failure, as Node code reports it) and
 * an AggregateError's `errors`; the replacer writes those in turn. Each is read on its own.
 */
function errorFields(error: Error): Record<string, unknown> {
  const out = readEach(error);
  for (const key of ['name', 'message', 'stack', 'cause']) {
    const value = readField(error, key);
    if (value !== undefined) out[key] = value;
  }
  if (error instanceof AggregateError) out.errors = readField(error, 'errors');
  return out;
}

/**
 * Makes any value writable, since a request can make anything reach the log (a thrown value
 * is logged as it is): an object met again is `"[Circular]"`, a bigint its digits, an error
 * its fields, name, message, stack and cause wherever it sits. `carefully` copies every object
 * with {@link readEach}, for a line whose plain writing threw.
 */
function safeReplacer(carefully: boolean): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    if (value instanceof Error) return errorFields(value);
    return carefully ? readEach(value) : value;
  };
}

/**
 * The default logger: one JSON object per line on the console (`warn`/`error` on stderr).
 *
 * @example
 * new RestApplication({ logger: createConsoleLogger({ level: 'warn' }) });
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  knownOptions('createConsoleLogger()', options, CONSOLE_LOGGER_OPTIONS);
  // Any other value would compare as no level at all, and every line would be written.
  const level = choice('createConsoleLogger() level', options.level, LEVELS) ?? 'info';
  const threshold = ORDER[level];
  const write = (level: Level, message: string, fields?: LogFields): void => {
    if (ORDER[level] < threshold) return;
    const time = new Date().toISOString();
    const line = joinFields({ level, time, msg: message }, fields, undefined);
    // The line's own keys keep their place and their values (docs/logging.md): a field of the
    // same name is dropped, as Powertools drops its reserved keys.
    line.level = level;
    line.time = time;
    line.msg = message;
    // Errors among the fields are written by the replacer, as anywhere in the line. A getter or
    // a `toJSON` that throws is only met again when the line is written carefully, at no cost
    // to lines that need no care.
    let text: string;
    try {
      text = JSON.stringify(line, safeReplacer(false));
    } catch {
      text = JSON.stringify(line, safeReplacer(true));
    }
    if (level === 'warn' || level === 'error') console.error(text);
    else console.log(text);
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * A logger that adds `fields` to every line of `base`. They come last and win: a line's own
 * field of the same name (a forged `requestId`) is dropped (docs/logging.md).
 */
export function withFields(base: Logger, fields: LogFields): Logger {
  return {
    debug: (message, extra) => base.debug(message, joinFields(undefined, extra, fields)),
    info: (message, extra) => base.info(message, joinFields(undefined, extra, fields)),
    warn: (message, extra) => base.warn(message, joinFields(undefined, extra, fields)),
    error: (message, extra) => base.error(message, joinFields(undefined, extra, fields)),
  };
}

/**
 * `head`, the fields of a line ({@link asFields}) and `tail`, in that order, in one new object:
 * a field whose getter throws is `"[Unreadable]"` and the others are kept, where spreading them
 * would throw out of the call.
 */
function joinFields<T extends LogFields>(
  head: T | undefined,
  fields: unknown,
  tail: LogFields | undefined,
): T {
  const given = asFields(fields);
  try {
    return { ...head, ...given, ...tail } as T;
  } catch {
    return { ...head, ...(given === undefined ? undefined : readEach(given)), ...tail } as T;
  }
}

/**
 * The fields of a line as the loggers take them. `log.error('failed', error)`, the usual call
 * with console or Powertools, passes the error itself: it goes under `error`, with its message
 * and stack, instead of being read as a map of fields (and lost). Any other value that is no
 * map of fields (`log.info('m', 'text')`) goes under `extra`. A request or response goes under
 * `request` or `response`, where every logger writes its summary (`toJSON()`): taken apart as
 * fields, it would give its body, its raw headers and a Node request's connection.
 */
export function asFields(fields: unknown): LogFields | undefined {
  if (fields === undefined || fields === null) return undefined;
  if (fields instanceof Error) return { error: fields };
  if (fields instanceof Request) return { request: fields };
  if (fields instanceof Response) return { response: fields };
  if (typeof fields !== 'object' || Array.isArray(fields)) return { extra: fields };
  return fields as LogFields;
}
