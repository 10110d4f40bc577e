/**
 * Reading a file's text with a bound: every file the loader reads (the configuration, the
 * schema, `${file:...}`) goes through here, so none of them can take more memory than its limit.
 *
 * The size `stat` reports is no bound: a character device (`/dev/zero`), a FIFO or a `/proc`
 * file reports 0 and yields as many bytes as it likes, so `readFileSync` on `/dev/zero` never
 * ends and `/dev/full` fails with `bad_alloc`. Such files are still read, not refused: process
 * substitution (`restmachine-config dump <(generate)`) is a pipe and `/proc/sys/...` files are
 * real settings. What stops the reading is the count of bytes actually read.
 */

import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * Where a relative `path` was looked for, for a message saying it is missing: it is read from
 * the working directory, which is not always the folder of the script that named it.
 */
export function lookedFor(path: string): string {
  if (isAbsolute(path)) return '';
  return ` (looked for ${JSON.stringify(resolve(path))}: a relative path is read from the working directory)`;
}

/** Bytes asked of the file per read when its size is not known in advance. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A file whose bytes are not text in an encoding YAML 1.2 §5.2 asks for: UTF-8, or UTF-16
 * told apart by its byte order mark. Bytes that are not UTF-8 are not replaced with U+FFFD: a
 * Latin-1 file or a binary key would come back silently altered.
 */
export class NotTextError extends Error {
  constructor(
    /** Why, without any of the file's content (`${file:...}` values are secret). */
    readonly reason: string,
    /** 1-based line and column of the first bad byte, counted in the text before it. */
    readonly line: number,
    readonly column: number,
  ) {
    super(reason);
    this.name = 'NotTextError';
  }
}

/**
 * The text of a file's bytes: UTF-16 (little or big endian) when they start with its byte
 * order mark, which is dropped, else UTF-8 (a UTF-8 byte order mark stays; each reader drops
 * it: source-text.ts, interpolation/files.ts). Throws {@link NotTextError} when they are not valid in that encoding.
 */
export function decodeText(bytes: Buffer): string {
  const utf16 =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : undefined;
  if (utf16 !== undefined) {
    try {
      return new TextDecoder(utf16, { fatal: true }).decode(bytes);
    } catch {
      throw new NotTextError(
        `is not valid ${utf16 === 'utf-16le' ? 'UTF-16LE' : 'UTF-16BE'} text (it starts with that byte order mark)`,
        1,
        1,
      );
    }
  }
  if (isUtf8(bytes)) return bytes.toString('utf8');
  // Where the first bad byte is, read off the runtime's own decoding, which puts U+FFFD there.
  const decoded = bytes.toString('utf8');
  const before = decoded.slice(0, decoded.indexOf('\uFFFD'));
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  const column = before.length - lineStart + 1;
  throw new NotTextError(
    'is not UTF-8 text (save it as UTF-8, or as UTF-16 with a byte order mark)',
    line,
    column,
  );
}

/**
 * The text (see {@link decodeText}) of the file at `path`, or `undefined` when it holds more than `maxBytes`
 * bytes: at most `maxBytes + 1` bytes are read to find out, and a regular file whose size is
 * already over the limit is not read at all. Throws what `node:fs` throws (`ENOENT`,
 * `EISDIR`, ...), and {@link NotTextError} for bytes that are not text. `maxBytes` may be `Infinity`, which reads to the end, however far.
 */
export function readTextUpTo(path: string, maxBytes: number): string | undefined {
  const descriptor = openSync(path, 'r');
  try {
    const stats = fstatSync(descriptor);
    if (stats.isFile() && stats.size > maxBytes) return undefined;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One byte past the limit is enough to know the file is over it.
      const wanted = Math.min(CHUNK_BYTES, maxBytes + 1 - total);
      const chunk = Buffer.allocUnsafe(wanted);
      const read = readSync(descriptor, chunk, 0, wanted, null);
      if (read === 0) break;
      chunks.push(read === wanted ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) return undefined;
    }
    return decodeText(Buffer.concat(chunks, total));
  } finally {
    closeSync(descriptor);
  }
}
