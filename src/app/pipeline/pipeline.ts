/**
 * The request pipeline, in the webmachine order (docs/http-semantics.md): one function per step,
 * each taking the request's exchange. A step that finishes synchronously hands over to the next
 * at once; one that returns a promise makes the rest wait for it, so a route whose providers and
 * handler are synchronous answers without allocating a promise.
 *
 * A route runs only the steps it has something for: without authorization hooks, resourceExists
 * providers or ETag / Last-Modified providers it goes from matching straight to its handler.
 */

import { HttpError } from '../../errors.js';
import { DataRecord } from '../../http/data-record.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { formatAllow, HTTPMethod, parseMethod } from '../../http/methods.js';
import { type Request, recordBodyLimit, recordRouting } from '../../request.js';
import { Response } from '../../response.js';
import { checkRoutePreconditions } from '../features/conditional.js';
import { isPreflight } from '../features/cors.js';
import { assignRequestId } from '../features/request-id.js';
import { answerPreflight, pathFeatures } from '../features/route-features.js';
import { buildContext, runGetters } from '../inject/getters.js';
import { newRequestState, type RequestState } from '../inject/request-state.js';
import { MALFORMED } from '../routing/path-matcher.js';
import type { CompiledRoute, RoutingTable } from '../routing/routing-table.js';
import { isThenable } from '../thenable.js';
import { answerError } from './error-response.js';
import type { Exchange, PipelineHost } from './exchange.js';
import { finalizeResponse } from './finalize.js';
import type { CompiledRenderer } from './renderers.js';
import { chooseRenderer, respond } from './respond.js';

/**
 * Runs `request` through `table`; never throws. The response itself when nothing on the way was
 * asynchronous, otherwise a promise of it.
 */
export function runPipeline(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
): Response | Promise<Response> {
  const exchange = newExchange(host, table, request);
  let response: Response | Promise<Response>;
  try {
    response = routeRequest(exchange);
  } catch (error) {
    return answerError(exchange, error);
  }
  if (isThenable(response)) {
    return response.then(
      (resolved) => finish(exchange, resolved),
      (error: unknown) => answerError(exchange, error),
    );
  }
  return finish(exchange, response);
}

/**
 * Answers `request` with `error` through the error path (error handlers, the application's
 * CORS and default headers), without routing it: for a request an adapter could not read.
 */
export function refuseRequest(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
  error: HttpError,
): Promise<Response> {
  assignRequestId(request);
  const exchange = newExchange(host, table, request);
  exchange.head = request.method === HTTPMethod.HEAD;
  return answerError(exchange, error);
}

function newExchange(host: PipelineHost, table: RoutingTable, request: Request): Exchange {
  return {
    host,
    table,
    request,
    head: false,
    route: undefined,
    state: undefined,
    features: table.features,
    renderer: undefined,
  };
}

/** The way out (step 8); a 412 or 416 found there becomes the error response. */
function finish(exchange: Exchange, response: Response): Response | Promise<Response> {
  try {
    const { request, head, features, state } = exchange;
    const done = finalizeResponse(response, request, head, features, state);
    if (!isThenable(done)) return done;
    return done.then(undefined, (error: unknown) => answerError(exchange, error));
  } catch (error) {
    return answerError(exchange, error);
  }
}

/**
 * Step 1: route and method. 400 for a malformed path, 404, 405 with `Allow`, OPTIONS and CORS
 * preflights, HEAD by the GET route, 501 for an unknown method, and 413 for a declared
 * Content-Length over the limit, before anything reads the body.
 */
function routeRequest(exchange: Exchange): Response | Promise<Response> {
  const { host, table, request } = exchange;
  recordBodyLimit(request, host.bodyLimit);
  assignRequestId(request);
  const matched = table.matcher.match(request.path);
  if (matched === MALFORMED) throw new HttpError(400, 'Malformed percent-encoding in request path');
  const method = parseMethod(request.method);
  if (method === undefined) {
    throw new HttpError(501, `Method ${JSON.stringify(request.method)} is not implemented`);
  }
  if (matched === undefined) throw new HttpError(404);
  recordRouting(request, matched.leaf.template, undefined);
  const byMethod = matched.leaf.byMethod;
  if (method === HTTPMethod.OPTIONS && isPreflight(request)) {
    const preflight = answerPreflight(byMethod, request);
    if (preflight !== undefined) {
      exchange.features = table.defaultsOnly;
      return preflight;
    }
  }
  let entry = byMethod.get(method);
  if (method === HTTPMethod.HEAD) {
    exchange.head = true;
    entry ??= byMethod.get(HTTPMethod.GET);
  }
  if (entry === undefined) {
    // An answer about the path rather than one of its routes carries the path's CORS headers.
    exchange.features = pathFeatures(byMethod, exchange.features);
    const allow = allowed(byMethod);
    if (method === HTTPMethod.OPTIONS) {
      return new Response(204, undefined, { headers: { Allow: allow } });
    }
    throw new HttpError(405, undefined, undefined, { Allow: allow });
  }
  const declared = MultiValueHeaders.getLower(request.headers, 'content-length');
  if (declared !== undefined && Number(declared) > host.bodyLimit) {
    throw new HttpError(413, `Request body is larger than the limit of ${host.bodyLimit} bytes`);
  }
  const route = entry.value;
  const params = new DataRecord<string>();
  const names = entry.paramNames;
  for (let i = 0; i < names.length; i++) params[names[i] as string] = matched.values[i] as string;
  recordRouting(request, route.template, params);
  exchange.features = route.features;
  if (route.problem !== undefined) throw route.problem;
  const routed = exchange as RoutedExchange;
  routed.route = route;
  routed.state = newRequestState(request, params);
  return checkAuthorization(routed);
}

function allowed(byMethod: ReadonlyMap<string, unknown>): string {
  const methods = new Set(byMethod.keys());
  if (methods.has(HTTPMethod.GET)) methods.add(HTTPMethod.HEAD);
  methods.add(HTTPMethod.OPTIONS);
  return formatAllow(methods);
}

/** The exchange once a route took the request. */
interface RoutedExchange extends Exchange {
  route: CompiledRoute;
  state: RequestState;
}

type Step = (exchange: RoutedExchange) => Response | Promise<Response>;

/** Goes on with `next` now, or once `pending` settles when a step had to wait. */
function continueWith(
  exchange: RoutedExchange,
  pending: PromiseLike<unknown> | undefined,
  next: Step,
): Response | Promise<Response> {
  if (pending === undefined) return next(exchange);
  return Promise.resolve(pending).then(() => next(exchange));
}

/** Step 2: the route's authorization hooks (401 / 403), before anything else is revealed. */
function checkAuthorization(exchange: RoutedExchange): Response | Promise<Response> {
  const hooks = exchange.route.features?.authorization;
  const pending = hooks === undefined ? undefined : runGetters(hooks, exchange.state, 0);
  return continueWith(exchange, pending, negotiate);
}

/** Step 3: content negotiation, 406 before any provider or handler runs. */
function negotiate(exchange: RoutedExchange): Response | Promise<Response> {
  exchange.renderer = chooseRenderer(exchange.route, exchange.request);
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
  return checkRoutePreconditions(conditional, exchange.state).then(
    (notModified) => notModified ?? callHandler(exchange),
  );
}

/** Steps 6 and 7: everything else the handler needs (bodies, validators), then the handler. */
function callHandler(exchange: RoutedExchange): Response | Promise<Response> {
  const { route, state } = exchange;
  const context = buildContext(route.names, route.getters, state);
  if (isThenable(context)) return context.then((resolved) => runHandler(exchange, resolved));
  return runHandler(exchange, context);
}

function runHandler(exchange: RoutedExchange, context: object): Response | Promise<Response> {
  const result: unknown = (exchange.route.route.handler.fn as (c: object) => unknown)(context);
  if (isThenable(result)) {
    return Promise.resolve(result).then((resolved) => respondToHandler(exchange, resolved));
  }
  return respondToHandler(exchange, result);
}

function respondToHandler(exchange: RoutedExchange, result: unknown): Response | Promise<Response> {
  return respond(exchange, result, exchange.route, exchange.renderer as CompiledRenderer);
}
