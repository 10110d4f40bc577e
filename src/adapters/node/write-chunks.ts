/**
 * Writing on a `ServerResponse` at the pace the client reads: every chunk of a source, waiting
 * for `drain` when the response's buffer is full, and stopping when the client goes away.
 */
import type { ServerResponse } from 'node:http';
import { streamChunk } from '../../http/bytes.js';
import { isGone } from './transport.js';

/**
 * Zero bytes, for an empty write: it sends what is queued before it, and its callback runs once
 * that has left.
 */
export const EMPTY: Uint8Array = new Uint8Array(0);

/** Resolves true once every chunk was written, false when the client went away first. */
export async function writeChunks(
  res: ServerResponse,
  source: AsyncIterable<Uint8Array | string>,
): Promise<boolean> {
  // Leaving the loop early calls the source's `return()`.
  for await (const chunk of source) {
    if (isGone(res)) return false;
    // A handler's chunk of another kind (an Int16Array) fails the stream with the message it
    // gets on every adapter (docs/streams.md), not with Node's own.
    if (!res.write(streamChunk(chunk)) && !(await drained(res))) return false;
  }
  return !isGone(res);
}

/** Resolves true when `res` takes more again, false when its connection closed first. */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    // A response whose stream or connection is gone emits no `close` again.
    if (isGone(res)) {
      resolve(false);
      return;
    }
    const onDrain = (): void => {
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      res.off('drain', onDrain);
      resolve(false);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
