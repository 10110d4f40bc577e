/**
 * Compressing a response on its way out (docs/streams.md, "Compression"): the last step of
 * `finalizeResponse` for routes that use `compress()`, so `onResponse` hooks and the access log
 * see the encoded headers. The encoders load on the first response actually compressed.
 */
import { chooseEncoding } from '../../http/accept-encoding.js';
import { discardBody } from '../../http/bytes.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { addVary } from '../../http/vary.js';
import type { Request } from '../../request.js';
import { FileBody, isStream, type Response, streamChunks } from '../../response.js';
import { type ContentCoding, type Encoders, loadEncoders, loadedEncoders } from './encoders.js';
import type { CompiledCompression } from './options.js';

const UTF8 = new TextEncoder();

/** The essence of a Content-Type (RFC 9110 §8.3.1): lower case, without parameters. */
function essenceOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

// RFC 9111 §5.2.2.6: `Cache-Control: no-transform` asks that the content not be transformed.
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

function forbidsTransform(headers: MultiValueHeaders): boolean {
  const cacheControl = MultiValueHeaders.getList(headers, 'cache-control');
  return cacheControl !== undefined && NO_TRANSFORM.test(cacheControl);
}

/**
 * Whether the response would be compressed for a client that accepts it: content of a
 * compressible type, at least `threshold` bytes (a stream of unknown length always), not a
 * range (a 206's bytes are of the unencoded representation, RFC 9110 §14.1), not encoded
 * already, and not marked `no-transform`.
 */
function isCompressible(settings: CompiledCompression, response: Response, head: boolean): boolean {
  const body = response.body;
  // A HEAD answered without its body (a static file's) is judged by the GET's Content-Length.
  if (((body === undefined || body === null) && !head) || response.statusCode === 206) return false;
  const headers = response.headers;
  if (headers.has('content-encoding') || forbidsTransform(headers)) return false;
  const type = MultiValueHeaders.getLower(headers, 'content-type');
  if (type === undefined || !settings.compressible(essenceOf(type))) return false;
  // finalizeResponse gave every body of known length (text, bytes, files) its Content-Length.
  const length = MultiValueHeaders.getLower(headers, 'content-length');
  if (length !== undefined) return Number(length) >= settings.threshold;
  return isStream(body);
}

/** An encoded representation is a different one: its validator may only be weak (as nginx's). */
function weakenEtag(response: Response): void {
  const tag = MultiValueHeaders.getLower(response.headers, 'etag');
  if (tag?.startsWith('"')) response.headers.set('ETag', `W/${tag}`);
  if (response.etag?.startsWith('"')) response.etag = `W/${response.etag}`;
}

function withoutBody(response: Response): Response {
  discardBody(response.body);
  response.body = undefined;
  return response;
}

/**
 * Compresses `response` for `request` when the route's `settings` and the client's
 * `Accept-Encoding` allow it; `head` drops the body afterwards, keeping the headers a GET
 * gets (Content-Encoding and the compressed Content-Length included).
 *
 * Every answer of the route carries what its 200 would (RFC 9110 §15.4.5), since a 304 cannot
 * tell whether that 200 was compressed (its body's type and size are unknown there): each varies
 * on Accept-Encoding, and for a client that takes one of the route's codings the runtime has,
 * its ETag is weak, compressed or not.
 */
export function compressResponse(
  settings: CompiledCompression,
  response: Response,
  request: Request,
  head: boolean,
): Response | Promise<Response> {
  const accept = MultiValueHeaders.getList(request.headers, 'accept-encoding');
  addVary(response.headers, 'Accept-Encoding');
  // A client that takes none of the route's codings gets the body as it is, and the encoders
  // stay unloaded.
  if (chooseEncoding(accept, settings.encodings) === undefined) {
    return head && response.statusCode !== 304 ? withoutBody(response) : response;
  }
  const encoders = loadedEncoders();
  if (encoders !== undefined) return compressWith(settings, response, accept, head, encoders);
  return loadEncoders().then(
    (loaded) => compressWith(settings, response, accept, head, loaded),
    // A runtime with neither zlib nor CompressionStream sends bodies as they are.
    () => (head ? withoutBody(response) : response),
  );
}

function compressWith(
  settings: CompiledCompression,
  response: Response,
  accept: string | undefined,
  head: boolean,
  encoders: Encoders,
): Response | Promise<Response> {
  const coding = chooseEncoding(
    accept,
    settings.encodings.filter((offered) => encoders.codings.has(offered)),
  );
  // A 206 is never encoded: its strong tag is the unencoded representation's, the one If-Range
  // compares (RFC 9110 §13.1.5), so a download resumes.
  if (coding !== undefined && response.statusCode !== 206) weakenEtag(response);
  if (response.statusCode === 304) return response;
  const body = response.body;
  const file = body instanceof FileBody ? encoders.file : undefined;
  if (
    coding === undefined ||
    !isCompressible(settings, response, head) ||
    (body instanceof FileBody && file === undefined)
  ) {
    return head ? withoutBody(response) : response;
  }
  const headers = response.headers;
  headers.set('Content-Encoding', coding);
  // Ranges are served of the unencoded bytes only: a client resuming this encoded body with a
  // Range would splice unencoded bytes onto encoded ones (RFC 9110 §14.3).
  headers.delete('accept-ranges');
  if (body === undefined || body === null) {
    // A HEAD without its body: the compressed length would be known only by producing it,
    // and RFC 9110 §9.3.2 lets a HEAD omit what only generating the content would tell.
    headers.delete('content-length');
    return response;
  }
  if (body instanceof FileBody || isStream(body)) {
    // Sent chunked: the compressed length is known only at the end.
    headers.delete('content-length');
    if (head) return withoutBody(response);
    const encode = (source: Parameters<typeof streamChunks>[0]): Response => {
      // Through streamChunks: a client gone stops the source at once, even while it waits.
      response.body = encoders.stream(coding, streamChunks(source), settings.levels);
      return response;
    };
    return body instanceof FileBody
      ? (file as NonNullable<Encoders['file']>)(body).then(encode)
      : encode(body);
  }
  return compressWhole(settings, response, coding, head, encoders);
}

/** A buffered body compressed whole, with the compressed Content-Length (HEAD's too). */
async function compressWhole(
  settings: CompiledCompression,
  response: Response,
  coding: ContentCoding,
  head: boolean,
  encoders: Encoders,
): Promise<Response> {
  const body = response.body;
  const bytes = typeof body === 'string' ? UTF8.encode(body) : (body as Uint8Array);
  const compressed = await encoders.bytes(coding, bytes, settings.levels);
  MultiValueHeaders.setTrusted(
    response.headers,
    'Content-Length',
    'content-length',
    String(compressed.length),
  );
  response.body = head ? undefined : compressed;
  return response;
}
