/**
 * The one place a result becomes a Response: what a handler returns, and what an error handler
 * returns. A `Response` is used as it is; a `[body, status, headers?]` tuple sets the status and
 * headers; nothing is a 204 (or the error's status); bytes, streams and files are sent as they
 * are, and so are values of the Fetch API (a `fetch()` response, a Blob, a DataView); anything
 * else goes through the negotiated renderer (docs/application.md, "Handler results").
 */

import { HttpError } from '../../errors.js';
import { isWhatwgHeaders } from '../../http/header-fields.js';
import { MultiValueHeaders } from '../../http/headers.js';
import {
  isJsonMediaType,
  mediaTypeEssence,
  negotiate,
  parseAcceptCached,
} from '../../http/media-type.js';
import { addVary } from '../../http/vary.js';
import { isPlainData } from '../../json-values.js';
import type { Request } from '../../request.js';
import { FileBody, Response, type ResponseBody } from '../../response.js';
import { addAutoEtag } from '../features/auto-etag.js';
import type { CompiledRenderer } from '../features/renderers.js';
import { buildContext } from '../inject/getters.js';
import { newRequestState } from '../inject/request-state.js';
import { isTuple } from '../representable.js';
import type { CompiledRoute } from '../routing/routing-table.js';
import { isPending, isThenable } from '../thenable.js';
import type { Exchange } from './exchange.js';
import { fromFetchApi, isFetchResponse, makeResponse } from './result-response.js';
import { checkRepresentable } from './unrepresentable.js';

/** The representations a result may take: a route's, or the application's. */
export interface Representations {
  readonly renderers: readonly CompiledRenderer[];
  /** The same renderers with `text/plain` first: a string result is text unless asked otherwise. */
  readonly stringRenderers: readonly CompiledRenderer[];
}

/** The renderer the client's `Accept` picks among `renderers`; a 406 when none fits. */
export function chooseRenderer(route: CompiledRoute, request: Request): CompiledRenderer {
  const renderers = route.renderers;
  const renderer = negotiate(MultiValueHeaders.getList(request.headers, 'accept'), renderers);
  if (renderer !== undefined) return renderer;
  // A route that answers with its own representation (a static file) has nothing to
  // negotiate: `Accept: text/css` must not turn a stylesheet into a 406. Nor has a request
  // for an event stream, which only the handler's result (an `sse()` response) can be: an
  // EventSource sends `Accept: text/event-stream` and nothing else.
  if (route.route.settings.negotiation !== false && !asksForEventStream(request)) {
    throw notAcceptable(renderers);
  }
  return renderers[0] as CompiledRenderer;
}

/**
 * Whether the request names `text/event-stream` itself, as an EventSource does. A wildcard
 * such as `text/*` accepts an event stream too, but asks for any text: letting it through
 * would answer a type it did not accept instead of the 406 it is owed.
 */
function asksForEventStream(request: Request): boolean {
  const accept = MultiValueHeaders.getList(request.headers, 'accept');
  if (accept === undefined) return false;
  return parseAcceptCached(accept).some(
    (range) => range.type === 'text' && range.subtype === 'event-stream' && range.q > 0,
  );
}

function notAcceptable(renderers: readonly CompiledRenderer[]): HttpError {
  const types = renderers.map((r) => `${r.type}/${r.subtype}`);
  return new HttpError(406, 'None of the available representations is acceptable', {
    available: types,
  });
}

/**
 * `result` as a Response. `negotiated` is the renderer content negotiation chose among
 * `representations`. `status` is the status when the result names none: a handler's result
 * gets 200, or 204 when there is nothing to send; an error handler's gets the error's. With
 * `etag: 'auto'` a buffered 200 to GET or HEAD also gets its weak ETag here (auto-etag.ts).
 */
export function respond(
  exchange: Exchange,
  result: unknown,
  representations: Representations,
  negotiated: CompiledRenderer,
  status?: number,
): Response | Promise<Response> {
  const response = toResponse(exchange, result, representations, negotiated, status);
  if (!exchange.host.autoEtag) return response;
  if (isPending(response)) return response.then((resolved) => withAutoEtag(exchange, resolved));
  return withAutoEtag(exchange, response);
}

function withAutoEtag(exchange: Exchange, response: Response): Response {
  const conditional = exchange.route?.features?.conditional;
  addAutoEtag(response, exchange.request, conditional !== undefined);
  return response;
}

function toResponse(
  exchange: Exchange,
  result: unknown,
  representations: Representations,
  negotiated: CompiledRenderer,
  status?: number,
): Response | Promise<Response> {
  if (result instanceof Response) return answeringOnce(result, exchange.request);
  const fromErrorHandler = status !== undefined;
  let body = result;
  let headers: unknown;
  if (isTuple(result)) {
    body = result[0];
    status = result[1];
    headers = result[2];
    // A Response keeps its own status and headers; so does a WHATWG one (fromFetchApi).
    if (body instanceof Response) return answeringOnce(body, exchange.request);
    const declared = headers === undefined ? undefined : tupleContentType(headers);
    if (declared !== undefined && body !== undefined && body !== null && !isFetchResponse(body)) {
      const typed = typedTupleResponse(exchange, body, status, headers, declared, fromErrorHandler);
      return varyOnAccept(representations.renderers, typed);
    }
  }
  if (body === undefined || body === null) {
    return makeResponse(status ?? 204, undefined, undefined, headers);
  }
  status ??= 200;
  if (isRawBody(body)) return makeResponse(status, body as Uint8Array, undefined, headers);
  // Plain data, nearly every result, goes straight to the renderer; anything else may be a value
  // of the Fetch API, which means something in HTTP, or one JSON cannot represent.
  const plain = isPlainData(body);
  if (!plain) {
    const fetchApi = fromFetchApi(body, status, headers);
    if (fetchApi !== undefined) return fetchApi;
  }
  const renderers = representations.renderers;
  let renderer = negotiated;
  if (typeof body === 'string' && representations.stringRenderers[0] !== renderers[0]) {
    renderer =
      negotiate(
        MultiValueHeaders.getList(exchange.request.headers, 'accept'),
        representations.stringRenderers,
      ) ?? renderer;
  }
  if (renderer.builtin !== undefined) {
    if (!plain) checkRepresentable(exchange, body, fromErrorHandler);
    const response = makeResponse(status, renderer.builtin(body), renderer.contentType, headers);
    return varyOnAccept(renderers, response);
  }
  if (renderer.fn === undefined) {
    const response = ownTypeResponse(exchange, renderer, body, status, headers, fromErrorHandler);
    return varyOnAccept(renderers, response);
  }
  return renderWith(exchange, renderer, body, status, headers).then((response) =>
    varyOnAccept(renderers, response),
  );
}

/**
 * The result of a route that answers `renderer`'s type itself (`provides(type)` without a
 * renderer), sent as that type. Bytes, files, streams and Responses never come here: they are
 * sent as the handler made them, typed by it.
 */
function ownTypeResponse(
  exchange: Exchange,
  renderer: CompiledRenderer,
  body: unknown,
  status: number,
  headers: unknown,
  fromErrorHandler: boolean,
): Response {
  const contentType = renderer.contentType;
  const content = asDeclaredType(exchange, body, contentType, fromErrorHandler);
  if (content === undefined) {
    const route = exchange.route;
    const where = route === undefined ? 'The route' : `${route.route.method} ${route.template}`;
    throw new Error(
      `${where} provides ${contentType} without a renderer, so its handler answers with that type itself, but it returned ${describeKind(body)}: return the body (text, bytes, a stream or a Response), or give provides('${contentType}', renderer) a renderer`,
    );
  }
  return makeResponse(status, content, contentType, headers);
}

/**
 * A tuple whose headers name a Content-Type is sent as that type (RFC 9110 §8.3: the field
 * describes the content sent), never re-rendered into the negotiated one under that label.
 */
function typedTupleResponse(
  exchange: Exchange,
  body: unknown,
  status: number,
  headers: unknown,
  contentType: string,
  fromErrorHandler: boolean,
): Response {
  const content = asDeclaredType(exchange, body, contentType, fromErrorHandler);
  if (content === undefined) {
    throw new Error(
      `A [body, status, headers] tuple names Content-Type ${contentType} and has ${describeKind(body)} as its body, which has no form in that type: return the body as text or bytes, or leave Content-Type out and declare a renderer with provides('${contentType}', renderer)`,
    );
  }
  return makeResponse(status, content, contentType, headers);
}

/**
 * `body` as content of a type the handler named itself, in a tuple or with `provides(type)`
 * (docs/application.md, "Handler results"): text and bytes as they are, data as JSON when the type is JSON (`application/json`
 * or a `+json` type, RFC 6839), a number or boolean as its text. `undefined` for anything else,
 * which has no form in that type: `[object Object]` would be sent, or JSON under another name.
 */
function asDeclaredType(
  exchange: Exchange,
  body: unknown,
  contentType: string,
  fromErrorHandler: boolean,
): ResponseBody {
  if (
    typeof body === 'string' ||
    isRawBody(body) ||
    ArrayBuffer.isView(body) ||
    (typeof Blob === 'function' && body instanceof Blob)
  ) {
    return body as ResponseBody;
  }
  if (isJsonMediaType(mediaTypeEssence(contentType))) {
    if (!isPlainData(body)) checkRepresentable(exchange, body, fromErrorHandler);
    return JSON.stringify(body) ?? 'null';
  }
  if (typeof body === 'number' || typeof body === 'boolean' || typeof body === 'bigint') {
    return String(body);
  }
  return undefined;
}

/** The Content-Type a tuple's headers name, in any form they take (`addTupleHeaders`). */
function tupleContentType(headers: unknown): string | undefined {
  if (headers instanceof MultiValueHeaders)
    return MultiValueHeaders.getLower(headers, 'content-type');
  if (isWhatwgHeaders(headers as object)) {
    return (headers as { get(name: string): string | null }).get('content-type') ?? undefined;
  }
  const record = headers as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (name.length !== 12 || name.toLowerCase() !== 'content-type') continue;
    const value = record[name];
    if (value === undefined || value === null) return undefined;
    return String(Array.isArray(value) ? value[0] : value);
  }
  return undefined;
}

/** A route that could have answered in another media type varies on Accept. */
function varyOnAccept(renderers: readonly CompiledRenderer[], response: Response): Response {
  if (renderers.length > 1) {
    if (!MultiValueHeaders.setDefault(response.headers, 'Vary', 'vary', 'Accept'))
      addVary(response.headers, 'Accept');
  }
  return response;
}

/** A renderer of the application's: it may inject like a handler, plus `result`. */
async function renderWith(
  exchange: Exchange,
  renderer: CompiledRenderer,
  result: unknown,
  status: number,
  headers: unknown,
): Promise<Response> {
  exchange.state ??= newRequestState(exchange.request);
  const state = exchange.state;
  const outer = state.extra;
  state.extra = { ...outer, result };
  let context = buildContext(renderer.names, renderer.getters, state);
  if (isThenable(context)) context = await context;
  let output: unknown = (renderer.fn as (c: object) => unknown)(context);
  if (isThenable(output)) output = await output;
  state.extra = outer;
  if (output instanceof Response) return output;
  return makeResponse(status, renderedBody(output, renderer), renderer.contentType, headers);
}

/**
 * What a renderer returned, as the body: text, bytes (any view, a Blob) or a stream as they are,
 * a number or boolean as its text. Anything else (an object, an array) has no text of its own:
 * `[object Object]` would be sent for it, so it is a programming mistake, a logged 500.
 */
function renderedBody(output: unknown, renderer: CompiledRenderer): ResponseBody {
  if (output === undefined || output === null) return '';
  if (typeof output === 'string') return output;
  if (typeof output === 'number' || typeof output === 'boolean' || typeof output === 'bigint') {
    return String(output);
  }
  if (
    typeof output === 'object' &&
    (isRawBody(output) ||
      ArrayBuffer.isView(output) ||
      (typeof Blob === 'function' && output instanceof Blob))
  ) {
    return output;
  }
  throw new Error(
    `The renderer for ${renderer.contentType} returned ${describeKind(output)}: a renderer returns the body (a string, bytes or a stream)`,
  );
}

/** What kind of value a body that has no text of its own is, for the error saying so. */
function describeKind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A body that is sent as it is, without a renderer. */
function isRawBody(body: unknown): boolean {
  return (
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof FileBody ||
    (typeof body === 'object' &&
      body !== null &&
      (Symbol.asyncIterator in body ||
        typeof (body as { getReader?: unknown }).getReader === 'function'))
  );
}

/**
 * A Response object answers one request: the way out writes that request's id, CORS origin,
 * length and hooks' headers into it. One returned again (a module-level constant, a hook's
 * shared answer) would hand the first request's to the next, so it is refused, a logged 500.
 */
function answeringOnce(response: Response, request: Request): Response {
  if (response.request !== undefined && response.request !== request) {
    throw new Error(
      'A Response object was returned for a second request; it carries what the first one added (its request id, CORS and hook headers): create one per request, or return a [body, status, headers] tuple',
    );
  }
  return response;
}
