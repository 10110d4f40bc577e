/**
 * Errors on the way through the pipeline become responses here: the application's error handler
 * for the status when there is one, else the built-in body (docs/application.md, "Errors").
 * Nothing a request causes escapes as an exception.
 */

import { HttpError, isReportedFailure, SetupError, ValidationError } from '../../errors.js';
import { checkValue } from '../../http/header-fields.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { negotiate } from '../../http/media-type.js';
import { reasonPhrase } from '../../http/status.js';
import { addVary } from '../../http/vary.js';
import type { Request } from '../../request.js';
import { Response } from '../../response.js';
import type { CompiledRenderer } from '../features/renderers.js';
import { buildContext } from '../inject/getters.js';
import { newRequestState } from '../inject/request-state.js';
import type { Logger } from '../logger.js';
import type { CompiledErrorHandler } from '../routing/routing-table.js';
import { isThenable } from '../thenable.js';
import type { Exchange } from './exchange.js';
import { checkFinalStatus, finalizeResponse } from './finalize.js';
import { respond } from './respond.js';

/** What an error stands for, as the client will see it. */
interface ErrorInfo {
  status: number;
  message: string;
  details: unknown;
  /** How many issues a 422's `details` leaves out (ISSUES_LISTED). */
  detailsOmitted: number;
  headers: Readonly<Record<string, string>> | undefined;
  /** The `error` line of a failure the operator must see, written once its answer is known. */
  failure?: string;
}

/**
 * An HttpError says what to answer; anything else is a 500 whose message and stack go to the
 * log, and into the body only in debug mode. A 5xx HttpError the application threw is logged
 * too: it reports a failure on the server's side (RFC 9110 §15.6), which the operator needs to
 * see as much as a crash. Both lines wait for the answer (reportFailure).
 */
function describeError(exchange: Exchange, error: unknown): ErrorInfo {
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      message: error.message,
      details: error instanceof ValidationError ? error.issues : error.details,
      detailsOmitted: error instanceof ValidationError ? error.issuesOmitted : 0,
      headers: error.headers,
      ...(isReportedFailure(error)
        ? { failure: `Request answered ${error.statusCode}: ${error.message}` }
        : {}),
    };
  }
  const { host, request } = exchange;
  // An application that cannot run says why at once, whatever its error handlers answer.
  if (error instanceof SetupError) {
    host.logger.error(error.message, { requestId: request.requestId, code: error.code, error });
  }
  const details = host.debug ? debugDetails(error) : undefined;
  return {
    status: 500,
    message: reasonPhrase(500),
    details,
    detailsOmitted: 0,
    headers: undefined,
    ...(error instanceof SetupError ? {} : { failure: 'Unhandled error in request' }),
  };
}

/**
 * Writes a failure's line once its answer's `status` is known. An error handler that turned it
 * into an answer below 500 (a domain error mapped to its 409, as Fastify's setErrorHandler is
 * used) handled it: the client was told a client error, so it is no server failure to alert on
 * (RFC 9110 §15.5, §15.6), but an `info` line keeps it traceable (docs/logging.md).
 */
function reportFailure(exchange: Exchange, info: ErrorInfo, error: unknown, status: number): void {
  if (info.failure === undefined) return;
  const { host, request } = exchange;
  const fields = {
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    error,
  };
  if (status < 500) host.logger.info(`Error answered ${status} by an error handler`, fields);
  else host.logger.error(info.failure, fields);
}

/** What debug mode shows of a thrown value: an Error's name, message and stack, else its text. */
function debugDetails(error: unknown): Record<string, unknown> {
  if (error instanceof Error)
    return { name: error.name, message: error.message, stack: error.stack };
  try {
    return { thrown: String(error) };
  } catch {
    // An object whose conversion to text throws, or one without a prototype.
    return { thrown: Object.prototype.toString.call(error) };
  }
}

const JSON_TYPE = [{ type: 'application', subtype: 'json', params: {} }];
// As it is sent, so `Accept: text/plain; charset=utf-8` takes it.
const TEXT_TYPE = [{ type: 'text', subtype: 'plain', params: { charset: 'utf-8' } }];

/**
 * The built-in error body: `{"error", "statusCode", "path", "details"?, "detailsOmitted"?}` as
 * JSON, or the plain message for a client that accepts only text, unless `jsonOnly`
 * (`renderers: 'json'`).
 */
export function builtinErrorResponse(
  request: Request,
  status: number,
  message: string,
  details: unknown,
  jsonOnly = false,
  detailsOmitted = 0,
): Response {
  const accept = jsonOnly ? undefined : MultiValueHeaders.getList(request.headers, 'accept');
  // Only a client that cannot take JSON gets text: one that merely prefers text keeps the
  // details (docs/application.md, "Errors").
  const plain =
    accept !== undefined &&
    negotiate(accept, JSON_TYPE) === undefined &&
    negotiate(accept, TEXT_TYPE) !== undefined;
  let response: Response;
  if (plain) {
    response = new Response(status, message, { contentType: 'text/plain; charset=utf-8' });
  } else {
    const body: Record<string, unknown> = {
      error: message,
      statusCode: status,
      path: request.path,
    };
    if (details !== undefined) body.details = details;
    if (detailsOmitted > 0) body.detailsOmitted = detailsOmitted;
    response = new Response(status, JSON.stringify(body), { contentType: 'application/json' });
  }
  // The body depends on Accept (JSON or the plain message), so a cache must key it on Accept too
  // (RFC 9110 §12.5.5); 404, 405, 410 and 501 are cacheable by default (§15.1).
  if (!jsonOnly) MultiValueHeaders.setTrusted(response.headers, 'Vary', 'vary', 'Accept');
  return response;
}

/**
 * The 500 of an application that cannot run, completed like every answer (its Content-Type and
 * Content-Length, the request id, no body on HEAD) but with none of the application's features.
 */
export function failedApplicationResponse(request: Request, jsonOnly: boolean): Response {
  const response = builtinErrorResponse(request, 500, 'Internal Server Error', undefined, jsonOnly);
  // A text body completes without waiting (only a file or a Blob body waits).
  return finalizeResponse(response, request, request.method === 'HEAD') as Response;
}

/**
 * The response for `error`, completed for sending like any other. When that response cannot be
 * made (details JSON cannot encode, a header value with CR or LF), the answer is the built-in 500.
 */
export async function answerError(exchange: Exchange, error: unknown): Promise<Response> {
  const { request, host } = exchange;
  const info = describeError(exchange, error);
  let reported = false;
  try {
    const response = await errorResponse(exchange, info, error);
    reportFailure(exchange, info, error, response.statusCode);
    reported = true;
    // Error responses carry the route's CORS headers too, so a browser script can read them.
    return await finalizeResponse(
      response,
      request,
      exchange.head,
      exchange.features,
      exchange.state,
      true,
    );
  } catch (failure) {
    // Answered by the built-in 500 below: the failure it answers is a server failure too.
    if (!reported) reportFailure(exchange, info, error, 500);
    logFailure(host.logger, request, 'Could not complete an error response', failure);
    const fallback = builtinErrorResponse(
      request,
      500,
      reasonPhrase(500),
      undefined,
      host.jsonOnly,
    );
    return finalizeResponse(fallback, request, exchange.head);
  }
}

/**
 * The built-in response for `error`, completed without any of the application's code (no error
 * handler): what answers when the error handlers cannot answer in time.
 */
export function builtinAnswer(exchange: Exchange, error: HttpError): Response | Promise<Response> {
  const { request, host } = exchange;
  const response = builtinErrorResponse(
    request,
    error.statusCode,
    error.message,
    undefined,
    host.jsonOnly,
  );
  return finalizeResponse(response, request, exchange.head, exchange.features, exchange.state);
}

/** The error response before completion: the application's error handler's, or the built-in. */
async function errorResponse(
  exchange: Exchange,
  info: ErrorInfo,
  error: unknown,
): Promise<Response> {
  const { request, table, host } = exchange;
  // A routed request's errors go to its routers' handlers first (docs/hooks-and-scope.md).
  const handlers = exchange.route?.errorHandlers ?? table.errorHandlers;
  const handler = handlers.get(info.status) ?? handlers.get('default');
  let response: Response | undefined;
  if (handler !== undefined) {
    try {
      response = await runErrorHandler(exchange, handler, info, error);
      // An answer with a status no request can have fails here, as a handler that throws
      // does, not later when the response is completed, where it would turn into a 500.
      checkFinalStatus(response.statusCode);
    } catch (handlerError) {
      // An error handler that fails falls back to the built-in response (docs/application.md).
      response = undefined;
      logFailure(host.logger, request, 'Error handler failed', handlerError);
    }
  }
  response ??= builtinErrorResponse(
    request,
    info.status,
    info.message,
    info.details,
    host.jsonOnly,
    info.detailsOmitted,
  );
  if (info.headers !== undefined) addErrorHeaders(response, info.headers);
  if (info.status === 415) acceptHeaders(response, request, exchange.route?.accept ?? '*/*');
  return response;
}

/**
 * Puts the headers an `HttpError` carries on its response, each replacing the response's own but
 * two, which describe the body: that body is the built-in one or the error handler's, never the
 * error's (docs/application.md, "Errors"). `Vary` is merged, since the response still varies on
 * what its body depends on (`Accept` for the built-in one, RFC 9110 §12.5.5); `*` stands alone,
 * as it says the response varies on everything. `Content-Type` is left out: the type that goes
 * out is the one of the body that goes out.
 */
function addErrorHeaders(response: Response, headers: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(headers)) {
    const key = name.toLowerCase();
    if (key === 'content-type') continue;
    const value = String(headers[name]);
    if (key !== 'vary') {
      response.headers.set(name, value);
      continue;
    }
    // Checked as any value is (no CR or LF), then merged one member at a time.
    checkValue(name, value);
    const members = value.split(',').map((member) => member.trim());
    if (members.includes('*')) response.headers.set('Vary', '*');
    else for (const member of members) if (member !== '') addVary(response.headers, member);
  }
}

/**
 * A 415 says what the route would take: `Accept` (RFC 9110 §15.5.16), and `Accept-Patch` on a
 * PATCH (RFC 5789 §2.2). Headers the error already carries win.
 */
function acceptHeaders(response: Response, request: Request, accept: string): void {
  if (!response.headers.has('accept')) response.headers.set('Accept', accept);
  if (request.method === 'PATCH' && !response.headers.has('accept-patch')) {
    response.headers.set('Accept-Patch', accept);
  }
}

async function runErrorHandler(
  exchange: Exchange,
  handler: CompiledErrorHandler,
  info: ErrorInfo,
  cause: unknown,
): Promise<Response> {
  exchange.state ??= newRequestState(exchange.request);
  const state = exchange.state;
  state.extra = {
    error: {
      statusCode: info.status,
      message: info.message,
      path: exchange.request.path,
      details: info.details,
      ...(info.detailsOmitted > 0 ? { detailsOmitted: info.detailsOmitted } : {}),
      cause,
    },
  };
  let context = buildContext(handler.names, handler.getters, state);
  if (isThenable(context)) context = await context;
  let result: unknown = (handler.fn as (c: object) => unknown)(context);
  if (isThenable(result)) result = await result;
  const renderers = exchange.table.renderers;
  const accept = MultiValueHeaders.getList(exchange.request.headers, 'accept');
  const negotiated = negotiate(accept, renderers) ?? (renderers[0] as CompiledRenderer);
  return respond(exchange, result, exchange.table, negotiated, info.status);
}

function logFailure(logger: Logger, request: Request, message: string, error: unknown): void {
  logger.error(message, { requestId: request.requestId, error });
}
