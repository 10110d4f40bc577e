/**
 * What an encoder module provides (node-encoders.ts, web-encoders.ts) and the settings it takes:
 * types only, shared by the loader and the modules it loads.
 */
import type { FileBody } from '../../response.js';

/** The content codings restmachine compresses with (RFC 9110 §8.4.1). */
export type ContentCoding = 'br' | 'zstd' | 'gzip';

/** The chunks of a stream body, as the pipeline hands them over. */
export type Chunks = AsyncIterable<Uint8Array | string>;

/** Compression levels by coding; a coding left out uses its encoder's default. */
export interface CompressionLevels {
  /** zlib level, -1 (zlib's default, 6) to 9. */
  gzip?: number;
  /** Brotli quality, 0 to 11 (default 4: 11 is for files compressed once, not for responses). */
  br?: number;
  /** zstd level, 1 to 19 (default 3). */
  zstd?: number;
}

/** What one runtime can compress, and how. */
export interface Encoders {
  /** The codings this runtime has. */
  readonly codings: ReadonlySet<ContentCoding>;
  /** A buffered body compressed whole. */
  bytes(coding: ContentCoding, input: Uint8Array, levels: CompressionLevels): Promise<Uint8Array>;
  /**
   * A stream body compressed as it is produced: each chunk the producer yields is flushed, so
   * the client receives it without waiting for the next. Pulls the source only as fast as the
   * result is read; ending the result early ends the source's iteration.
   */
  stream(
    coding: ContentCoding,
    source: Chunks,
    levels: CompressionLevels,
  ): AsyncIterable<Uint8Array>;
  /** A file body's chunks, where the runtime has files; `undefined` where it has none. */
  readonly file: ((body: FileBody) => Promise<Chunks>) | undefined;
}
