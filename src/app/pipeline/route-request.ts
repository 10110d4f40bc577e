/**
 * Step 1 of the pipeline (docs/http-semantics.md): the route and the method. Routing's own
 * answers (400, 404, 405, 501, OPTIONS, CORS preflights, a declared body over the limit) and the
 * `onRequest` hooks that run before them; a request a route takes goes on to its steps 2 to 7
 * (route-steps.ts).
 */
import { HttpError, libraryAnswer } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { allowForPath, HTTPMethod, parseMethod } from '../../http/methods.js';
import { recordBodyLimit, recordPathParams, recordRouting } from '../../request.js';
import { Response } from '../../response.js';
import { isPreflight } from '../features/cors.js';
import { type CompiledHook, now, type RouteHooks, runOnRequest } from '../features/hooks.js';
import { assignRequestId } from '../features/request-id.js';
import { answerPreflight, pathFeatures, preflightEntry } from '../features/route-features.js';
import { NO_PARAM_VALUES, newRequestState } from '../inject/request-state.js';
import { MALFORMED, type PathMatch } from '../routing/path-matcher.js';
import { type CompiledRoute, failedClosed } from '../routing/routing-table.js';
import { isPending } from '../thenable.js';
import { releaseUploadsAfter } from '../uploads/inject.js';
import { isMultipart, multipartTotal } from '../uploads/limits.js';
import type { Exchange } from './exchange.js';
import { afterOnRequest } from './hook-steps.js';
import { checkAuthorization, type RoutedExchange } from './route-steps.js';

/**
 * Step 1: route and method. 400 for a malformed path, 404, 405 with `Allow`, OPTIONS and CORS
 * preflights, HEAD by the GET route, 501 for an unknown method, and 413 for a declared
 * Content-Length over the limit, before anything reads the body. The application's `onRequest`
 * hooks run between finding the route and giving any of these answers.
 */
export function routeRequest(exchange: Exchange): Response | Promise<Response> {
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
    // The hooks, the access log and the metrics of an answer they give see the route's template.
    recordRouting(request, matched.leaf.template);
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
      return withAllow(new Response(204), allow, acceptPatch(byMethod));
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
  const state = exchange.state ?? newRequestState(request, matched.values);
  recordRouting(request, route.template);
  recordPathParams(request, entry.paramNames, matched.values);
  exchange.features = route.features;
  const hooks = route.hooks;
  adoptHooks(exchange, hooks);
  if (route.problem !== undefined) throw failedClosed(route.problem);
  const routed = exchange as RoutedExchange;
  routed.route = route;
  routed.state = state;
  // Refused before anything reads the body, and answered as the route answers its errors (its
  // CORS, its routers' error handlers), as the same body sent without a length would be.
  const declared = MultiValueHeaders.getLower(request.headers, 'content-length');
  if (declared !== undefined && Number(declared) > limit) {
    // An upload says which of its limits it crossed, as when the bound is crossed while read.
    if (uploads !== undefined) {
      throw new HttpError(413, `Upload over the size limit of ${limit} bytes`, [{ limit: 'size' }]);
    }
    throw new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
  }
  const answer =
    hooks?.onRequest === undefined
      ? checkAuthorization(routed)
      : afterOnRequest(routed, runOnRequest(hooks.onRequest, state), () =>
          checkAuthorization(routed),
        );
  // An upload is dropped (temporary files removed) once the route answered, whichever way.
  const released = uploads === undefined ? answer : releaseUploadsAfter(state, answer);
  return method === HTTPMethod.OPTIONS
    ? withAllow(released, allowForPath(byMethod.keys()), acceptPatch(byMethod))
    : released;
}

/**
 * What a path's PATCH route takes, for the `Accept-Patch` an OPTIONS answer SHOULD carry when
 * the resource supports PATCH (RFC 5789 §3.1): the list its 415 gives (error-response.ts).
 */
function acceptPatch(byMethod: ReadonlyMap<string, { value: CompiledRoute }>): string | undefined {
  return byMethod.get(HTTPMethod.PATCH)?.value.accept;
}

/**
 * A successful answer to OPTIONS, built-in or a route's own, says which methods the path takes
 * (RFC 9110 §9.3.7) and, when one is PATCH, which patch documents it takes (RFC 5789 §3.1),
 * unless the handler wrote its own `Allow` or `Accept-Patch`.
 */
function withAllow(
  answer: Response | Promise<Response>,
  allow: string,
  accept: string | undefined,
): Response | Promise<Response> {
  const add = (response: Response): Response => {
    if (response.statusCode >= 300) return response;
    if (!response.headers.has('allow')) response.headers.set('Allow', allow);
    if (accept !== undefined && !response.headers.has('accept-patch')) {
      response.headers.set('Accept-Patch', accept);
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
