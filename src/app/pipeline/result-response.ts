/**
 * The Response a handler's result becomes when no renderer is involved: a body with its status
 * and a tuple's headers, and the values of the Fetch API (a WHATWG Response relayed, a Blob or a
 * view sent as its bytes), as docs/application.md ("Handler results") describes them.
 */

import { MultiValueHeaders } from '../../http/headers.js';
import { Response, type ResponseBody } from '../../response.js';

/**
 * What a value of the Fetch API means in HTTP (docs/application.md, "Handler results"), or
 * undefined for any other value. `status` and `headers` (a tuple's) apply to a Blob's or a
 * view's bytes; a WHATWG Response keeps its own, as ours does in a tuple. Runtimes without
 * `Response` or `Blob` have none to return, hence the `typeof` tests.
 */
export function fromFetchApi(
  body: unknown,
  status: number,
  headers: unknown,
): Response | Promise<Response> | undefined {
  if (ArrayBuffer.isView(body)) {
    // A Uint8Array was sent as it is above; any other view (a DataView, an Int16Array, a
    // Float32Array...) is sent as the bytes it spans, not the JSON of its indexes.
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return makeResponse(status, bytes, undefined, headers);
  }
  if (isFetchResponse(body)) return relayFetchResponse(body);
  if (typeof Blob === 'function' && body instanceof Blob) {
    // Read whole, so it is sent as bytes are: with its Content-Length, ranges, conditional
    // requests and `etag: 'auto'`. A Blob is in memory already (what `response.blob()` gives);
    // a file on disk is `Response.file(path)`, which streams.
    const type = body.type === '' ? undefined : body.type;
    return body
      .arrayBuffer()
      .then((buffer) => makeResponse(status, new Uint8Array(buffer), type, headers));
  }
  return undefined;
}

/**
 * Whether `value` is a WHATWG Response, told by its brand rather than by class: a server library
 * may replace the global `Response` with a class of its own (`@hono/node-server` does), and then
 * what `fetch()` returns is an instance of the runtime's original class, not of the global.
 */
export function isFetchResponse(value: unknown): value is globalThis.Response {
  return (
    typeof globalThis.Response === 'function' &&
    (value instanceof globalThis.Response ||
      Object.prototype.toString.call(value) === '[object Response]')
  );
}

// Hop-by-hop fields (RFC 9110 §7.6.1): they describe the connection the upstream answered on, not
// the one this response goes out on, whose framing the adapter decides.
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'upgrade',
];

/**
 * A WHATWG Response as ours: its status, every header (each Set-Cookie on its own, RFC 6265 §3)
 * and its body as the stream it is. The result is then what any Response a handler returns is:
 * HEAD, conditional requests, compression and the rest apply on the way out (finalize.ts).
 *
 * A response of `fetch()` (its `url` says where it came from; one built with `new Response()`
 * has none) comes with its body decoded: `fetch()` undoes every content coding it asked for in
 * its own Accept-Encoding, yet leaves the upstream's Content-Encoding and Content-Length, which
 * then describe bytes that are no longer there. Both are dropped, so the client gets the
 * decoded bytes, labelled as such, framed by the adapter. A Response the handler built is sent
 * as built: its Content-Encoding is the handler's word on its bytes.
 */
function relayFetchResponse(source: globalThis.Response): Response {
  if (source.bodyUsed) {
    // Sent anyway, it would fail once the status was out, as a cut connection.
    throw new Error(
      'A handler returned a Response whose body was already read: return response.clone() taken before reading it, or a new Response',
    );
  }
  const response = new Response(source.status, source.body ?? undefined);
  const upstream = source.headers;
  const dropped = new Set(HOP_BY_HOP);
  // The fields the upstream named in Connection are hop-by-hop too (RFC 9110 §7.6.1).
  for (const option of (upstream.get('connection') ?? '').split(',')) {
    dropped.add(option.trim().toLowerCase());
  }
  if (source.url !== '' && upstream.has('content-encoding')) {
    dropped.add('content-encoding');
    dropped.add('content-length');
  }
  const target = response.headers;
  // Headers iterates with lower-case names; getSetCookie() keeps each Set-Cookie apart where
  // iteration would join them with commas (runtimes before it existed).
  const cookies = upstream.getSetCookie?.();
  upstream.forEach((value, name) => {
    if (dropped.has(name) || (cookies !== undefined && name === 'set-cookie')) return;
    target.add(name, value);
  });
  for (const cookie of cookies ?? []) target.add('Set-Cookie', cookie);
  return response;
}

/** Adds tuple headers, which may be a plain object, a MultiValueHeaders or a WHATWG Headers. */
export function addTupleHeaders(target: MultiValueHeaders, headers: unknown): void {
  if (headers === undefined || headers === null) return;
  if (headers instanceof MultiValueHeaders) {
    // Every value of every name, each name replacing the response's own.
    MultiValueHeaders.forEachField(headers, (name, _key, values) => target.set(name, values));
    return;
  }
  const source = headers as Parameters<MultiValueHeaders['set']>[1] & object;
  if (typeof (source as { forEach?: unknown }).forEach === 'function' && !Array.isArray(source)) {
    const seen = new Set<string>();
    const adopt = (value: string, name: string) => {
      const key = name.toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        target.delete(name);
      }
      target.add(name, value);
    };
    const cookies = (source as { getSetCookie?: () => string[] }).getSetCookie?.();
    (source as { forEach(cb: (value: string, name: string) => void): void }).forEach(
      (value, name) => {
        if (cookies !== undefined && name.toLowerCase() === 'set-cookie') return;
        adopt(value, name);
      },
    );
    for (const cookie of cookies ?? []) target.add('Set-Cookie', cookie);
    return;
  }
  const record = headers as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    target.set(name, Array.isArray(value) ? value.map(String) : String(value));
  }
}

/** Builds the response for a rendered or raw body. */
export function makeResponse(
  status: number,
  body: ResponseBody,
  contentType: string | undefined,
  headers: unknown,
): Response {
  const response = new Response(status, body);
  response.contentType = contentType;
  if (headers !== undefined) addTupleHeaders(response.headers, headers);
  return response;
}
