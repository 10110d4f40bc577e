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
import { describeUnrepresentable } from '../../json-values.js';
import type { Exchange } from './exchange.js';

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
