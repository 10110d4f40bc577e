/**
 * The `logger` option takes pino and Powertools' `Logger` as they are (docs/logging.md). The
 * application looks at the one it was given once, at construction, guards it (a logger that
 * throws never stops a request being answered) and adapts it when its argument order is not ours: everything restmachine writes, and the injectable `log`, then keep
 * our order, `log.info(message, fields?)`, whatever is behind it.
 *
 * Powertools' `Logger` needs no adapting: it takes `(message, ...extra)`, merges an object given
 * after the message into the line and formats any Error in it (`{ name, location, message,
 * stack }`), which is our order and our fields.
 */
import { MultiValueHeaders } from '../http/headers.js';
import { Request } from '../request.js';
import { Response } from '../response.js';
import { type AnyLogger, asFields, type LogFields, type Logger } from './logger.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** pino's call shapes: `logger.info(mergingObject, message)` or `logger.info(message)`. */
interface PinoMethod {
  (fields: object, message: string): void;
  (message: string): void;
}

// Public in pino's `pino.symbols` as `serializersSym`; every pino logger and child carries it,
// and nothing else does, so it tells pino apart from loggers that merely share its method names
// (bunyan-style loggers with pino's order but without this symbol are not recognised).
const PINO_SERIALIZERS = Symbol.for('pino.serializers');

type Serializer = (value: unknown) => unknown;

/** Whether `logger` is a pino logger (or a child of one), which takes `(fields, message)`. */
export function isPino(logger: object): boolean {
  return PINO_SERIALIZERS in logger;
}

/**
 * `logger` speaking restmachine's order: a pino logger is wrapped; any other logger (Powertools'
 * included) already speaks it. Either way a line the logger throws on never reaches the caller
 * (see {@link guardLogger}).
 *
 * @example
 * const log = adaptLogger(pino());
 * log.info('Order placed', { orderId: 7 }); // pino's { orderId: 7 } and msg "Order placed"
 */
export function adaptLogger(logger: AnyLogger): Logger {
  // Powertools called as a Logger gets `(message)` or `(message, fields)`: its own order.
  return guardLogger(isPino(logger) ? pinoLogger(logger) : (logger as Logger));
}

/**
 * A logger whose methods never throw. A logger can (a JSON encoder meeting a circular error, a
 * closed destination), and the library logs on the way to answering a failed request: a throw
 * there would leave the request unanswered. The line then goes to stderr as one JSON object,
 * its message and request id with why the logger refused it; its other fields are left out,
 * since they may be what the logger could not write.
 */
export function guardLogger(logger: Logger): Logger {
  const guarded = (level: Level) => (message: string, fields?: LogFields) => {
    try {
      logger[level](message, asFields(fields));
    } catch (error) {
      writeRefusedLine(level, message, fields, error);
    }
  };
  return {
    debug: guarded('debug'),
    info: guarded('info'),
    warn: guarded('warn'),
    error: guarded('error'),
  };
}

function writeRefusedLine(
  level: Level,
  message: string,
  fields: LogFields | undefined,
  error: unknown,
): void {
  try {
    const requestId = fields?.requestId;
    console.error(
      JSON.stringify({
        level,
        msg: message,
        requestId: typeof requestId === 'string' ? requestId : undefined,
        loggerError: error instanceof Error ? error.message : String(error),
      }),
    );
  } catch {
    // Nothing is left to write with: the request is still answered.
  }
}

function levels(write: (level: Level, message: string, fields?: LogFields) => void): Logger {
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/**
 * pino serialises an Error only under a key it has a serializer for (`err` by default); under
 * any other key it would print `{}`. Errors under our keys (`error`, ...) therefore go through
 * the logger's own `err` serializer, which gives pino's usual `{ type, message, stack }`, unless
 * the logger has a serializer for that key itself. Headers, requests and responses go as the
 * plain objects their `toJSON()` gives, under the same condition.
 */
function pinoLogger(logger: AnyLogger): Logger {
  const target = logger as unknown as Record<Level, PinoMethod> & {
    [PINO_SERIALIZERS]: Record<string, Serializer | undefined>;
  };
  const serializers = target[PINO_SERIALIZERS];
  const serializeError = serializers.err ?? plainError;
  return levels((level, message, fields) => {
    if (fields === undefined) {
      target[level](message);
      return;
    }
    let out: LogFields | undefined;
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (serializers[key] !== undefined) continue;
      if (value instanceof Error) {
        out ??= { ...fields };
        out[key] = serializeError(value);
      } else if (
        value instanceof MultiValueHeaders ||
        value instanceof Request ||
        value instanceof Response
      ) {
        // A plain object, which pino's redaction can copy (`redact: ['headers.authorization']`,
        // `['request.headers.cookie']`); a copy of the class instance would have none of its
        // fields, and a request holds its connection, which pino cannot write.
        out ??= { ...fields };
        out[key] = value.toJSON();
      }
    }
    target[level](out ?? fields, message);
  });
}

/** For a pino logger configured without an `err` serializer. */
function plainError(error: unknown): unknown {
  const { name, message, stack } = error as Error;
  return { ...(error as object), type: name, message, stack };
}
