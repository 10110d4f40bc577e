/**
 * Responses for a file, the same for every store: the representation headers of SPEC §10 on
 * every file, 206 / 304 / 416 built here so they never depend on later steps.
 */
import { HttpError } from '../app/errors.js';
import { formatHttpDate } from '../http/date.js';
import { MultiValueHeaders } from '../http/headers.js';
import { formatContentRange, formatUnsatisfiedRange } from '../http/range.js';
import { Response, type ResponseBody } from '../response.js';

/** What is known about the representation being served. */
export interface Representation {
  /** Size in bytes of the representation (of the encoded variant, when one is served). */
  size: number;
  /** Entity tag, quotes included. */
  etag: string | undefined;
  lastModified: Date | undefined;
  contentType: string;
  /** `br` / `gzip` for a precompressed variant, else `undefined`. */
  contentEncoding: string | undefined;
  cacheControl: string | undefined;
  /** Whether the answer depends on Accept-Encoding (precompressed variants enabled). */
  varyEncoding: boolean;
}

function validatorHeaders(headers: MultiValueHeaders, representation: Representation): void {
  if (representation.etag !== undefined) headers.set('ETag', representation.etag);
  if (representation.lastModified !== undefined) {
    headers.set('Last-Modified', formatHttpDate(representation.lastModified));
  }
  if (representation.cacheControl !== undefined) {
    headers.set('Cache-Control', representation.cacheControl);
  }
  if (representation.varyEncoding) headers.set('Vary', 'Accept-Encoding');
}

/**
 * A 200 (whole file) or a 206 (`range` set, `body` holding only those bytes). Every file carries
 * its validators, `Accept-Ranges` and `X-Content-Type-Options: nosniff`, so a browser never
 * second-guesses the type of a user-uploaded file (a `.txt` sniffed as HTML is an XSS).
 */
export function fileResponse(
  representation: Representation,
  body: ResponseBody,
  range?: { start: number; end: number },
): Response {
  const headers = new MultiValueHeaders();
  headers.set('Content-Type', representation.contentType);
  if (representation.contentEncoding !== undefined) {
    headers.set('Content-Encoding', representation.contentEncoding);
  }
  validatorHeaders(headers, representation);
  headers.set('Accept-Ranges', 'bytes');
  headers.set('X-Content-Type-Options', 'nosniff');
  let status = 200;
  let length = representation.size;
  if (range !== undefined) {
    status = 206;
    length = range.end - range.start + 1;
    headers.set('Content-Range', formatContentRange(range, representation.size));
  }
  headers.set('Content-Length', length);
  const response = new Response(status, body, { headers });
  response.etag = representation.etag;
  response.lastModified = representation.lastModified;
  // rangeStart/rangeEnd stay unset: the body already holds only the range (a FileBody with
  // start/end, or the bytes themselves), so nothing downstream may slice it a second time.
  return response;
}

/**
 * 304: no content, but the validators and the caching headers a 200 would have carried
 * (RFC 9110 §15.4.5), so a cache can refresh its stored copy.
 */
export function notModifiedResponse(representation: Representation): Response {
  const headers = new MultiValueHeaders();
  validatorHeaders(headers, representation);
  return new Response(304, undefined, { headers });
}

/** 416 with `Content-Range: bytes *\/size` (RFC 9110 §15.5.17). */
export function rangeNotSatisfiable(size: number | undefined): HttpError {
  const headers: Record<string, string> = { 'Accept-Ranges': 'bytes' };
  if (size !== undefined) headers['Content-Range'] = formatUnsatisfiedRange(size);
  return new HttpError(416, undefined, undefined, headers);
}
