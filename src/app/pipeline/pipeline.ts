/**
 * The request pipeline, in the webmachine order (docs/http-semantics.md): one function per step,
 * each taking the request's exchange. A step that finishes synchronously hands over to the next
 * at once; one that returns a promise makes the rest wait for it, so a route whose providers and
 * handler are synchronous answers without allocating a promise.
 *
 * A route runs only the steps it has something for: without hooks, authorization hooks,
 * resourceExists providers or ETag / Last-Modified providers it goes from matching straight to
 * its handler. `onRequest` hooks run after routing (the application's before routing answers,
 * the routers' and the route's before authorization); `onResponse` hooks once the response is
 * final, error responses included (docs/hooks-and-scope.md).
 */

import { HttpError, libraryAnswer } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { allowForPath, HTTPMethod, parseMethod } from '../../http/methods.js';
import {
  type ReadableStreamLike,
  type Request,
  recordBodyLimit,
  recordPathParams,
  recordRouting,
} from '../../request.js';
import { isStream, Response } from '../../response.js';
import { isPreflight } from '../features/cors.js';
import { type CompiledHook, now, type RouteHooks, runOnRequest } from '../features/hooks.js';
import { assignRequestId } from '../features/request-id.js';
import { answerPreflight, pathFeatures, preflightEntry } from '../features/route-features.js';
import { NO_PARAM_VALUES, newRequestState } from '../inject/request-state.js';
import { MALFORMED, type PathMatch } from '../routing/path-matcher.js';
import type { CompiledRoute, RoutingTable } from '../routing/routing-table.js';
import { EventStream } from '../sse.js';
import { isPending } from '../thenable.js';
import { releaseUploadsAfter } from '../uploads/inject.js';
import { isMultipart, multipartTotal } from '../uploads/limits.js';
import { guardStream, withDeadline, withStreamDeadline } from './deadline.js';
import { answerError, builtinAnswer } from './error-response.js';
import type { Exchange, PipelineHost } from './exchange.js';
import { finalizeResponse } from './finalize.js';
import { afterOnRequest, afterResponse } from './hook-steps.js';
import { checkAuthorization, type RoutedExchange } from './route-steps.js';

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
  let response = answer(exchange);
  // An answer still pending can run out of time; one ready now only while its stream is sent.
  const timeout = host.requestTimeout;
  if (timeout !== undefined) {
    response = isPending(response)
      ? withDeadline(
          exchange,
          response,
          timeout,
          (error) => answerError(exchange, error),
          (error) => builtinAnswer(exchange, error),
        )
      : withStreamDeadline(exchange, response, timeout);
  }
  // Routing decided synchronously which onResponse hooks apply; most requests have none.
  return exchange.onResponse === undefined ? response : afterResponse(exchange, response);
}

function answer(exchange: Exchange): Response | Promise<Response> {
  let response: Response | Promise<Response>;
  try {
    response = routeRequest(exchange);
  } catch (error) {
    return answerFailure(exchange, error);
  }
  if (isPending(response)) {
    return response.then(
      (resolved) => finish(exchange, resolved),
      (error: unknown) => answerFailure(exchange, error),
    );
  }
  return finish(exchange, response);
}

/**
 * A failure once the request's signal fired (its timeout answered 503, or the client went away)
 * is what stopping it caused: a handler's aborted `fetch`, a step the pipeline did not start. No
 * client reads this answer, so it is the built-in 503 with the signal's reason, without an error
 * line or the error handlers, which are for failures someone is told about. An HttpError is
 * still the answer it names (a body cut short by the client leaving is its 400).
 */
function answerFailure(exchange: Exchange, error: unknown): Response | Promise<Response> {
  const signal = exchange.state?.abort?.signal;
  if (signal === undefined || !signal.aborted || error instanceof HttpError) {
    return answerError(exchange, error);
  }
  const reason: unknown = signal.reason;
  const message = reason instanceof Error ? reason.message : 'The request was stopped';
  return builtinAnswer(exchange, libraryAnswer(new HttpError(503, message)));
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
): Response | Promise<Response> {
  assignRequestId(request);
  const exchange = newExchange(host, table, request);
  const response = answerError(exchange, error);
  return exchange.onResponse === undefined ? response : afterResponse(exchange, response);
}

function newExchange(host: PipelineHost, table: RoutingTable, request: Request): Exchange {
  return {
    host,
    table,
    request,
    // A HEAD gets no content whatever answers it: a route, routing (404) or a hook.
    head: request.method === HTTPMethod.HEAD,
    route: undefined,
    state: undefined,
    features: table.features,
    renderer: undefined,
    onResponse: table.onResponse,
    started: table.onResponse === undefined ? 0 : now(),
  };
}

/** The way out (step 8); a 412 or 416 found there becomes the error response. */
function finish(exchange: Exchange, response: Response): Response | Promise<Response> {
  try {
    const { request, head, features, state } = exchange;
    // Asked before compression replaces the body of an event stream with its encoder's.
    const events = response.body instanceof EventStream;
    if (request.context.buffered === true && isEventStream(response)) {
      return refuseEventStream(exchange, response);
    }
    const done = finalizeResponse(response, request, head, features, state);
    if (!isPending(done)) return bindSignal(exchange, done, events);
    return done.then(
      (final) => bindSignal(exchange, final, events),
      (error: unknown) => answerFailure(exchange, error),
    );
  } catch (error) {
    return answerError(exchange, error);
  }
}

/** An `sse()` response, or a stream body a handler typed `text/event-stream` itself. */
function isEventStream(response: Response): boolean {
  const body = response.body;
  if (body instanceof EventStream) return true;
  if (!isStream(body)) return false;
  const type = response.contentType ?? response.headers.get('content-type') ?? '';
  return /^text\/event-stream\s*(;|$)/i.test(type);
}

/**
 * An adapter that holds the whole body before sending (the buffered Lambda handler) cannot send
 * an event stream, which never ends: its producer is stopped before it starts, and the answer
 * is the application's 500, a HEAD's included, before the `onResponse` hooks see anything
 * (docs/aws-lambda.md).
 */
function refuseEventStream(exchange: Exchange, response: Response): Response | Promise<Response> {
  const body = response.body as AsyncIterable<unknown> | ReadableStreamLike;
  const stopped =
    Symbol.asyncIterator in body
      ? body[Symbol.asyncIterator]().return?.()
      : body.getReader().cancel();
  Promise.resolve(stopped).catch(() => undefined);
  const { request, host } = exchange;
  host.logger.error(
    'An event stream (text/event-stream) cannot be sent by an adapter that holds the whole body; on Lambda, serve it with adapter.streamHandler (response streaming)',
    { requestId: request.requestId, path: request.path },
  );
  return answerError(exchange, libraryAnswer(new HttpError(500)));
}

/**
 * A stream body stops when the request's signal fires, for routes that asked for the signal and
 * for event streams (docs/streams.md); other bodies never look at it.
 */
function bindSignal(exchange: Exchange, response: Response, events: boolean): Response {
  return exchange.state?.abort !== undefined || events ? guardStream(exchange, response) : response;
}

/**
 * Step 1: route and method. 400 for a malformed path, 404, 405 with `Allow`, OPTIONS and CORS
 * preflights, HEAD by the GET route, 501 for an unknown method, and 413 for a declared
 * Content-Length over the limit, before anything reads the body. The application's `onRequest`
 * hooks run between finding the route and giving any of these answers.
 */
function routeRequest(exchange: Exchange): Response | Promise<Response> {
  const { table, request } = exchange;
  recordBodyLimit(request, exchange.host.bodyLimit);
  // None until a route matches, whatever the request was constructed with.
  recordPathParams(request, NO_PARAM_VALUES, NO_PARAM_VALUES);
  assignRequestId(request);
  // The target `*` names the server, never a resource: no route takes it, a catch-all included.
  const matched = request.path === '*' ? undefined : table.matcher.match(request.path);
  if (matched === MALFORMED) throw new HttpError(400, 'Malformed percent-encoding in request path');
  if (table.onRequest === undefined) return dispatchRoute(exchange, matched);
  return runApplicationHooks(exchange, matched, table.onRequest);
}

/**
 * The application's `onRequest` hooks, once the route is known and before any answer routing
 * gives: they see its path parameters, and its `onResponse` hooks apply from here on.
 */
function runApplicationHooks(
  exchange: Exchange,
  matched: PathMatch<CompiledRoute> | undefined,
  hooks: readonly CompiledHook[],
): Response | Promise<Response> {
  const { request } = exchange;
  const method = parseMethod(request.method);
  let values: readonly string[] | undefined;
  if (matched !== undefined && method !== undefined) {
    const byMethod = matched.leaf.byMethod;
    const preflight =
      method === HTTPMethod.OPTIONS && answerPreflight(byMethod, request) !== undefined;
    const entry = preflight
      ? preflightEntry(byMethod, request)
      : (byMethod.get(method) ??
        (method === HTTPMethod.HEAD ? byMethod.get(HTTPMethod.GET) : undefined));
    if (entry !== undefined) {
      values = matched.values;
      recordPathParams(request, entry.paramNames, values);
      adoptHooks(exchange, entry.value.hooks);
      // A hook's answer to a routed request is the route's: its CORS headers, its routers'
      // error handlers and representations, as for an answer from the route's own hooks.
      if (!preflight) {
        exchange.route = entry.value;
        exchange.features = entry.value.features;
      }
    }
  }
  exchange.state = newRequestState(request, values);
  return afterOnRequest(exchange, runOnRequest(hooks, exchange.state), () =>
    dispatchRoute(exchange, matched),
  );
}

/** From here on the route's `onResponse` hooks (which end with the application's) apply. */
function adoptHooks(exchange: Exchange, hooks: RouteHooks | undefined): void {
  if (hooks === undefined) return;
  exchange.onResponse = hooks.onResponse;
  if (exchange.started === 0 && hooks.onResponse !== undefined) exchange.started = now();
}

/**
 * The request target `*` (RFC 9112 §3.2.4) is the server as a whole and only OPTIONS may name
 * it: it answers that the server is there (RFC 9110 §9.3.7); any other method is a 400.
 */
function asteriskForm(method: HTTPMethod): Response {
  if (method === HTTPMethod.OPTIONS) return new Response(204);
  throw new HttpError(400, 'The request target * is only for OPTIONS (RFC 9112 §3.2.4)');
}

/** Gives the answers routing found, or hands the request to its route (steps 2 to 7). */
function dispatchRoute(
  exchange: Exchange,
  matched: PathMatch<CompiledRoute> | undefined,
): Response | Promise<Response> {
  const { host, table, request } = exchange;
  const method = parseMethod(request.method);
  if (method === undefined) {
    throw libraryAnswer(
      new HttpError(501, `Method ${JSON.stringify(request.method)} is not implemented`),
    );
  }
  if (matched === undefined) {
    if (request.path === '*') return asteriskForm(method);
    throw new HttpError(404);
  }
  recordRouting(request, matched.leaf.template);
  const byMethod = matched.leaf.byMethod;
  if (method === HTTPMethod.OPTIONS && isPreflight(request)) {
    const preflight = answerPreflight(byMethod, request);
    if (preflight !== undefined) {
      exchange.features = table.defaultsOnly;
      return preflightHooks(exchange, matched, preflight);
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
    const allow = allowForPath(byMethod.keys());
    if (method === HTTPMethod.OPTIONS) {
      return new Response(204, undefined, { headers: { Allow: allow } });
    }
    throw new HttpError(405, undefined, undefined, { Allow: allow });
  }
  const route = entry.value;
  // A route's own bodyLimit() replaces the application's, for this check and for reading; the
  // multipart limits of a route that takes uploads replace both for a multipart body.
  const uploads =
    route.uploads !== undefined && isMultipart(request.headers.get('content-type'))
      ? route.uploads
      : undefined;
  const limit =
    uploads !== undefined
      ? multipartTotal(uploads)
      : ((route.route.settings.bodyLimit as number | undefined) ?? host.bodyLimit);
  if (limit !== host.bodyLimit) recordBodyLimit(request, limit);
  const declared = MultiValueHeaders.getLower(request.headers, 'content-length');
  if (declared !== undefined && Number(declared) > limit) {
    // An upload says which of its limits it crossed, as when the bound is crossed while read.
    if (uploads !== undefined) {
      throw new HttpError(413, `Upload over the size limit of ${limit} bytes`, [{ limit: 'size' }]);
    }
    throw new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
  }
  const state = exchange.state ?? newRequestState(request, matched.values);
  recordRouting(request, route.template);
  recordPathParams(request, entry.paramNames, matched.values);
  exchange.features = route.features;
  const hooks = route.hooks;
  adoptHooks(exchange, hooks);
  if (route.problem !== undefined) throw route.problem;
  const routed = exchange as RoutedExchange;
  routed.route = route;
  routed.state = state;
  const answer =
    hooks?.onRequest === undefined
      ? checkAuthorization(routed)
      : afterOnRequest(routed, runOnRequest(hooks.onRequest, state), () =>
          checkAuthorization(routed),
        );
  // An upload is dropped (temporary files removed) once the route answered, whichever way.
  const released = uploads === undefined ? answer : releaseUploadsAfter(state, answer);
  return method === HTTPMethod.OPTIONS
    ? withAllow(released, allowForPath(byMethod.keys()))
    : released;
}

/**
 * A route's own successful answer to OPTIONS says which methods the path takes, as the
 * built-in one does (RFC 9110 §9.3.7), unless the handler wrote its own `Allow`.
 */
function withAllow(
  answer: Response | Promise<Response>,
  allow: string,
): Response | Promise<Response> {
  const add = (response: Response): Response => {
    if (response.statusCode < 300 && !response.headers.has('allow')) {
      response.headers.set('Allow', allow);
    }
    return response;
  };
  return isPending(answer) ? answer.then(add) : add(answer);
}

/** A preflight runs the hooks of the route it asks about, never its authorization. */
function preflightHooks(
  exchange: Exchange,
  matched: PathMatch<CompiledRoute>,
  preflight: Response,
): Response | Promise<Response> {
  const entry = preflightEntry(matched.leaf.byMethod, exchange.request);
  const hooks = entry?.value.hooks;
  if (entry === undefined || hooks === undefined) return preflight;
  adoptHooks(exchange, hooks);
  if (hooks.onRequest === undefined) return preflight;
  exchange.state ??= newRequestState(exchange.request, matched.values);
  recordPathParams(exchange.request, entry.paramNames, matched.values);
  return afterOnRequest(exchange, runOnRequest(hooks.onRequest, exchange.state), () => preflight);
}
