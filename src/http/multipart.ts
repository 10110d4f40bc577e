/**
 * `multipart/byteranges` (RFC 9110 §14.6): the body of a 206 that carries several ranges. Each
 * part has its own `Content-Type` and `Content-Range`; parts are separated by a boundary that
 * the `Content-Type` of the whole response announces.
 */
import { utf8Length } from './bytes.js';
import { type ByteRange, formatContentRange } from './range.js';

/** The layout of a multipart/byteranges body, without the bytes of the ranges themselves. */
export interface ByteRangesLayout {
  /** The response's Content-Type: `multipart/byteranges; boundary=...`. */
  contentType: string;
  /** The text before each part's bytes (delimiter and part headers), one per range. */
  heads: string[];
  /** The closing delimiter. */
  tail: string;
  /** The exact length of the whole body in bytes, so it can be sent with Content-Length. */
  length: number;
}

/**
 * A fresh boundary: 128 random bits. RFC 2046 §5.1.1 requires that the boundary never occurs in
 * the content; with content the client may control, only an unguessable boundary ensures that.
 */
export function newBoundary(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return `restmachine-${hex}`;
}

/**
 * Lays out a multipart/byteranges body for `ranges` of a representation of `size` bytes whose
 * own Content-Type is `partType` (omitted from the parts when unknown).
 *
 * @example
 * const layout = byteRangesLayout([{ start: 0, end: 1 }, { start: 5, end: 6 }], 10, 'text/plain');
 * layout.contentType; // 'multipart/byteranges; boundary=restmachine-...'
 */
export function byteRangesLayout(
  ranges: readonly ByteRange[],
  size: number,
  partType: string | undefined,
  boundary: string = newBoundary(),
): ByteRangesLayout {
  const typeLine = partType === undefined ? '' : `Content-Type: ${partType}\r\n`;
  const heads = ranges.map(
    (range, index) =>
      `${index === 0 ? '' : '\r\n'}--${boundary}\r\n${typeLine}` +
      `Content-Range: ${formatContentRange(range, size)}\r\n\r\n`,
  );
  const tail = `\r\n--${boundary}--\r\n`;
  // Part headers are ASCII unless a Content-Type carries obs-text: count UTF-8 bytes to be exact.
  let length = utf8Length(tail);
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i] as ByteRange;
    length += utf8Length(heads[i] as string) + range.end - range.start + 1;
  }
  return { contentType: `multipart/byteranges; boundary=${boundary}`, heads, tail, length };
}

/** Builds the whole multipart/byteranges body of in-memory `bytes`. */
export function buildByteRanges(
  bytes: Uint8Array,
  ranges: readonly ByteRange[],
  layout: ByteRangesLayout,
): Uint8Array {
  const encoder = new TextEncoder();
  const out = new Uint8Array(layout.length);
  let offset = 0;
  for (let i = 0; i < ranges.length; i++) {
    const head = encoder.encode(layout.heads[i] as string);
    out.set(head, offset);
    offset += head.length;
    const range = ranges[i] as ByteRange;
    out.set(bytes.subarray(range.start, range.end + 1), offset);
    offset += range.end - range.start + 1;
  }
  out.set(encoder.encode(layout.tail), offset);
  return out;
}
