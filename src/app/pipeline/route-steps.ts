/**
 * Steps 2 to 7 of the pipeline (docs/http-semantics.md), once a route took the request:
 * authorization, negotiation, resource existence, preconditions, the handler's inputs and the
 * handler. Each step hands over to the next at once when it finished synchronously, and after
 * the promise it returned otherwise; `respond` turns the handler's result into the response.
 * After a wait, nothing starts once the request's signal fired (its timeout answered, or the
 * client went away): the signal's reason is thrown instead (docs/streams.md).
 */
import { recordBody } from '../../request.js';
import type { Response } from '../../response.js';
import { checkRoutePreconditions } from '../features/conditional.js';
import type { CompiledRenderer } from '../features/renderers.js';
import { jsonBodyUnread } from '../inject/body-parsers.js';
import { buildContext, runGetters } from '../inject/getters.js';
import type { RequestState } from '../inject/request-state.js';
import { stopIfAborted } from '../inject/signal.js';
import type { CompiledRoute } from '../routing/routing-table.js';
import { isPending, isThenable } from '../thenable.js';
import type { Exchange } from './exchange.js';
import { chooseRenderer, respond } from './respond.js';

/** The exchange once a route took the request. */
export interface RoutedExchange extends Exchange {
  route: CompiledRoute;
  state: RequestState;
}

type Step = (exchange: RoutedExchange) => Response | Promise<Response>;

/**
 * Goes on with `next` now, or once `pending` settles when a step had to wait: unless the
 * request's signal fired meanwhile (its timeout answered, or the client went away), when no
 * further step starts (docs/streams.md).
 */
function continueWith(
  exchange: RoutedExchange,
  pending: PromiseLike<unknown> | undefined,
  next: Step,
): Response | Promise<Response> {
  if (pending === undefined) return next(exchange);
  return Promise.resolve(pending).then(() => {
    stopIfAborted(exchange.state);
    return next(exchange);
  });
}

/** Step 2: the route's authorization hooks (401 / 403), before anything else is revealed. */
export function checkAuthorization(exchange: RoutedExchange): Response | Promise<Response> {
  const hooks = exchange.route.features?.authorization;
  const pending = hooks === undefined ? undefined : runGetters(hooks, exchange.state, 0);
  return continueWith(exchange, pending, negotiate);
}

/** Step 3: content negotiation, 406 before any provider or handler runs. */
function negotiate(exchange: RoutedExchange): Response | Promise<Response> {
  exchange.renderer = chooseRenderer(exchange.route, exchange.request);
  exchange.state.chosen = exchange.renderer;
  return checkResourcesExist(exchange);
}

/** Step 4: the `resourceExists` providers the handler reaches; null or undefined is a 404. */
function checkResourcesExist(exchange: RoutedExchange): Response | Promise<Response> {
  const pending = runGetters(exchange.route.existsGetters, exchange.state, 0);
  return continueWith(exchange, pending, checkPreconditions);
}

/**
 * Step 5: preconditions against the route's ETag / Last-Modified providers: a 304 without
 * running the handler, or a 412 before any side effect.
 */
function checkPreconditions(exchange: RoutedExchange): Response | Promise<Response> {
  const conditional = exchange.route.features?.conditional;
  if (conditional === undefined) return callHandler(exchange);
  const notModified = checkRoutePreconditions(conditional, exchange.state);
  if (isPending(notModified)) {
    return notModified.then((response) => {
      stopIfAborted(exchange.state);
      return response ?? callHandler(exchange);
    });
  }
  return notModified ?? callHandler(exchange);
}

/**
 * Steps 6 and 7: everything else the handler needs (bodies, validators), then the handler. A
 * JSON body still on its way is read whole first, so that what follows needs no promise.
 */
function callHandler(exchange: RoutedExchange): Response | Promise<Response> {
  const { route, state } = exchange;
  // 2,271 instructions fewer per notes POST (median of four paired counts, bench/RESULTS.md).
  if (route.readsJson && jsonBodyUnread(exchange.request)) return readBodyFirst(exchange);
  const context = buildContext(route.names, route.getters, state);
  if (isPending(context)) {
    return context.then((resolved) => {
      stopIfAborted(state);
      return runHandler(exchange, resolved);
    });
  }
  return runHandler(exchange, context);
}

/** Reads the JSON body whole and keeps it on the request, then goes on with step 6. */
function readBodyFirst(exchange: RoutedExchange): Promise<Response> {
  const request = exchange.request;
  return request.bytes().then((bytes) => {
    stopIfAborted(exchange.state);
    recordBody(request, bytes);
    return callHandler(exchange);
  });
}

function runHandler(exchange: RoutedExchange, context: object): Response | Promise<Response> {
  const result: unknown = (exchange.route.route.handler.fn as (c: object) => unknown)(context);
  if (isThenable(result)) {
    return Promise.resolve(result).then((resolved) => respondToHandler(exchange, resolved));
  }
  return respondToHandler(exchange, result);
}

function respondToHandler(exchange: RoutedExchange, result: unknown): Response | Promise<Response> {
  // `validateResponses` (development): routes without it have no check to skip.
  const check = exchange.route.resultCheck;
  if (check !== undefined) {
    const checked = check(result, exchange.request.requestId);
    if (checked !== undefined) return checked.then(() => respondChecked(exchange, result));
  }
  return respondChecked(exchange, result);
}

function respondChecked(exchange: RoutedExchange, result: unknown): Response | Promise<Response> {
  return respond(exchange, result, exchange.route, exchange.renderer as CompiledRenderer);
}
