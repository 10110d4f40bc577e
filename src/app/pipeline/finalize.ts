/**
 * The way out (step 8 of the pipeline, docs/architecture.md): add the headers the route's features imply (CORS, CSP,
 * default headers...), normalise the body, fill the headers it implies, evaluate the
 * preconditions against the validators the handler set (304 / 412), apply ranges (206 / 416),
 * drop the body of a HEAD while keeping its headers, and compress it for routes that use
 * `compress()`.
 */

import { HttpError } from '../../errors.js';
import { discardBody, releasingSource, streamChunk, utf8Length } from '../../http/bytes.js';
import { contentTypeFor } from '../../http/content-types.js';
import { formatLastModified } from '../../http/date.js';
import { formatEntityTag } from '../../http/etag.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { describeUnrepresentable } from '../../json-values.js';
import type { Request } from '../../request.js';
import { FileBody, isStream, type Response, streamChunks } from '../../response.js';
import { compressResponse } from '../compression/compress-response.js';
import { checkResponsePreconditions } from '../features/conditional.js';
import { applyRange } from '../features/ranges.js';
import { decorateResponse, type RouteFeatures } from '../features/route-features.js';
import type { RequestState } from '../inject/request-state.js';
import { isThenable } from '../thenable.js';

/** Statuses that never carry content (RFC 9110 §6.4.1, and §15.3.6 for 205). */
function forbidsContent(status: number): boolean {
  return status === 204 || status === 304 || status === 205;
}

// node:fs is loaded on the first file body only, so the core stays free of Node modules at load.
let fsPromises: Promise<typeof import('node:fs/promises')> | undefined;

async function statFile(body: FileBody): Promise<{ size: number; mtime: Date }> {
  fsPromises ??= import('node:fs/promises');
  const { stat } = await fsPromises;
  const info = await stat(body.path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  // A file body whose file is missing is a 404, never a leak of the path in a 500.
  if (info === undefined || !info.isFile()) throw new HttpError(404);
  return { size: info.size, mtime: info.mtime };
}

/**
 * Completes `response` for sending; returns it. `features` are the route's (or, for requests no
 * route took, the application's), `state` the request's injection state when there is one.
 * Throws an HttpError for a 412 or 416 found here; the pipeline turns it into the error response.
 * `asError`: the response answers an error (an error handler's, whatever its status), so it is
 * no representation of the resource: it gets none of the route's validators, and no
 * precondition or range is judged against it again.
 */
export function finalizeResponse(
  response: Response,
  request: Request,
  head: boolean,
  features?: RouteFeatures,
  state?: RequestState,
  asError = false,
): Response | Promise<Response> {
  response.request ??= request;
  if (features !== undefined) {
    const decorated = decorateResponse(features, response, request, state, asError);
    const compression = features.compress;
    if (compression !== undefined) {
      // Compressed last, HEAD included: the headers of a HEAD are those of the encoded GET.
      const compress = (done: Response) => compressResponse(compression, done, request, head);
      const complete = () => {
        const done = completeBody(response, request, false, asError);
        return isThenable(done) ? done.then(compress) : compress(done);
      };
      return isThenable(decorated) ? Promise.resolve(decorated).then(complete) : complete();
    }
    if (isThenable(decorated)) {
      return Promise.resolve(decorated).then(() => completeBody(response, request, head, asError));
    }
  }
  return completeBody(response, request, head, asError);
}

// The common case (text, bytes, JSON) completes without a promise; only a file body waits for
// its size.
function completeBody(
  response: Response,
  request: Request,
  head: boolean,
  asError: boolean,
): Response | Promise<Response> {
  const body = response.body;
  // A file body whose size and Last-Modified are already known (a static router stat'ed it)
  // needs no second stat.
  if (
    body instanceof FileBody &&
    !(
      body.size !== undefined &&
      (response.lastModified !== undefined || response.headers.has('last-modified'))
    )
  ) {
    return statFile(body).then((info) => {
      body.size = info.size;
      response.contentType ??= contentTypeFor(body.path);
      if (response.lastModified === undefined && !response.headers.has('last-modified')) {
        response.setLastModified(info.mtime);
      }
      return completeHeaders(response, request, head, info.size, asError);
    });
  }
  if (typeof Blob === 'function' && body instanceof Blob) {
    // Read whole, to be sent as bytes are (its length, ranges, conditional requests), as a
    // handler's Blob result is (docs/application.md, "Handler results").
    return body.arrayBuffer().then((buffer) => {
      response.body = new Uint8Array(buffer);
      if (response.contentType === undefined && !response.headers.has('content-type')) {
        response.contentType = body.type === '' ? 'application/octet-stream' : body.type;
      }
      return completeHeaders(response, request, head, undefined, asError);
    });
  }
  return completeHeaders(response, request, head, undefined, asError);
}

/**
 * Throws unless `status` can answer a request. RFC 9110 §15.2: a 1xx is interim and a final
 * response must follow; sent as the answer, the client would wait for one that never comes. Any
 * other status outside 200-599, or a fraction, assigned to `statusCode` after the constructor
 * checked it, no runtime can send (§15: three digits, 1xx to 5xx).
 */
export function checkFinalStatus(status: number): void {
  // The message apart, so that this test is small enough to be inlined into completeHeaders
  // (Lambda REST GET 21,370 -> 21,173 instructions, HTTP API GET 18,959 -> 18,763).
  if (!(status >= 200 && status <= 599 && Number.isInteger(status))) refuseStatus(status);
}

function refuseStatus(status: number): never {
  throw new Error(
    `A ${status} cannot answer a request: return an integer from 200 to 599 (1xx statuses are interim, RFC 9110 §15.2)`,
  );
}

// Content-Type values already found valid by `headers.set`.
const CHECKED_TYPES = new Set<string>();

function completeHeaders(
  response: Response,
  request: Request,
  head: boolean,
  fileSize: number | undefined,
  asError: boolean,
): Response {
  checkFinalStatus(response.statusCode);
  const headers = response.headers;
  if (response.preCalculatedHeaders !== undefined) {
    for (const name of response.preCalculatedHeaders.names()) {
      if (!headers.has(name)) headers.set(name, response.preCalculatedHeaders.getAll(name));
    }
  }
  let body = response.body;
  let length: number | undefined;
  if (body === null || body === undefined) {
    body = undefined;
  } else if (typeof body === 'string') {
    length = utf8Length(body);
    if (response.contentType === undefined && !headers.has('content-type')) {
      response.contentType = 'text/plain; charset=utf-8';
    }
  } else if (body instanceof Uint8Array) {
    length = body.length;
    if (response.contentType === undefined && !headers.has('content-type')) {
      response.contentType = 'application/octet-stream';
    }
  } else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    // Any other view (a DataView, an Int16Array...) is the bytes it spans, not JSON of its indexes.
    const bytes =
      body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    body = bytes;
    length = bytes.length;
    response.contentType ??= 'application/octet-stream';
  } else if (body instanceof FileBody) {
    const size = fileSize ?? body.size;
    // A span set by hand (`start`, `end`, inclusive) is all that is sent.
    length =
      (body.start === undefined && body.end === undefined) || size === undefined
        ? size
        : Math.max(0, (body.end ?? size - 1) - (body.start ?? 0) + 1);
    response.contentType ??= contentTypeFor(body.path);
  } else if (isStream(body)) {
    // Streamed as it comes; the length is unknown. Bytes of no declared type, like a byte
    // array's: without a type a browser would sniff one, and an uploaded page would run.
    if (response.contentType === undefined && !headers.has('content-type')) {
      response.contentType = 'application/octet-stream';
    }
  } else if (typeof body === 'object') {
    body = JSON.stringify(representable(body));
    length = utf8Length(body);
    response.contentType ??= 'application/json';
  } else {
    body = String(representable(body));
    length = utf8Length(body);
    response.contentType ??= 'text/plain; charset=utf-8';
  }
  response.body = body;
  const type = response.contentType;
  if (type !== undefined) {
    // The same few types go out on every response: each is validated once.
    if (CHECKED_TYPES.has(type)) {
      MultiValueHeaders.setDefault(headers, 'Content-Type', 'content-type', type);
    } else if (!headers.has('content-type')) {
      headers.set('Content-Type', type);
      if (CHECKED_TYPES.size < 64) CHECKED_TYPES.add(type);
    }
  }
  if (response.etag !== undefined) {
    // A field a handler may assign directly: formatted as setEtag() formats it (an entity tag is
    // kept, anything else quoted and percent-encoded), so a CR or LF never reaches the wire.
    response.etag = formatEntityTag(response.etag);
    MultiValueHeaders.setDefault(headers, 'ETag', 'etag', response.etag);
  }
  if (response.lastModified !== undefined && !headers.has('last-modified')) {
    MultiValueHeaders.setTrusted(
      headers,
      'Last-Modified',
      'last-modified',
      formatLastModified(response.lastModified),
    );
  }
  if (request.requestId !== undefined) {
    // This request's id, whatever a relayed response (an upstream's fetch() answer) carried: the
    // id the client gets is the one this service logs.
    MultiValueHeaders.setTrusted(headers, 'X-Request-ID', 'x-request-id', request.requestId);
  }
  if (!asError && checkResponsePreconditions(request, response)) return response;
  if (forbidsContent(response.statusCode)) {
    discardBody(response.body);
    response.body = undefined;
    // RFC 9112 §6.1: a server must not send Transfer-Encoding in a 204, and there is no content
    // here to frame; a Node server sending one closes the connection after it, and the requests
    // pipelined behind it go unanswered. A handler's or a default header's is dropped.
    headers.delete('transfer-encoding');
    // §15.3.6: a 205 says its content is empty with Content-Length: 0; §8.6 forbids the field
    // on a 204, and a 304's would describe the representation, not this empty answer.
    if (response.statusCode === 205) {
      MultiValueHeaders.setTrusted(headers, 'Content-Length', 'content-length', '0');
    } else headers.delete('content-length');
    return response;
  }
  if (
    !asError &&
    length !== undefined &&
    response.statusCode === 200 &&
    (request.method === 'GET' || request.method === 'HEAD') &&
    !isStream(body)
  ) {
    // RFC 9110 §14: bodies of known length (text, bytes, files) can be ranged by a GET; a HEAD
    // gets the Accept-Ranges a GET would, and its Range is ignored (§14.2).
    const ranged = applyRange(response, request, length);
    if (ranged !== undefined) {
      MultiValueHeaders.setTrusted(headers, 'Content-Length', 'content-length', String(ranged));
      length = undefined;
    }
  }
  // The framing is the server's (RFC 9112 §6): a handler's Content-Length yields to the length
  // of a body the pipeline holds, and its Transfer-Encoding is dropped, since the adapter frames
  // the body itself. A HEAD handler's Content-Length, and a stream's, are kept. Both fields in
  // one pass (GET / 55,964 → 55,243 instructions, a Lambda GET 18,863 → 18,163).
  if (length !== undefined || (body === undefined && request.method !== 'HEAD')) {
    MultiValueHeaders.setFraming(headers, length === undefined ? '0' : String(length), true);
  } else {
    MultiValueHeaders.setFraming(headers, body === undefined ? '0' : undefined, false);
    if (!head && isStream(body)) holdToDeclaredLength(response, body);
  }
  if (head) {
    // HEAD keeps every header of the GET, Content-Length included, and sends no content.
    discardBody(response.body);
    response.body = undefined;
  }
  return response;
}

/**
 * `body`, when JSON can represent it: a Map or a Set would go out as `{}` and a function as its
 * source code, with a 200 that hides the mistake. Refused as a handler's own result is
 * (docs/application.md, "Handler results"): a 500 whose log line says what to send instead.
 */
function representable(body: unknown): unknown {
  const problem = describeUnrepresentable(body);
  if (problem !== undefined) throw new Error(`A Response's body cannot be ${problem}`);
  return body;
}

type StreamBody = Parameters<typeof streamChunks>[0];

/**
 * A stream sent with its handler's own Content-Length must produce exactly that many bytes
 * (RFC 9112 §6.2): more would be read by the client as the start of the next response on the
 * connection, fewer would leave it waiting for bytes that never come. A stream that breaks its
 * length fails as a stream that throws does: the adapter cuts the connection, so the client sees
 * the body incomplete (RFC 9112 §6.3), and the log says why. A Content-Length that is not one
 * decimal number (RFC 9110 §8.6) says nothing the server can keep to: it is dropped, and the
 * adapter frames the stream itself.
 */
function holdToDeclaredLength(response: Response, body: StreamBody): void {
  const declared = response.headers.getAll('content-length');
  if (declared.length === 0) return;
  const value = declared.length === 1 ? (declared[0] as string).trim() : '';
  if (!/^[0-9]{1,15}$/.test(value)) {
    response.headers.delete('content-length');
    return;
  }
  response.body = releasingSource(exactLength(body, Number(value)), body);
}

async function* exactLength(body: StreamBody, length: number): AsyncGenerator<Uint8Array | string> {
  let produced = 0;
  let ended = false;
  try {
    for await (const value of streamChunks(body)) {
      // Counted in bytes, so a chunk that is neither text nor bytes fails here, as it would
      // when sent.
      const chunk = streamChunk(value);
      produced += typeof chunk === 'string' ? utf8Length(chunk) : chunk.length;
      if (produced > length) {
        throw new Error(
          `The response body is longer than the ${length} bytes its Content-Length declared`,
        );
      }
      yield chunk;
    }
    ended = true;
  } finally {
    // Stopped before its end (the client left, the signal fired, too many bytes): the source
    // is let go, a generator's `finally` run or a stream cancelled.
    if (!ended) discardBody(body);
  }
  if (produced < length) {
    throw new Error(
      `The response body ended after ${produced} of the ${length} bytes its Content-Length declared`,
    );
  }
}
