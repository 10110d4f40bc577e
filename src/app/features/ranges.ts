/**
 * Range requests on the way out (RFC 9110 §14; docs/http-semantics.md): a 200 to a GET whose body
 * has a known length (bytes, a string or a file) advertises `Accept-Ranges: bytes` and answers a
 * `Range` with 206 (one range, or several as `multipart/byteranges`) or 416. What the request
 * asks is decided by `evaluateRange` in src/http/conditional.ts, as for the static router; this
 * module only shapes the response accordingly.
 */
import { HttpError } from '../../errors.js';
import { discardBody } from '../../http/bytes.js';
import { evaluateRange } from '../../http/conditional.js';
import { parseHttpDate } from '../../http/date.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { type ByteRangesLayout, buildByteRanges, byteRangesLayout } from '../../http/multipart.js';
import { type ByteRange, formatContentRange, formatUnsatisfiedRange } from '../../http/range.js';
import type { Request } from '../../request.js';
import { FileBody, type Response } from '../../response.js';

// `offset` is where the representation starts in the file: a file body's own `start`, since
// the ranges count from the first byte of what a 200 would send.
async function* fileParts(
  path: string,
  offset: number,
  ranges: readonly ByteRange[],
  layout: ByteRangesLayout,
): AsyncGenerator<Uint8Array> {
  // Loaded only when a file is actually served in parts, so the core still bundles for runtimes
  // without a file system.
  const { createReadStream } = await import('node:fs');
  const encoder = new TextEncoder();
  for (let i = 0; i < ranges.length; i++) {
    yield encoder.encode(layout.heads[i] as string);
    const range = ranges[i] as ByteRange;
    const length = range.end - range.start + 1;
    // Each part streams only its own bytes: the file is never read whole.
    let sent = 0;
    const start = offset + range.start;
    for await (const chunk of createReadStream(path, { start, end: offset + range.end })) {
      const bytes = chunk as Uint8Array;
      sent += bytes.length;
      yield bytes;
    }
    // The file shrank since its length was looked up. The Content-Length and the part's
    // Content-Range promised these bytes (RFC 9110 §14.6): a short part that ended normally
    // would leave the client waiting for bytes that never come, or misread the parts after it.
    // Failing the body makes the adapter cut the response instead, which tells the client it
    // is incomplete (RFC 9112 §6.3), and the log says why.
    if (sent < length) {
      throw new Error(
        `File ${path} ended after ${sent} of the ${length} bytes its response declared for the range ${range.start}-${range.end}: it changed while being sent`,
      );
    }
  }
  yield encoder.encode(layout.tail);
}

/**
 * Advertises `Accept-Ranges: bytes` on a 200 response to GET or HEAD whose body (a string, bytes
 * or a file) is `length` bytes long, and applies a GET's `Range` to it. Returns the
 * Content-Length of the 206 it made, or `undefined` when the whole representation is sent.
 * Throws a 416 (with `Content-Range: bytes *\/length`) when nothing asked for is satisfiable.
 */
export function applyRange(
  response: Response,
  request: Request,
  length: number,
): number | undefined {
  MultiValueHeaders.setDefault(response.headers, 'Accept-Ranges', 'accept-ranges', 'bytes');
  // Nearly every request has no Range: it stops here, before the validators are looked up.
  if (MultiValueHeaders.getLower(request.headers, 'range') === undefined) return undefined;
  // RFC 9110 §14.2: "GET is the only method for which range handling is defined", and a server
  // must ignore Range on any other: a HEAD gets the whole GET's headers, as from the static router.
  if (request.method !== 'GET') return undefined;
  // Apart, so that the lines above are small enough to be inlined where they are called, from
  // the first optimised compile on (GET / 56,303 → 55,586 instructions, bench/RESULTS.md).
  return rangeRequested(response, request, length);
}

/** {@link applyRange} for a request with a `Range` header. */
function rangeRequested(response: Response, request: Request, length: number): number | undefined {
  const headers = response.headers;
  // If-Range is judged against the validators the response carries.
  const asked = evaluateRange(
    request,
    {
      etag: headers.get('etag'),
      lastModified: response.lastModified ?? parseHttpDate(headers.get('last-modified')),
    },
    length,
  );
  if (asked.kind === 'ignore') return undefined;
  if (asked.kind === 'unsatisfiable') {
    discardBody(response.body);
    response.body = undefined;
    throw new HttpError(416, 'Range Not Satisfiable', undefined, {
      'Content-Range': formatUnsatisfiedRange(length),
    });
  }
  const ranges = asked.ranges;
  // Several ranges of an encoded representation (a precompressed file, bytes a handler gzipped)
  // are answered whole, as §14.2 allows: a multipart/byteranges body is not in that coding, so
  // its Content-Encoding would be false and a client decoding it would fail.
  if (ranges.length > 1 && headers.has('content-encoding')) return undefined;
  const body = response.body;
  response.statusCode = 206;
  if (ranges.length === 1) {
    const range = ranges[0] as ByteRange;
    headers.set('Content-Range', formatContentRange(range, length));
    response.rangeStart = range.start;
    response.rangeEnd = range.end;
    if (body instanceof FileBody) {
      // Adapters read only start..end of the file. A file body that is already a span (its
      // own `start` and `end`) is the representation: the range counts from its first byte.
      const offset = body.start ?? 0;
      body.start = offset + range.start;
      body.end = offset + range.end;
    } else {
      response.body = toBytes(body).subarray(range.start, range.end + 1);
    }
    return range.end - range.start + 1;
  }
  // §14.6: several ranges are sent as multipart/byteranges, never as just the first one.
  const layout = byteRangesLayout(ranges, length, headers.get('content-type'));
  headers.set('Content-Type', layout.contentType);
  response.contentType = layout.contentType;
  response.body =
    body instanceof FileBody
      ? fileParts(body.path, body.start ?? 0, ranges, layout)
      : buildByteRanges(toBytes(body), ranges, layout);
  return layout.length;
}

function toBytes(body: unknown): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : (body as Uint8Array);
}
