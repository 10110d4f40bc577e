/**
 * The request pipeline, in the webmachine order of SPEC §5.7. Each step runs only when the
 * route has something for it: a route without providers goes from matching straight to its
 * handler.
 */

import { HttpError, SetupError, ValidationError } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { negotiate } from '../../http/media-type.js';
import { formatAllow, HTTPMethod, parseMethod } from '../../http/methods.js';
import { reasonPhrase } from '../../http/status.js';
import { addVary } from '../../http/vary.js';
import type { Request } from '../../request.js';
import { Response } from '../../response.js';
import { checkRoutePreconditions } from '../features/conditional.js';
import { isPreflight } from '../features/cors.js';
import { requestIdFor } from '../features/request-id.js';
import {
  answerPreflight,
  authorize,
  pathSemantics,
  type RouteSemantics,
} from '../features/route-features.js';
import { buildContext, type Getter, isThenable, type RequestState } from '../inject/getters.js';
import type { Logger } from '../logger.js';
import { MALFORMED } from '../routing/path-matcher.js';
import type { CompiledRoute, RoutingTable } from '../routing/routing-table.js';
import { finalizeResponse } from './finalize.js';
import { type CompiledRenderer, isRawBody, isTuple, makeResponse, unpack } from './renderers.js';

/** What the pipeline needs from the application. */
export interface PipelineHost {
  readonly logger: Logger;
  readonly bodyLimit: number;
  readonly debug: boolean;
}

/** SPEC §12: a client's X-Request-ID is trusted only when well-formed. */
export function assignRequestId(request: Request): void {
  if (request.requestId !== undefined) return;
  const sent = MultiValueHeaders.getLower(request.headers, 'x-request-id');
  request.requestId = requestIdFor(sent);
}

function newState(request: Request, params: Record<string, string>): RequestState {
  return { request, params, cache: undefined, extra: undefined, log: undefined };
}

/**
 * Runs `request` through `table`; never throws. The response comes back synchronously when
 * nothing on the way is asynchronous (no async provider, handler or renderer, no file to stat),
 * so a plain JSON route costs no promise at all; otherwise a promise of it.
 */
export function runPipeline(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
): Response | Promise<Response> {
  let state: RequestState | undefined;
  let head = false;
  // CORS, CSP and default headers of whatever answers: the application's until a route does.
  let semantics: RouteSemantics | undefined = table.semantics;
  try {
    request.bodyLimit = host.bodyLimit;
    assignRequestId(request);
    const matched = table.matcher.match(request.path);
    if (matched === MALFORMED)
      throw new HttpError(400, 'Malformed percent-encoding in request path');
    const method = parseMethod(request.method);
    if (method === undefined) {
      throw new HttpError(501, `Method ${JSON.stringify(request.method)} is not implemented`);
    }
    if (matched === undefined) throw new HttpError(404);
    request.routeTemplate = matched.leaf.template;
    const byMethod = matched.leaf.byMethod;
    if (method === HTTPMethod.OPTIONS && isPreflight(request)) {
      const preflight = answerPreflight(byMethod, request);
      if (preflight !== undefined) {
        return settle(host, table, request, undefined, preflight, false, table.defaultsOnly);
      }
    }
    let entry = byMethod.get(method);
    if (method === HTTPMethod.HEAD) {
      head = true;
      entry ??= byMethod.get(HTTPMethod.GET);
    }
    if (entry === undefined) {
      const allow = allowed(byMethod);
      semantics = pathSemantics(byMethod, semantics);
      if (method === HTTPMethod.OPTIONS) {
        const response = new Response(204, undefined, { headers: { Allow: allow } });
        return settle(host, table, request, undefined, response, false, semantics);
      }
      throw new HttpError(405, undefined, undefined, { Allow: allow });
    }
    // §5.7 step 1: a declared length over the limit is refused before anything reads the body.
    const declared = MultiValueHeaders.getLower(request.headers, 'content-length');
    if (declared !== undefined && Number(declared) > host.bodyLimit) {
      throw new HttpError(413, `Request body is larger than the limit of ${host.bodyLimit} bytes`);
    }
    const compiled = entry.value;
    request.routeTemplate = compiled.template;
    semantics = compiled.semantics;
    const params: Record<string, string> = {};
    const names = entry.paramNames;
    for (let i = 0; i < names.length; i++) params[names[i] as string] = matched.values[i] as string;
    request.pathParams = params;
    state = newState(request, params);
    const response = runRoute(compiled, state);
    if (isThenable(response)) {
      return finishLater(host, table, request, state, response, head, semantics);
    }
    return settle(host, table, request, state, response, head, semantics);
  } catch (error) {
    return handleError(host, table, request, state, error, head, semantics);
  }
}

/** Finalizes a response, turning a failure there (a 412, a 416) into the error response. */
function settle(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
  state: RequestState | undefined,
  response: Response,
  head: boolean,
  semantics: RouteSemantics | undefined,
): Response | Promise<Response> {
  try {
    const done = finalizeResponse(response, request, head, semantics, state);
    if (!isThenable(done)) return done;
    return done.then(undefined, (error: unknown) =>
      handleError(host, table, request, state, error, head, semantics),
    );
  } catch (error) {
    return handleError(host, table, request, state, error, head, semantics);
  }
}

// Continuations below chain with `then` rather than `await`: each `await`, and each promise an
// async function returns, costs the request another turn of the microtask queue.
function finishLater(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
  state: RequestState,
  pending: Promise<Response>,
  head: boolean,
  semantics: RouteSemantics | undefined,
): Promise<Response> {
  return pending.then(
    (response) => settle(host, table, request, state, response, head, semantics),
    (error: unknown) => handleError(host, table, request, state, error, head, semantics),
  );
}

function allowed(byMethod: ReadonlyMap<string, unknown>): string {
  const methods = new Set(byMethod.keys());
  if (methods.has(HTTPMethod.GET)) methods.add(HTTPMethod.HEAD);
  methods.add(HTTPMethod.OPTIONS);
  return formatAllow(methods);
}

/**
 * Steps 2 to 7 for a matched route. Runs synchronously until something returns a promise, then
 * continues in one of the `resume*` functions below from that point on: a route whose providers
 * and handler are synchronous never allocates a promise.
 */
function runRoute(compiled: CompiledRoute, state: RequestState): Response | Promise<Response> {
  if (compiled.problem !== undefined) throw compiled.problem;
  // Step 2: authorization hooks the route runs (401 / 403), before anything else is revealed.
  if (compiled.semantics?.authorization !== undefined) return authorizeThenRoute(compiled, state);
  // Step 3: content negotiation. 406 before any provider or handler runs.
  const renderer = chooseRenderer(compiled, state.request);
  // Step 4: resourceExists providers the handler reaches; null/undefined is a 404.
  const existsGetters = compiled.existsGetters;
  for (let i = 0; i < existsGetters.length; i++) {
    const value = (existsGetters[i] as Getter)(state);
    if (isThenable(value)) return resumeExists(compiled, state, renderer, i, value);
  }
  if (compiled.semantics?.conditional !== undefined) {
    return resumePreconditions(compiled, state, renderer);
  }
  // Steps 6 and 7: everything else the handler needs, then the handler.
  const context = buildContext(compiled.names, compiled.getters, state);
  if (isThenable(context)) return resumeHandler(compiled, state, renderer, context);
  const result: unknown = (compiled.route.handler.fn as (c: object) => unknown)(context);
  if (isThenable(result)) return resumeResult(compiled, state, renderer, result);
  return respond(compiled, state, renderer, result);
}

async function authorizeThenRoute(compiled: CompiledRoute, state: RequestState): Promise<Response> {
  await authorize(compiled.semantics?.authorization as readonly Getter[], state);
  const renderer = chooseRenderer(compiled, state.request);
  return resumeExists(compiled, state, renderer, -1, undefined);
}

/** Step 4 from the `index`-th provider on, whose value `pending` is. */
async function resumeExists(
  compiled: CompiledRoute,
  state: RequestState,
  renderer: CompiledRenderer,
  index: number,
  pending: unknown,
): Promise<Response> {
  await pending;
  const existsGetters = compiled.existsGetters;
  for (let i = index + 1; i < existsGetters.length; i++) {
    const value = (existsGetters[i] as Getter)(state);
    if (isThenable(value)) await value;
  }
  return resumePreconditions(compiled, state, renderer);
}

/**
 * Step 5: preconditions against the route's ETag / Last-Modified providers: 304 without running
 * the handler, or 412 before any side effect. Then steps 6 and 7.
 */
async function resumePreconditions(
  compiled: CompiledRoute,
  state: RequestState,
  renderer: CompiledRenderer,
): Promise<Response> {
  const conditional = compiled.semantics?.conditional;
  if (conditional !== undefined) {
    const notModified = await checkRoutePreconditions(conditional, state);
    if (notModified !== undefined) return notModified;
  }
  const context = buildContext(compiled.names, compiled.getters, state);
  return resumeHandler(compiled, state, renderer, context);
}

function resumeHandler(
  compiled: CompiledRoute,
  state: RequestState,
  renderer: CompiledRenderer,
  pendingContext: unknown,
): Promise<Response> {
  return Promise.resolve(pendingContext).then((context) => {
    const result: unknown = (compiled.route.handler.fn as (c: unknown) => unknown)(context);
    return isThenable(result)
      ? resumeResult(compiled, state, renderer, result)
      : respond(compiled, state, renderer, result);
  });
}

function resumeResult(
  compiled: CompiledRoute,
  state: RequestState,
  renderer: CompiledRenderer,
  pendingResult: PromiseLike<unknown>,
): Promise<Response> {
  return Promise.resolve(pendingResult).then((result) =>
    respond(compiled, state, renderer, result),
  );
}

/** The renderer the client's `Accept` picks among the route's; a 406 when none fits. */
function chooseRenderer(compiled: CompiledRoute, request: Request): CompiledRenderer {
  const renderers = compiled.renderers;
  const renderer = negotiate(MultiValueHeaders.getLower(request.headers, 'accept'), renderers);
  if (renderer !== undefined) return renderer;
  // A route that answers with its own representation (a static file) has nothing to
  // negotiate: `Accept: text/css` must not turn a stylesheet into a 406.
  if (compiled.route.settings.negotiation !== false) throw notAcceptable(renderers);
  return renderers[0] as CompiledRenderer;
}

/** The handler's result as a Response (step 7's rendering). */
function respond(
  compiled: CompiledRoute,
  state: RequestState,
  negotiated: CompiledRenderer,
  result: unknown,
): Response | Promise<Response> {
  if (result instanceof Response) return result;
  let body = result;
  let status: number | undefined;
  let headers: unknown;
  if (isTuple(result)) {
    body = result[0];
    status = result[1];
    headers = result[2];
    if (body instanceof Response) return body;
  }
  if (body === undefined || body === null) {
    return makeResponse(status ?? 204, undefined, undefined, headers);
  }
  if (isRawBody(body)) return makeResponse(status ?? 200, body as Uint8Array, undefined, headers);
  const renderers = compiled.renderers;
  let renderer = negotiated;
  if (typeof body === 'string' && compiled.stringRenderers[0] !== renderers[0]) {
    renderer =
      negotiate(
        MultiValueHeaders.getLower(state.request.headers, 'accept'),
        compiled.stringRenderers,
      ) ?? renderer;
  }
  if (renderer.builtin === undefined) {
    return render(renderer, body, state, status ?? 200, headers).then((response) =>
      varyOnAccept(renderers, response),
    );
  }
  const response = makeResponse(
    status ?? 200,
    renderer.builtin(body),
    renderer.contentType,
    headers,
  );
  return varyOnAccept(renderers, response);
}

/** A route that could have answered in another media type varies on Accept. */
function varyOnAccept(renderers: readonly CompiledRenderer[], response: Response): Response {
  if (renderers.length > 1) {
    if (!MultiValueHeaders.setDefault(response.headers, 'Vary', 'vary', 'Accept')) {
      addVary(response.headers, 'Accept');
    }
  }
  return response;
}

function notAcceptable(renderers: readonly CompiledRenderer[]): HttpError {
  const types = renderers.map((r) => `${r.type}/${r.subtype}`);
  return new HttpError(406, 'None of the available representations is acceptable', {
    available: types,
  });
}

async function render(
  renderer: CompiledRenderer,
  result: unknown,
  state: RequestState,
  status: number,
  headers: unknown,
): Promise<Response> {
  let output: unknown;
  if (renderer.builtin !== undefined) output = renderer.builtin(result);
  else {
    state.extra = { result };
    let context = buildContext(renderer.names, renderer.getters, state);
    if (isThenable(context)) context = await context;
    output = (renderer.fn as (c: object) => unknown)(context);
    if (isThenable(output)) output = await output;
    state.extra = undefined;
  }
  if (output instanceof Response) return output;
  const body =
    typeof output === 'string' || output instanceof Uint8Array ? output : String(output ?? '');
  return makeResponse(status, body, renderer.contentType, headers);
}

interface ErrorInfo {
  status: number;
  message: string;
  details: unknown;
  headers: Readonly<Record<string, string>> | undefined;
}

function describeError(host: PipelineHost, error: unknown, request: Request): ErrorInfo {
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      message: error.message,
      details: error instanceof ValidationError ? error.issues : error.details,
      headers: error.headers,
    };
  }
  const log = host.logger;
  if (error instanceof SetupError) {
    log.error(error.message, { requestId: request.requestId, code: error.code, error });
  } else {
    log.error('Unhandled error in request', {
      requestId: request.requestId,
      method: request.method,
      path: request.path,
      error,
    });
  }
  const details =
    host.debug && error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : undefined;
  return { status: 500, message: reasonPhrase(500), details, headers: undefined };
}

/** The built-in error body of SPEC §17.10, as JSON or as plain text for text-only clients. */
export function builtinErrorResponse(
  request: Request,
  status: number,
  message: string,
  details: unknown,
): Response {
  const accept = request.headers.get('accept');
  const plain = accept !== undefined && negotiate(accept, ERROR_TYPES) === ERROR_TYPES[1];
  if (plain) return new Response(status, message, { contentType: 'text/plain; charset=utf-8' });
  const body: Record<string, unknown> = { error: message, statusCode: status, path: request.path };
  if (details !== undefined) body.details = details;
  return new Response(status, JSON.stringify(body), { contentType: 'application/json' });
}

const ERROR_TYPES = [
  { type: 'application', subtype: 'json', params: {} },
  { type: 'text', subtype: 'plain', params: {} },
];

async function handleError(
  host: PipelineHost,
  table: RoutingTable,
  request: Request,
  state: RequestState | undefined,
  error: unknown,
  head: boolean,
  semantics: RouteSemantics | undefined,
): Promise<Response> {
  const info = describeError(host, error, request);
  let response: Response | undefined;
  const handler = table.errorHandlers.get(info.status) ?? table.errorHandlers.get('default');
  if (handler !== undefined) {
    try {
      const errorState = state ?? newState(request, {});
      const record = {
        statusCode: info.status,
        message: info.message,
        path: request.path,
        details: info.details,
        cause: error,
      };
      errorState.extra = { error: record };
      let context = buildContext(handler.names, handler.getters, errorState);
      if (isThenable(context)) context = await context;
      let result: unknown = (handler.fn as (c: object) => unknown)(context);
      if (isThenable(result)) result = await result;
      response = await errorHandlerResponse(table, errorState, result, info.status);
    } catch (handlerError) {
      // An error handler that fails falls back to the built-in response (SPEC §5.6).
      host.logger.error('Error handler failed', {
        requestId: request.requestId,
        error: handlerError,
      });
      response = undefined;
    }
  }
  response ??= builtinErrorResponse(request, info.status, info.message, info.details);
  if (info.headers !== undefined) {
    for (const name of Object.keys(info.headers)) {
      response.headers.set(name, info.headers[name] as string);
    }
  }
  try {
    // Error responses carry the route's CORS headers too, so a browser script can read them.
    return await finalizeResponse(response, request, head, semantics, state);
  } catch (finalError) {
    host.logger.error('Could not complete an error response', {
      requestId: request.requestId,
      error: finalError,
    });
    return finalizeResponse(
      builtinErrorResponse(request, 500, reasonPhrase(500), undefined),
      request,
      head,
    );
  }
}

async function errorHandlerResponse(
  table: RoutingTable,
  state: RequestState,
  result: unknown,
  status: number,
): Promise<Response> {
  if (result instanceof Response) return result;
  const unpacked = unpack(result);
  const finalStatus = unpacked.status ?? status;
  if (unpacked.body === undefined || unpacked.body === null) {
    return makeResponse(finalStatus, undefined, undefined, unpacked.headers);
  }
  if (isRawBody(unpacked.body)) {
    return makeResponse(finalStatus, unpacked.body as Uint8Array, undefined, unpacked.headers);
  }
  const accept = state.request.headers.get('accept');
  const renderer = negotiate(accept, table.renderers) ?? (table.renderers[0] as CompiledRenderer);
  state.extra = { ...state.extra, result: unpacked.body };
  return render(renderer, unpacked.body, state, finalStatus, unpacked.headers);
}
