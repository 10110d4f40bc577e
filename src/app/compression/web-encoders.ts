/**
 * Encoders from the WHATWG `CompressionStream` (Compression Streams standard), for runtimes
 * without `node:zlib`. gzip is everywhere; Brotli and zstd only where the runtime's
 * `CompressionStream` accepts them (Node 20's does not). Levels cannot be chosen, and a
 * `CompressionStream` cannot be flushed: a stream's compressed bytes leave as the encoder's
 * buffer fills, not after each chunk.
 */
import { collectBytes, streamChunk } from '../../http/bytes.js';
import type { Chunks, ContentCoding, Encoders } from './encoder-types.js';

type Format = ConstructorParameters<typeof CompressionStream>[0];

/** The `CompressionStream` format for a coding, if the runtime has one. */
function formatFor(coding: ContentCoding): Format | undefined {
  const candidates = coding === 'br' ? ['br', 'brotli'] : [coding];
  for (const candidate of candidates) {
    try {
      new CompressionStream(candidate as Format);
      return candidate as Format;
    } catch {
      // Not this runtime's name for it.
    }
  }
  return undefined;
}

const encoder = new TextEncoder();

function readable(source: Chunks): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        iterator ??= source[Symbol.asyncIterator]();
        const { done, value } = await iterator.next();
        if (done) {
          controller.close();
          return;
        }
        // Checked as the adapters check an uncompressed chunk (docs/streams.md): throwing here
        // errors the stream, and with it the compressed one, as a failing source does. The
        // source, which did not fail itself, is let go first (an errored stream is not cancelled).
        let chunk: Uint8Array | string;
        try {
          chunk = streamChunk(value);
        } catch (error) {
          await Promise.resolve(iterator.return?.(error)).catch(() => undefined);
          throw error;
        }
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      },
      async cancel(reason) {
        await iterator?.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The encoders of this runtime's `CompressionStream`. */
export function webEncoders(): Encoders {
  const formats = new Map<ContentCoding, Format>();
  for (const coding of ['br', 'zstd', 'gzip'] as const) {
    const format = formatFor(coding);
    if (format !== undefined) formats.set(coding, format);
  }
  const compressed = (coding: ContentCoding, source: Chunks) =>
    chunksOf(
      readable(source).pipeThrough(
        new CompressionStream(formats.get(coding) as Format) as unknown as TransformStream<
          Uint8Array,
          Uint8Array
        >,
      ),
    );
  return {
    codings: new Set(formats.keys()),
    bytes: (coding, input) => collectBytes(compressed(coding, once(input))),
    stream: compressed,
    file: undefined,
  };
}

async function* once(input: Uint8Array): AsyncGenerator<Uint8Array> {
  yield input;
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
