/**
 * Responses for a file, the same for every store: the representation headers of
 * docs/static-files.md on every file, 206 / 304 / 416 built here so they never depend on later
 * steps.
 */
import { HttpError } from '../errors.js';
import { evaluatePreconditions, evaluateRange } from '../http/conditional.js';
import { formatLastModified } from '../http/date.js';
import { MultiValueHeaders } from '../http/headers.js';
import { formatContentRange, formatUnsatisfiedRange } from '../http/range.js';
import type { Request } from '../request.js';
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

function validatorPairs(representation: Representation, pairs: string[]): string[] {
  if (representation.etag !== undefined) pairs.push('ETag', representation.etag);
  if (representation.lastModified !== undefined) {
    pairs.push('Last-Modified', formatLastModified(representation.lastModified));
  }
  if (representation.cacheControl !== undefined) {
    pairs.push('Cache-Control', representation.cacheControl);
  }
  if (representation.varyEncoding) pairs.push('Vary', 'Accept-Encoding');
  return pairs;
}

/**
 * The headers of a whole-file 200, as a flat `[name, value, ...]` list, checked once: a cached
 * file reuses it for every request. Every file carries its validators, `Accept-Ranges` and
 * `X-Content-Type-Options: nosniff`, so a browser never second-guesses the type of a
 * user-uploaded file (a `.txt` sniffed as HTML is an XSS).
 */
export function representationHeaders(representation: Representation): readonly string[] {
  const pairs = ['Content-Type', representation.contentType];
  if (representation.contentEncoding !== undefined) {
    pairs.push('Content-Encoding', representation.contentEncoding);
  }
  validatorPairs(representation, pairs);
  pairs.push('Accept-Ranges', 'bytes', 'X-Content-Type-Options', 'nosniff');
  pairs.push('Content-Length', String(representation.size));
  // Building a MultiValueHeaders checks every name and value (no CR, LF or NUL from a stored
  // S3 content type or tag can split the response).
  const checked: string[] = [];
  for (const [name, value] of new MultiValueHeaders(pairsToTuples(pairs)))
    checked.push(name, value);
  return checked;
}

function pairsToTuples(pairs: readonly string[]): Array<[string, string]> {
  const tuples: Array<[string, string]> = [];
  for (let i = 0; i + 1 < pairs.length; i += 2)
    tuples.push([pairs[i] as string, pairs[i + 1] as string]);
  return tuples;
}

/**
 * A 200 (whole file) or a 206 (`range` set, `body` holding only those bytes). `headers` comes
 * from {@link representationHeaders}.
 */
export function fileResponse(
  representation: Representation,
  headerPairs: readonly string[],
  body: ResponseBody,
  range?: { start: number; end: number },
): Response {
  const headers = MultiValueHeaders.fromRawPairs(headerPairs);
  let status = 200;
  if (range !== undefined) {
    status = 206;
    headers.set('Content-Range', formatContentRange(range, representation.size));
    headers.set('Content-Length', range.end - range.start + 1);
  }
  const response = new Response(status, body);
  // Built for this response alone: given as `init.headers` it would be copied.
  response.headers = headers;
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
  return new Response(304, undefined, {
    headers: pairsToTuples(validatorPairs(representation, [])),
  });
}

/** 416 with `Content-Range: bytes *\/size` (RFC 9110 §15.5.17). */
export function rangeNotSatisfiable(size: number | undefined): HttpError {
  const headers: Record<string, string> = { 'Accept-Ranges': 'bytes' };
  if (size !== undefined) headers['Content-Range'] = formatUnsatisfiedRange(size);
  return new HttpError(416, undefined, undefined, headers);
}

/**
 * The answer for a representation whose validators are known before a byte of it is read (a
 * local file): the preconditions and then the range, decided by the same evaluator as a route's
 * (RFC 9110 §13.2.2), give 304, 412, 416, 206 or 200. `read(start, end)` gives the body for
 * those bytes (inclusive).
 */
export function respondFromValidators(
  request: Request,
  representation: Representation,
  headerPairs: readonly string[],
  read: (start: number, end: number) => ResponseBody,
): Response {
  const outcome = evaluatePreconditions(request, representation);
  if (outcome === 'not-modified') return notModifiedResponse(representation);
  if (outcome === 'failed') throw new HttpError(412);
  const size = representation.size;
  // Range is defined for GET only (RFC 9110 §14.2): HEAD answers as a GET without Range would.
  const asked = request.method === 'GET' ? evaluateRange(request, representation, size) : undefined;
  if (asked?.kind === 'unsatisfiable') throw rangeNotSatisfiable(size);
  // Several ranges that stay apart after merging are answered with the whole file, which §14.2
  // allows; one range is never served silently in place of several.
  if (asked?.kind === 'ranges' && asked.ranges.length === 1) {
    const only = asked.ranges[0] as { start: number; end: number };
    return fileResponse(representation, headerPairs, read(only.start, only.end), only);
  }
  return fileResponse(representation, headerPairs, read(0, size - 1));
}
