/**
 * Async iterables (Node streams, generators) as WHATWG `ReadableStream`s, pulled one chunk at
 * a time so a slow client slows the source instead of filling memory.
 */

import type { Logger } from '../../app/logger.js';
import { streamChunk } from '../../http/bytes.js';

const encoder = new TextEncoder();

type Chunk = Uint8Array | string;

/** Where a body that fails part-way is reported: the application's logger, for one request. */
export interface StreamFailureLog {
  readonly logger: Logger;
  readonly requestId: string | undefined;
}

/**
 * A `ReadableStream` that reads `source` only as fast as its consumer pulls. Cancelling it
 * (the client went away) runs `onCancel`, then ends the source's iteration, which closes a Node
 * stream or runs a generator's `finally`, and hands the promise of that release to `whileReleasing`.
 * A source that throws is logged through `failureLog`, with the same line the Node adapter writes
 * (docs/fetch.md), and errors the stream.
 */
export function toReadableStream(
  source: AsyncIterable<Uint8Array | string>,
  failureLog?: StreamFailureLog,
  onCancel?: () => void,
  whileReleasing?: (released: Promise<unknown>) => void,
): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  // A source released because the consumer cancelled may end a pending read with an error of
  // its own (a Node stream's premature close): nothing failed that anyone is waiting on.
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start() {
        iterator = source[Symbol.asyncIterator]();
      },
      pull(controller) {
        return pullChunk(
          controller,
          () => (iterator as AsyncIterator<Chunk>).next(),
          async (reason) => {
            await iterator?.return?.(reason);
          },
          cancelled ? undefined : failureLog,
          () => cancelled,
        );
      },
      async cancel(reason) {
        cancelled = true;
        onCancel?.();
        const released = Promise.resolve(iterator?.return?.(reason));
        whileReleasing?.(released);
        await released;
      },
    },
    // No read-ahead: a chunk is taken from the source only when the consumer asks for one.
    { highWaterMark: 0 },
  );
}

/**
 * A handler's `ReadableStream` as the bytes a runtime's Response takes: text chunks encoded as
 * UTF-8, as the Node adapter writes them (a runtime refuses a chunk that is no Uint8Array after
 * the status went out), and a failure logged like any other body's. Cancelling it cancels the
 * handler's stream, after `onCancel`, and hands the promise of that to `whileReleasing`.
 */
export function byteStream(
  body: ReadableStream<Uint8Array | string>,
  failureLog?: StreamFailureLog,
  onCancel?: () => void,
  whileReleasing?: (released: Promise<unknown>) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return pullChunk(
          controller,
          () => nextDefined(reader),
          (reason) => reader.cancel(reason),
          failureLog,
        );
      },
      cancel(reason) {
        onCancel?.();
        const released = reader.cancel(reason);
        whileReleasing?.(released);
        return released;
      },
    },
    { highWaterMark: 0 },
  );
}

/** The next read of `reader` that is not an `undefined` chunk, which the Node adapter skips too. */
async function nextDefined<T>(
  reader: ReadableStreamDefaultReader<T>,
): Promise<{ done: boolean; value?: T }> {
  for (;;) {
    const step = await reader.read();
    if (step.done || step.value !== undefined) return step;
  }
}

/**
 * Takes the next chunk with `next` into `controller`, text encoded as UTF-8. A failure is logged
 * through `failureLog`: the status went out with the first chunk, so nothing the client sees can
 * explain the cut, and the log is the only place the reason is kept.
 *
 * A chunk must be text or a `Uint8Array` (a `Buffer` is one), what the Node adapter writes
 * (docs/streams.md). Anything else (a number, an `ArrayBuffer`) fails the stream there, and so
 * here: logged, the source let go with `release` (a generator's `finally` runs), the stream
 * errored, rather than a runtime's own refusal that nobody logs.
 */
async function pullChunk(
  controller: ReadableStreamDefaultController<Uint8Array>,
  next: () => Promise<{ done?: boolean; value?: unknown }>,
  release: (reason: unknown) => Promise<unknown>,
  failureLog: StreamFailureLog | undefined,
  cancelled: () => boolean = () => false,
): Promise<void> {
  let step: { done?: boolean; value?: unknown };
  try {
    step = await next();
  } catch (error) {
    if (cancelled()) return;
    logFailure(failureLog, error);
    throw error;
  }
  if (step.done === true) {
    controller.close();
    return;
  }
  let chunk: Uint8Array | string;
  try {
    chunk = streamChunk(step.value);
  } catch (error) {
    logFailure(failureLog, error);
    await release(error).catch(() => undefined);
    throw error;
  }
  controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
}

function logFailure(failureLog: StreamFailureLog | undefined, error: unknown): void {
  failureLog?.logger.error('Response body stream failed', {
    requestId: failureLog.requestId,
    error,
  });
}
