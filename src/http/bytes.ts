/**
 * Byte helpers shared by the models, the pipeline and the adapters: UTF-8 lengths, joining
 * chunks, reading a stream whole, and letting go of a body that will not be sent. Nothing here
 * loads a Node module, so the core still runs where there is none.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at NUL on purpose.
const NON_ASCII = /[^\x00-\x7f]/;

// Node's and Bun's `Buffer.byteLength` counts in native code, several times faster than anything
// written here; other runtimes get the portable count below. Both count a lone surrogate as the
// 3 bytes of the U+FFFD it is sent as.
const nativeByteLength = (
  globalThis as { Buffer?: { byteLength?: (text: string, encoding: 'utf8') => number } }
).Buffer?.byteLength;

// The pipeline measures a text body for its Content-Length, and the Lambda adapter measures the
// same string again for its result: the last answer is remembered (about 2,200 instructions per
// 1 KB JSON echo event, bench/RESULTS.md). Only for short texts, so none is kept alive for long.
const LONGEST_REMEMBERED = 64 * 1024;
let lastText = '';
let lastLength = 0;

/**
 * The UTF-8 length of a string without encoding it.
 *
 * @example
 * utf8Length('é'); // 2
 */
export function utf8Length(text: string): number {
  if (text === lastText) return lastLength;
  const length =
    nativeByteLength === undefined ? portableUtf8Length(text) : nativeByteLength(text, 'utf8');
  if (text.length <= LONGEST_REMEMBERED) {
    lastText = text;
    lastLength = length;
  }
  return length;
}

/** `utf8Length` without `Buffer` (exported for tests). */
export function portableUtf8Length(text: string): number {
  // Most bodies (JSON above all) are ASCII, whose UTF-8 length is the string's length; the
  // regular expression answers that several times faster than the loop below.
  if (!NON_ASCII.test(text)) return text.length;
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A surrogate pair is one 4-byte code point over two UTF-16 units.
      length += 2;
      i++;
    } else length += 2; // 3 bytes; a lone surrogate is sent as U+FFFD, also 3 bytes.
  }
  return length;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Joins byte chunks into one array; a single chunk is returned as it is. `total`, when the
 * caller counted it already, spares a second pass.
 *
 * @example
 * concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]); // Uint8Array [1, 2, 3]
 */
export function concatBytes(chunks: readonly Uint8Array[], total?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  let length = total;
  if (length === undefined) {
    length = 0;
    for (const chunk of chunks) length += chunk.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * A response stream's chunk, once it is known to be text or a `Uint8Array` (a `Buffer` is one):
 * what Node's `write` takes, and so what every adapter sends (docs/streams.md). Anything else
 * (a number, an `ArrayBuffer`, an `Int16Array`) throws, failing the stream as a source that
 * throws does: another typed array would otherwise be copied one element to a byte, or counted
 * in elements rather than bytes.
 */
export function streamChunk(value: unknown): Uint8Array | string {
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  const kind = Object.prototype.toString.call(value).slice(8, -1);
  // A Uint8Array of another realm (a `vm` context, a test runner's sandbox) is one all the same,
  // as Node's `write` takes it.
  if (kind === 'Uint8Array') return value as Uint8Array;
  throw new TypeError(`A response stream chunk must be a string or a Uint8Array, got ${kind}`);
}

const UTF8 = new TextEncoder();

/** Reads chunks of text or bytes whole, text as UTF-8; any other chunk fails the read. */
export async function collectBytes(chunks: AsyncIterable<unknown>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const value of chunks) {
    const chunk = streamChunk(value);
    const bytes = typeof chunk === 'string' ? UTF8.encode(chunk) : chunk;
    parts.push(bytes);
    total += bytes.length;
  }
  return concatBytes(parts, total);
}

/**
 * Releases a body that will not be sent (a 304, a HEAD, an error in its place), so a stream's
 * file handle or socket is not held until it is collected: a Node stream is destroyed, a WHATWG
 * `ReadableStream` cancelled, an async generator returned. Anything else needs nothing.
 */
export function discardBody(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  const stream = body as {
    destroy?: () => void;
    cancel?: () => Promise<void>;
    return?: () => Promise<unknown>;
  };
  if (typeof stream.destroy === 'function') stream.destroy();
  else if (typeof stream.cancel === 'function') stream.cancel().catch(() => undefined);
  // An async generator: its `finally` runs (an open cursor or upstream response is released).
  else if (typeof stream.return === 'function') stream.return().catch(() => undefined);
}

/**
 * `chunks`, a generator reading `source`, made to let go of `source` even when stopped before
 * its first step: a generator's `finally` runs only once it has started, so a client that left
 * before the body began would leave the source open (an S3 socket, a file descriptor) until it
 * is collected.
 */
export function releasingSource<T>(
  chunks: AsyncGenerator<T>,
  source: unknown,
): AsyncIterableIterator<T> {
  let started = false;
  return {
    next: () => {
      started = true;
      return chunks.next();
    },
    return: (value?: unknown) => {
      if (!started) discardBody(source);
      return chunks.return(value);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
