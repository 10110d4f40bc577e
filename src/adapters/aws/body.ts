/**
 * Bodies in and out of Lambda events: base64 when the integration says so, text otherwise.
 */
import { Buffer } from 'node:buffer';
import { HttpError } from '../../errors.js';
import { collectBytes, utf8Length } from '../../http/bytes.js';
import { FileBody, isStream, type Response, readFileBody, streamChunks } from '../../response.js';

/**
 * The event's body as the Request takes it: the string itself, or the decoded bytes of a
 * base64 body. Invalid base64 is the client's fault: a 400, never a silently
 * truncated body.
 */
export function decodeEventBody(
  body: string | null | undefined,
  isBase64Encoded: boolean | undefined,
): string | Uint8Array | undefined {
  if (body === null || body === undefined || body === '') return undefined;
  if (typeof body !== 'string') throw new HttpError(400, 'The event body is not a string');
  if (isBase64Encoded !== true) return body;
  const bytes = Buffer.from(body, 'base64');
  // Node's decoder skips characters outside the alphabet and stops at stray padding, so a
  // damaged body would decode to different bytes. RFC 4648 §3.3 asks decoders to reject such
  // data: only the canonical encoding of what was decoded is accepted.
  if (bytes.toString('base64') !== body) {
    throw new HttpError(400, 'The request body is marked base64-encoded but is not valid base64');
  }
  return bytes;
}

/** A result body ready for the integration, with its length in bytes. */
export interface EncodedBody {
  body: string;
  isBase64Encoded: boolean;
  byteLength: number;
}

const EMPTY: EncodedBody = { body: '', isBase64Encoded: false, byteLength: 0 };
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const UTF8 = new TextEncoder();

const TEXTUAL_APPLICATION_TYPES = new Set([
  'application/json',
  'application/javascript',
  'application/ecmascript',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/graphql',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/sql',
]);

/**
 * Whether a media type is text that gateways can carry as a JSON string. An absent type is
 * decided by the bytes alone (text when valid UTF-8).
 */
export function isTextualType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon))
    .trim()
    .toLowerCase();
  if (essence.startsWith('text/')) return true;
  if (TEXTUAL_APPLICATION_TYPES.has(essence)) return true;
  return essence.endsWith('+json') || essence.endsWith('+xml') || essence.endsWith('+yaml');
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Bytes as text when they are valid UTF-8 of a textual type, else as base64. */
export function encodeBytes(
  bytes: Uint8Array,
  contentType: string | undefined,
  forceBase64: boolean,
): EncodedBody {
  if (bytes.length === 0) return EMPTY;
  if (!forceBase64 && isTextualType(contentType)) {
    try {
      return { body: STRICT_UTF8.decode(bytes), isBase64Encoded: false, byteLength: bytes.length };
    } catch {
      // Not UTF-8 after all: fall through to base64, which carries any bytes.
    }
  }
  return { body: toBase64(bytes), isBase64Encoded: true, byteLength: bytes.length };
}

/** What {@link encodeResponseBody} found out about the body besides its encoding. */
export interface ResultBody extends EncodedBody {
  /** A Content-Type the body implies when the response has none (JSON for objects). */
  impliedContentType: string | undefined;
}

function resultBody(encoded: EncodedBody, implied?: string): ResultBody {
  return {
    body: encoded.body,
    isBase64Encoded: encoded.isBase64Encoded,
    byteLength: encoded.byteLength,
    impliedContentType: implied,
  };
}

/**
 * The response body as the integration carries it: text when it is valid
 * UTF-8 of a textual type, else base64; files and streams are read whole; a 206 is always
 * base64 (§4.5.9). `omitBody` (HEAD, 204, 304) sends nothing and leaves any stream unread.
 * Only files and streams need a promise; everything else is converted at once.
 */
export function encodeResponseBody(
  response: Response,
  omitBody: boolean,
): ResultBody | Promise<ResultBody> {
  const body = response.body;
  if (omitBody || body === undefined || body === null) return resultBody(EMPTY);
  const headers = response.headers;
  const forceBase64 = response.statusCode === 206 || headers.has('content-encoding');
  if (typeof body === 'string' && !forceBase64) {
    return {
      body,
      isBase64Encoded: false,
      byteLength: utf8Length(body),
      impliedContentType: undefined,
    };
  }
  const contentType = headers.get('content-type') ?? response.contentType;
  if (typeof body === 'string')
    return resultBody(encodeBytes(UTF8.encode(body), contentType, true));
  if (body instanceof Uint8Array) return resultBody(encodeBytes(body, contentType, forceBase64));
  if (body instanceof ArrayBuffer) {
    return resultBody(encodeBytes(new Uint8Array(body), contentType, forceBase64));
  }
  if (body instanceof FileBody) {
    return readFileBody(body).then((bytes) =>
      resultBody(encodeBytes(bytes, contentType, forceBase64)),
    );
  }
  if (isStream(body)) {
    let chunks: ReturnType<typeof streamChunks>;
    try {
      chunks = streamChunks(body);
    } catch (error) {
      // A source that cannot start (its `[Symbol.asyncIterator]()` throws) fails the read, which
      // is answered as a failure midway is, not thrown out of the invocation.
      return Promise.reject(error);
    }
    return collectBytes(chunks).then((bytes) =>
      resultBody(encodeBytes(bytes, contentType, forceBase64)),
    );
  }
  const isObject = typeof body === 'object';
  const text = isObject ? JSON.stringify(body) : String(body);
  const implied = isObject ? 'application/json' : undefined;
  return resultBody(encodeBytes(UTF8.encode(text), contentType ?? implied, forceBase64), implied);
}
