/**
 * The body of a Fetch request as the pipeline reads it: the runtime's own stream, except that a
 * body cut short fails with the 400 the Node adapter gives it (docs/fetch.md).
 */
import { bodyCutShort, HttpError } from '../../errors.js';

/**
 * Why the body failed, as the client will see it. A runtime errors the stream of a client that
 * went away (usually with an `AbortError`, often after aborting `request.signal` too); anything
 * else it errors with (a broken chunked framing, a failure in its own plumbing) equally means
 * the body cannot be read. Neither is the application's failure:
 * a 400, which the pipeline answers without logging. The runtime's reason is kept as the
 * `cause`. A stream that already fails with an HttpError (a body built by code in front of
 * the adapter) has said what to answer.
 */
function bodyFailure(reason: unknown): HttpError {
  if (reason instanceof HttpError) return reason;
  return bodyCutShort(reason);
}

/**
 * `source` read through, chunk for chunk, failing with a 400 `HttpError` where `source` fails.
 * It stays a `ReadableStream`, so a handler can still read it, proxy it or hand it to
 * `new Response()`, and whatever reads it gets the 400 the same way. Nothing is read ahead:
 * a chunk is taken from `source` only when asked for, and cancelling (a reader past the body
 * limit) cancels `source`.
 */
export function receivedBody(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  // Taken on the first read: a route that never reads the body never touches `source`, even
  // one that code in front of the adapter has read already.
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= readerOf(source);
        const step = await reader.read().catch((reason: unknown) => {
          throw bodyFailure(reason);
        });
        if (step.done) controller.close();
        else controller.enqueue(step.value);
      },
      cancel(reason) {
        if (reader !== undefined) return reader.cancel(reason);
        if (!source.locked) return source.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A reader of `source`; a body already read or locked (by code in front of the adapter) is the
 * application's wiring mistake, a logged 500 that says so, never the client's fault.
 */
function readerOf(source: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
  if (source.locked) {
    throw new Error(
      'The request body was read before the request reached the Fetch adapter: hand the adapter the Request unread (or request.clone())',
    );
  }
  return source.getReader();
}
