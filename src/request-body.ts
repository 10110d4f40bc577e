/**
 * Request bodies: the shapes a runtime hands over and reading them whole within the body limit
 * (413 past it), for the Request model (request.ts).
 */
import { HttpError } from './errors.js';
import { concatBytes, utf8Length } from './http/bytes.js';

/** A request body: text, bytes, or a stream of chunks (a Node `Readable` or a `ReadableStream`). */
export type RequestBody =
  | string
  | Uint8Array
  | AsyncIterable<Uint8Array | string>
  | ReadableStreamLike;

/**
 * A stream body that can also read itself whole faster than chunk by chunk (an adapter's fast
 * path). `readWhole` must reject with a 413 `HttpError` as soon as more than `limit` bytes
 * arrive, and stop reading then.
 */
export interface WholeBodyReader extends AsyncIterable<Uint8Array | string> {
  readWhole(limit: number): Promise<Uint8Array>;
}

/**
 * A stream body that knows from the message's framing whether it carries content (RFC 9112
 * §6.3: an HTTP/1.1 request without Content-Length or Transfer-Encoding has none).
 */
export interface FramedBody {
  readonly hasContent: boolean;
}

/**
 * Whether `body` may carry content, known without reading it: not when there is no body, an
 * empty one, or a stream whose framing says so ({@link FramedBody}). Any other stream may.
 */
export function mayHaveContent(body: RequestBody | undefined): boolean {
  if (body === undefined) return false;
  if (typeof body === 'string' || body instanceof Uint8Array) return body.length > 0;
  return (body as Partial<FramedBody>).hasContent !== false;
}

/** The part of a WHATWG `ReadableStream` used to read a body (structural, so no DOM types). */
export interface ReadableStreamLike {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    releaseLock(): void;
    cancel(reason?: unknown): Promise<void>;
  };
}

const EMPTY_BYTES = new Uint8Array(0);

/** The whole body as bytes: 413 as soon as it is longer than `limit`. */
export function readRequestBody(body: RequestBody | undefined, limit: number): Promise<Uint8Array> {
  // An adapter's whole-body reader is handed on as it is: wrapping its promise in another
  // would cost the request extra turns of the microtask queue.
  return isWholeBodyReader(body) ? readWhole(body, limit) : readBody(body, limit);
}

/** `body` when it is at most `limit` UTF-8 bytes long, else a 413. */
export function withinLimit<T extends string | Uint8Array>(body: T, limit: number): T {
  if (typeof body !== 'string') {
    if (body.length > limit) throw tooLarge(limit);
  } else if (body.length * 3 > limit && utf8Length(body) > limit) {
    // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no counting.
    throw tooLarge(limit);
  }
  return body;
}

/** `text` parsed as JSON; malformed JSON is a 400. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Malformed JSON in request body: ${(error as Error).message}`);
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
}

function isReadableStream(body: unknown): body is ReadableStreamLike {
  return typeof (body as ReadableStreamLike).getReader === 'function';
}

function isWholeBodyReader(body: RequestBody | undefined): body is WholeBodyReader {
  return (
    typeof body === 'object' && typeof (body as Partial<WholeBodyReader>).readWhole === 'function'
  );
}

// A reader that throws instead of rejecting still gives a rejected promise, as readBody would.
function readWhole(body: WholeBodyReader, limit: number): Promise<Uint8Array> {
  try {
    return body.readWhole(limit);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function readBody(body: RequestBody | undefined, limit: number): Promise<Uint8Array> {
  if (body === undefined) return EMPTY_BYTES;
  if (typeof body === 'string') {
    const bytes = new TextEncoder().encode(body);
    if (bytes.length > limit) throw tooLarge(limit);
    return bytes;
  }
  if (body instanceof Uint8Array) return withinLimit(body, limit);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const encoder = new TextEncoder();
  const take = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    total += bytes.length;
    if (total > limit) throw tooLarge(limit);
    chunks.push(bytes);
  };
  if (isReadableStream(body) && !(Symbol.asyncIterator in body)) {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value !== undefined) take(value);
      }
    } catch (error) {
      await reader.cancel(error).catch(() => undefined);
      throw error;
    } finally {
      reader.releaseLock();
    }
  } else {
    const iterable = body as AsyncIterable<Uint8Array | string>;
    // Leaving the loop early (over the limit) runs the iterator's return(), which destroys a
    // Node stream: the rest of an oversized body is never buffered.
    for await (const chunk of iterable) take(chunk);
  }
  return concatBytes(chunks, total);
}
