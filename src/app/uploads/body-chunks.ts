/**
 * A request body fed to the multipart parser as Buffers, whatever form it arrived in: a body
 * already in memory in slices, a stream chunk by chunk.
 */
import type { RequestBody } from '../../request.js';

const SLICE = 64 * 1024;

/** A request body as Buffers, whatever form it has; leaving early leaves the rest unread. */
export async function* bodyChunks(body: RequestBody | undefined): AsyncGenerator<Buffer> {
  if (body === undefined) return;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    // A body already in memory (Lambda, in-process) goes in slices, so a limit stops the work
    // where it is crossed rather than after the parser saw everything.
    const bytes = typeof body === 'string' ? Buffer.from(body) : toBuffer(body);
    for (let offset = 0; offset < bytes.length; offset += SLICE) {
      yield bytes.subarray(offset, offset + SLICE);
    }
  } else if (Symbol.asyncIterator in body) {
    for await (const chunk of body) {
      yield typeof chunk === 'string' ? Buffer.from(chunk) : toBuffer(chunk);
    }
  } else {
    const reader = body.getReader();
    let done = false;
    try {
      while (!done) {
        const next = await reader.read();
        done = next.done;
        if (next.value !== undefined) yield toBuffer(next.value);
      }
    } finally {
      if (!done) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}
