/**
 * Results the built-in renderers cannot represent (docs/application.md, "Handler results"):
 * JSON would send a Map, a Set or an Error as `{}` and a function or a symbol as nothing, with
 * a 200 that hides the mistake. They are a 500 instead, with a message saying what to return,
 * logged once per route so a busy route does not flood the log. The handler's result type
 * catches the same values at compile time where TypeScript can see them (`Representable`).
 *
 * Only the value itself (or a tuple's body) is checked: walking a whole result on every
 * request would cost every route for the mistakes of a few.
 */
import { HttpError, libraryAnswer } from '../../errors.js';
import type { Exchange } from './exchange.js';

const HINTS: ReadonlyArray<readonly [Function, string, string]> = [
  [Map, 'a Map', 'return Object.fromEntries(map) or [...map]'],
  [Set, 'a Set', 'return [...set]'],
  [WeakMap, 'a WeakMap', 'return a plain object'],
  [WeakSet, 'a WeakSet', 'return a plain object or an array'],
  [Promise, 'a Promise', 'await it before putting it in a tuple'],
  [Error, 'an Error', 'throw it (an HttpError for a status of your choice) instead'],
];

/**
 * Whether `value` is plain data: a string, number or boolean, or an object or array made by a
 * literal or JSON.parse. Nearly every result is; only the others are examined further, here
 * and for values of the Fetch API (respond.ts).
 */
export function isPlainData(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object': {
      if (value === null) return true;
      const prototype = Object.getPrototypeOf(value);
      return prototype === Object.prototype || prototype === Array.prototype;
    }
    default:
      return false;
  }
}

/** What `value` is and what to return instead, when no built-in renderer can represent it. */
function describeUnrepresentable(value: unknown): string | undefined {
  switch (typeof value) {
    case 'function':
      return 'a function, which JSON sends as nothing: call it, or return what it computes';
    case 'symbol':
      return 'a symbol, which JSON sends as nothing: return a string';
    case 'bigint':
      return 'a bigint, which JSON cannot encode: return String(value) or Number(value)';
    case 'object': {
      if (isPlainData(value)) return undefined;
      for (const [type, name, hint] of HINTS) {
        if (value instanceof type) return `${name}, which JSON sends as {}: ${hint}`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

// Routes (or, for error handler results outside a route, tables) already logged.
const reported = new WeakSet<object>();

/**
 * Throws a 500 when the built-in renderers cannot represent `body`, the result of a route's
 * handler or of an error handler; the reason is logged the first time each route (or the
 * application's error handlers) does it, and shown in the body in debug mode.
 */
export function checkRepresentable(
  exchange: Exchange,
  body: unknown,
  fromErrorHandler: boolean,
): void {
  const problem = describeUnrepresentable(body);
  if (problem === undefined) return;
  const route = exchange.route;
  const source =
    fromErrorHandler || route === undefined
      ? 'An error handler'
      : `${route.route.method} ${route.template}`;
  const message = `${source} returned ${problem}`;
  const key = fromErrorHandler || route === undefined ? exchange.table : route;
  if (!reported.has(key)) {
    reported.add(key);
    exchange.host.logger.error(message, { requestId: exchange.request.requestId });
  }
  throw libraryAnswer(new HttpError(500, undefined, exchange.host.debug ? { message } : undefined));
}
