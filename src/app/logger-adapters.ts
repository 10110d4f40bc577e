/**
 * The `logger` option takes pino and Powertools' `Logger` as they are (docs/logging.md). The
 * application looks at the one it was given once, at construction, and adapts it when its
 * argument order is not ours: everything restmachine writes, and the injectable `log`, then keep
 * our order, `log.info(message, fields?)`, whatever is behind it.
 *
 * Powertools' `Logger` needs no adapting: it takes `(message, ...extra)`, merges an object given
 * after the message into the line and formats any Error in it (`{ name, location, message,
 * stack }`), which is our order and our fields.
 */
import type { AnyLogger, LogFields, Logger } from './logger.js';

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
 * included) already speaks it and is returned as it is.
 *
 * @example
 * const log = adaptLogger(pino());
 * log.info('Order placed', { orderId: 7 }); // pino's { orderId: 7 } and msg "Order placed"
 */
export function adaptLogger(logger: AnyLogger): Logger {
  // Powertools called as a Logger gets `(message)` or `(message, fields)`: its own order.
  return isPino(logger) ? pinoLogger(logger) : (logger as Logger);
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
 * the logger has a serializer for that key itself.
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
      if (value instanceof Error && serializers[key] === undefined) {
        out ??= { ...fields };
        out[key] = serializeError(value);
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
