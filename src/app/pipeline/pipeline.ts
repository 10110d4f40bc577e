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
 *
 * This module is the way in and out: the exchange, the timeout, the answer to a failure and the
 * way out (step 8). Step 1 is route-request.ts, steps 2 to 7 route-steps.ts.
 */

import { HttpError, libraryAnswer } from '../../errors.js';
import { HTTPMethod } from '../../http/methods.js';
import type { ReadableStreamLike, Request } from '../../request.js';
import { isStream, type Response } from '../../response.js';
import { now } from '../features/hooks.js';
import { assignRequestId } from '../features/request-id.js';
import { requestSignal } from '../inject/signal.js';
import type { RoutingTable } from '../routing/routing-table.js';
import { EventStream } from '../sse.js';
import { isPending } from '../thenable.js';
import { guardStream, isClientGone, withDeadline, withStreamDeadline } from './deadline.js';
import { answerError, builtinAnswer } from './error-response.js';
import type { Exchange, PipelineHost } from './exchange.js';
import { finalizeResponse } from './finalize.js';
import { afterResponse } from './hook-steps.js';
import { routeRequest } from './route-request.js';

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
 * is mostly what stopping it caused: a handler's aborted `fetch`, a step the pipeline did not
 * start. No client reads this answer, so it is the built-in 503 with the signal's reason, without
 * the error handlers, which are for failures someone is told about. An HttpError is still the
 * answer it names (a body cut short by the client leaving is its 400).
 */
function answerFailure(exchange: Exchange, error: unknown): Response | Promise<Response> {
  // Made now if nothing asked for it: the adapter says at once whether the client left (a body
  // piped from `request.body.message` fails with Node's `aborted` when it does).
  const signal = exchange.state === undefined ? undefined : requestSignal(exchange.state);
  if (signal === undefined || !signal.aborted || error instanceof HttpError) {
    return answerError(exchange, error);
  }
  const reason: unknown = signal.reason;
  // Only the signal's own reason (or an error caused by it: Node's signal-taking APIs, such as
  // `timers/promises`, reject with an AbortError whose cause is the reason), or anything once the
  // client is gone, is what stopping caused (docs/streams.md); a failure of its own after the
  // timeout's 503 (a database write that broke) is still one the operator must see, as the error
  // line of any unhandled error.
  if (!stoppedBy(error, reason) && !isClientGone(reason)) {
    const { host, request } = exchange;
    host.logger.error('Unhandled error in request, after its timeout was answered 503', {
      requestId: request.requestId,
      method: request.method,
      path: request.path,
      error,
    });
  }
  const message = reason instanceof Error ? reason.message : 'The request was stopped';
  return builtinAnswer(exchange, libraryAnswer(new HttpError(503, message)));
}

/** Whether `error` is the signal's `reason`, or an error that names it as its cause. */
function stoppedBy(error: unknown, reason: unknown): boolean {
  return error === reason || (error instanceof Error && error.cause === reason);
}

/**
 * Answers `request` with `error` through the error path (error handlers, the application's
 * CORS and default headers), without routing it: for a request an adapter could not read, or
 * (`hooksRan`) one whose answer failed before anything of it was sent.
 */
export function refuseRequest(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
  error: HttpError,
  hooksRan = false,
): Response | Promise<Response> {
  assignRequestId(request);
  const exchange = newExchange(host, table, request);
  const response = answerError(exchange, error);
  // `onResponse` runs once per request: not again for an answer that replaces one it saw.
  if (exchange.onResponse === undefined || hooksRan) return response;
  return afterResponse(exchange, response);
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
