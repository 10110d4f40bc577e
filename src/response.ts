/**
 * The Response model: what the pipeline produces and every adapter turns into its runtime's
 * response.
 */
import { collectBytes } from './http/bytes.js';
import { type CookieOptions, serializeCookie } from './http/cookie.js';
import { formatLastModified } from './http/date.js';
import { formatEntityTag } from './http/etag.js';
import { type HeadersInit, MultiValueHeaders } from './http/headers.js';
import { describeUnrepresentable } from './json-values.js';
import type { ReadableStreamLike, Request } from './request.js';

/**
 * A file served from disk. Adapters stream it; `start`/`end` (inclusive)
 * select a byte range, `size` is the file's size once known.
 */
export class FileBody {
  readonly path: string;
  start: number | undefined;
  end: number | undefined;
  size: number | undefined;

  constructor(path: string) {
    if (typeof path !== 'string' || path === '') throw new TypeError('A file body needs a path');
    this.path = path;
  }
}

/**
 * An object that is data, not a function or a class: every function inherits
 * `Symbol.hasInstance`, which data does not have. JSON would send a function as nothing
 * (docs/application.md, "Handler results"). Object literals match the record beside it in
 * `ResponseBody`, which spares them TypeScript's excess-property check against this type.
 */
export type DataObject = object & { [Symbol.hasInstance]?: never };

/** Every body a response may carry; plain objects and arrays are sent as JSON. */
export type ResponseBody =
  | string
  | Uint8Array
  | ArrayBuffer
  | AsyncIterable<Uint8Array | string>
  | ReadableStreamLike
  | FileBody
  | DataObject
  | { readonly [key: string]: unknown }
  | readonly unknown[]
  | number
  | boolean
  | null
  | undefined;

/** What `new Response(status, body, init)` takes besides the status and body. */
export interface ResponseInit {
  /** Copied: a `MultiValueHeaders` given here is left as it is, whatever the response gets. */
  headers?: HeadersInit | null | undefined;
  contentType?: string | undefined;
  request?: Request | undefined;
  availableContentTypes?: string[] | undefined;
  preCalculatedHeaders?: HeadersInit | null | undefined;
  /** An entity tag, quoted or not (quotes are added). */
  etag?: string | undefined;
  lastModified?: Date | undefined;
  rangeStart?: number | undefined;
  rangeEnd?: number | undefined;
}

const NO_INIT: ResponseInit = Object.freeze({});

/**
 * An HTTP response.
 *
 * @example
 * return new Response(201, { id }, { headers: { Location: `/items/${id}` } });
 */
export class Response {
  statusCode: number;
  body: ResponseBody;
  headers: MultiValueHeaders;
  contentType: string | undefined;
  request: Request | undefined;
  availableContentTypes: string[] | undefined;
  /** Headers worked out before the handler ran; added where the response has none of its own. */
  preCalculatedHeaders: MultiValueHeaders | undefined;
  etag: string | undefined;
  lastModified: Date | undefined;
  rangeStart: number | undefined;
  rangeEnd: number | undefined;

  constructor(statusCode: number, body?: ResponseBody, init?: ResponseInit) {
    if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
      throw new RangeError(`Response status must be an integer from 100 to 599, got ${statusCode}`);
    }
    this.statusCode = statusCode;
    this.body = body;
    this.etag = undefined;
    this.lastModified = undefined;
    // The pipeline's own responses pass no options: nothing to allocate for them.
    init ??= NO_INIT;
    // The response's headers are its own: the pipeline writes this request's Set-Cookie, request
    // id, validators and framing into them, which a caller's instance (one module-level set of
    // caching headers, say) would carry into every other response built from it.
    this.headers = new MultiValueHeaders(init.headers);
    this.contentType = init.contentType;
    this.request = init.request;
    this.availableContentTypes = init.availableContentTypes;
    this.preCalculatedHeaders =
      init.preCalculatedHeaders === undefined || init.preCalculatedHeaders === null
        ? undefined
        : new MultiValueHeaders(init.preCalculatedHeaders);
    if (init.etag !== undefined) this.setEtag(init.etag);
    if (init.lastModified !== undefined) this.setLastModified(init.lastModified);
    this.rangeStart = init.rangeStart;
    this.rangeEnd = init.rangeEnd;
  }

  /**
   * A response that serves a file from disk; Content-Type comes from the extension and
   * Content-Length from the file's size when the response is sent.
   *
   * @example
   * app.get('/report', () => Response.file('./reports/latest.pdf'));
   */
  static file(path: string, init?: ResponseInit & { status?: number }): Response {
    return new Response(init?.status ?? 200, new FileBody(path), init);
  }

  /**
   * A JSON response, whatever the value's shape (arrays that look like tuples included). A value
   * JSON has no text for (`undefined`, a function) or sends as `{}` (a Map, a Set) is a
   * TypeError, as it is a 500 when a handler returns it (docs/application.md, "Handler results").
   */
  static json(value: unknown, status = 200, init?: ResponseInit): Response {
    const problem =
      value === undefined
        ? 'undefined: pass null, or answer a 204'
        : describeUnrepresentable(value);
    if (problem !== undefined) throw new TypeError(`Response.json() cannot send ${problem}`);
    return new Response(status, JSON.stringify(value), {
      ...init,
      contentType: init?.contentType ?? 'application/json',
    });
  }

  /**
   * A redirect to `location`: 302 unless told otherwise, and only a redirect status (301, 302,
   * 303, 307 or 308, RFC 9110 §15.4), as the Fetch API's `Response.redirect` takes. Location is a
   * URI reference (§10.2.2): characters beyond ASCII, and the ASCII ones no URI holds (a space,
   * `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`), are percent-encoded as UTF-8 (RFC 3986
   * §2.1), and escapes already there are kept.
   *
   * @example
   * return Response.redirect('/café', 303); // Location: /caf%C3%A9
   */
  static redirect(location: string, status = 302): Response {
    if (![301, 302, 303, 307, 308].includes(status)) {
      throw new RangeError(`A redirect's status is 301, 302, 303, 307 or 308, got ${status}`);
    }
    let target: string;
    try {
      target = location.replace(/(?:[^\0-\x7f]|[ "<>\\^`{|}])+/g, encodeURI);
    } catch {
      // encodeURI's URIError: a lone surrogate is no character, and has no UTF-8 to encode.
      throw new TypeError(
        `A redirect's location is not well-formed text: ${JSON.stringify(location)}`,
      );
    }
    return new Response(status, undefined, { headers: { Location: target } });
  }

  /** Sets the entity tag; quotes are added, and `W/` when `weak`. */
  setEtag(etag: string, weak = false): this {
    const tag = formatEntityTag(etag, weak);
    this.etag = tag;
    this.headers.set('ETag', tag);
    return this;
  }

  /** Sets Last-Modified as an IMF-fixdate in GMT. */
  setLastModified(lastModified: Date): this {
    if (!(lastModified instanceof Date) || Number.isNaN(lastModified.getTime())) {
      throw new TypeError('setLastModified needs a valid Date');
    }
    this.lastModified = lastModified;
    this.headers.set('Last-Modified', formatLastModified(lastModified));
    return this;
  }

  /**
   * What a log line shows of the response, and `JSON.stringify` gives: its status and headers
   * (as `headers.toJSON()` gives them). Never the body, which may be large or a stream.
   */
  toJSON(): { statusCode: number; headers: Record<string, string | string[]> } {
    return { statusCode: this.statusCode, headers: this.headers.toJSON() };
  }

  /** True when the response carries one byte range (a 206). */
  isRangeResponse(): boolean {
    return this.rangeStart !== undefined && this.rangeEnd !== undefined;
  }

  /** Adds one `Set-Cookie` header (never joined with others). */
  setCookie(name: string, value: string, options?: CookieOptions): this {
    this.headers.add('Set-Cookie', serializeCookie(name, value, options));
    return this;
  }

  /** Tells the client to drop a cookie (an empty value that expired in 1970). */
  clearCookie(name: string, options: Omit<CookieOptions, 'expires' | 'maxAge'> = {}): this {
    return this.setCookie(name, '', { ...options, expires: new Date(0) });
  }

  /**
   * Hashes the body (SHA-256) into an entity tag and sets it. A stream body is read whole,
   * hashed and replaced by its bytes, so the response can still be sent.
   */
  async generateEtagFromContent(weak = false): Promise<string> {
    const bytes = await bodyBytes(this);
    const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
    const tag = base64Url(new Uint8Array(digest)).slice(0, 27);
    this.setEtag(tag, weak);
    return this.etag as string;
  }
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The body as bytes, replacing a stream body with what was read from it.
 *
 * @internal
 */
export async function bodyBytes(response: Response): Promise<Uint8Array<ArrayBuffer>> {
  const body = response.body;
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body.slice(0));
  if (body instanceof FileBody) return readFileBody(body);
  if (typeof body === 'object' && isStream(body)) {
    const out = await collectBytes(streamChunks(body));
    response.body = out;
    return new Uint8Array(out);
  }
  return new TextEncoder().encode(typeof body === 'object' ? JSON.stringify(body) : String(body));
}

/**
 * The bytes of a file body: only `start`..`end` (inclusive) when a range selected them, never
 * the whole file. Once the body's length was decided (`size`, or the range) exactly that many
 * bytes are read: a file that grew since gives its first `size` bytes, the ones its headers
 * describe, and one that shrank is an error, never a short body that would pass for the whole
 * file (RFC 9110 §8.6). `node:fs` is loaded on the first file body only, so the core loads no
 * Node module (and a Lambda cold start does not pay for it).
 *
 * @internal
 */
export async function readFileBody(body: FileBody): Promise<Uint8Array<ArrayBuffer>> {
  const { open, readFile } = await import('node:fs/promises');
  const start = body.start ?? 0;
  const decidedEnd = body.end ?? (body.size === undefined ? undefined : body.size - 1);
  if (start === 0 && decidedEnd === undefined) {
    // No length was decided yet: the file as it is now. A view of the buffer readFile
    // allocated for this file alone: no copy.
    const whole = await readFile(body.path);
    return new Uint8Array(whole.buffer as ArrayBuffer, whole.byteOffset, whole.byteLength);
  }
  const handle = await open(body.path, 'r');
  try {
    const end = decidedEnd ?? (await handle.stat()).size - 1;
    const out = new Uint8Array(Math.max(0, end - start + 1));
    let filled = 0;
    while (filled < out.length) {
      const { bytesRead } = await handle.read(out, filled, out.length - filled, start + filled);
      if (bytesRead === 0) {
        throw new Error(
          `File ${body.path} ended after ${filled} of the ${out.length} bytes its response declared: it changed while being read`,
        );
      }
      filled += bytesRead;
    }
    return out;
  } finally {
    await handle.close();
  }
}

/** Whether a body is a stream: an async iterable or a WHATWG `ReadableStream`. */
export function isStream(
  body: unknown,
): body is AsyncIterable<Uint8Array | string> | ReadableStreamLike {
  return (
    typeof body === 'object' &&
    body !== null &&
    (Symbol.asyncIterator in body || typeof (body as ReadableStreamLike).getReader === 'function')
  );
}

type Chunk = Uint8Array | string;
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Iterates the chunks of a stream body of either kind. Ending the iteration early (`return()`)
 * lets go of the source at once, even while a read is waiting for a chunk that may never come
 * (an idle upstream, an event stream between events): a WHATWG stream is cancelled through the
 * reader that holds it, and a Node stream destroyed, where their own iterators would wait for
 * the pending read first. An async generator finishes the step it is in (its `finally` runs at
 * its next `yield`), as JavaScript has it. `sse()` reads its event feed through it too, whose
 * chunks are events.
 */
export function streamChunks<T>(
  body: AsyncIterable<T> | ReadableStreamLike,
): AsyncIterableIterator<T>;
// Last, so `Parameters<typeof streamChunks>` names a response body's stream, as the adapters use it.
export function streamChunks(
  body: AsyncIterable<Chunk> | ReadableStreamLike,
): AsyncIterableIterator<Chunk>;
export function streamChunks<T>(
  body: AsyncIterable<T> | ReadableStreamLike,
): AsyncIterableIterator<T> {
  // A WHATWG stream is read through a reader even where it is async-iterable (Node's are): the
  // reader is what can cancel it while a read waits.
  if (typeof (body as ReadableStreamLike).getReader === 'function') {
    return readerChunks<T>(body as ReadableStreamLike);
  }
  const source = body as AsyncIterable<T> & { destroy?: () => void };
  const iterator = source[Symbol.asyncIterator]();
  return {
    next: () => iterator.next(),
    return: (value?: unknown) => {
      if (typeof source.destroy === 'function') source.destroy();
      return Promise.resolve(iterator.return?.(value)).then(
        () => DONE,
        () => DONE,
      );
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function readerChunks<T>(stream: ReadableStreamLike): AsyncIterableIterator<T> {
  const reader = stream.getReader();
  let open = true;
  const close = () => {
    open = false;
    reader.releaseLock();
  };
  return {
    async next() {
      while (open) {
        let chunk: { done: boolean; value?: unknown };
        try {
          chunk = await reader.read();
        } catch (error) {
          if (open) close();
          throw error;
        }
        if (chunk.done) {
          if (open) close();
          break;
        }
        if (chunk.value !== undefined) return { done: false, value: chunk.value as T };
      }
      return DONE;
    },
    return(reason?: unknown) {
      if (!open) return Promise.resolve(DONE);
      open = false;
      // The pending read, if any, ends as done: the iteration stops there.
      return reader.cancel(reason).then(
        () => DONE,
        () => DONE,
      );
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
