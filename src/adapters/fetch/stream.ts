/**
 * Async iterables (Node streams, generators) as WHATWG `ReadableStream`s, pulled one chunk at
 * a time so a slow client slows the source instead of filling memory.
 */

const encoder = new TextEncoder();

/**
 * A `ReadableStream` that reads `source` only as fast as its consumer pulls. Cancelling it
 * (the client went away) ends the source's iteration, which closes a Node stream or runs a
 * generator's `finally`.
 */
export function toReadableStream(
  source: AsyncIterable<Uint8Array | string>,
): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start() {
        iterator = source[Symbol.asyncIterator]();
      },
      async pull(controller) {
        const { done, value } = await (iterator as AsyncIterator<Uint8Array | string>).next();
        if (done) controller.close();
        else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
      },
      async cancel(reason) {
        await iterator?.return?.(reason);
      },
    },
    // No read-ahead: a chunk is taken from the source only when the consumer asks for one.
    { highWaterMark: 0 },
  );
}
