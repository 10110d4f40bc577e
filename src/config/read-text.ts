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

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Bytes asked of the file per read when its size is not known in advance. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The text (UTF-8) of the file at `path`, or `undefined` when it holds more than `maxBytes`
 * bytes: at most `maxBytes + 1` bytes are read to find out, and a regular file whose size is
 * already over the limit is not read at all. Throws what `node:fs` throws (`ENOENT`,
 * `EISDIR`, ...). `maxBytes` may be `Infinity`, which reads to the end, however far.
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
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}
