/**
 * The request's signal on the way out (docs/streams.md): `requestTimeout` answers 503 when the
 * pipeline has not produced a response in time, and a stream body stops being produced once the
 * signal fires, whether the client went away or the time ran out.
 */
import { HttpError, libraryAnswer } from '../../errors.js';
import { discardBody } from '../../http/bytes.js';
import type { ReadableStreamLike } from '../../request.js';
import { isStream, type Response, streamChunks } from '../../response.js';
import { newRequestState } from '../inject/request-state.js';
import { abortRequest, requestSignal } from '../inject/signal.js';
import { isPending } from '../thenable.js';
import type { Exchange } from './exchange.js';

type Chunk = Uint8Array | string;
const DONE: IteratorResult<Chunk> = Object.freeze({ done: true, value: undefined });

// Code of a request that goes on after its answer: a stopped source's cleanup (a generator's
// `finally`, keyed by the body that stopped it) and a handler still running when its timeout
// was answered (keyed by that answer).
const UNFINISHED = new WeakMap<object, Promise<unknown>>();

/**
 * What of the request's own code still runs after `answer` (a response, or the stream body an
 * adapter iterated) went out, if anything: an adapter that counts requests until their code has
 * finished (`NodeAdapter.inFlight`, a streamed Lambda invocation) waits for it. Never rejects.
 */
export function unfinished(answer: object): Promise<unknown> | undefined {
  return UNFINISHED.get(answer);
}

/**
 * Stops iterating `body` when `signal` fires: the pending read ends at once, and the source is
 * let go at once too, even while it waits for a chunk (a stream cancelled or destroyed), or at
 * its next step (a generator's `finally`). `onEnd` runs once,
 * however the iteration ends.
 */
export function stopOnAbort(
  body: AsyncIterable<Chunk> | ReadableStreamLike,
  signal: AbortSignal,
  onEnd?: () => void,
): AsyncIterable<Chunk> {
  let started = false;
  const stoppable: AsyncIterable<Chunk> & { destroy(): void } = {
    // A body nobody will iterate (its client left before its head was written) lets go of its
    // source, as discardBody() lets go of any stream; one being iterated stops by its signal.
    destroy() {
      if (started) return;
      started = true;
      discardBody(body);
      onEnd?.();
    },
    [Symbol.asyncIterator](): AsyncIterator<Chunk> {
      started = true;
      // Through streamChunks: stopping releases a stream at once, even while a read waits.
      let source: AsyncIterableIterator<Chunk>;
      try {
        source = streamChunks(body);
      } catch (error) {
        // A source that cannot start has ended too: its deadline's timer goes with it.
        onEnd?.();
        throw error;
      }
      let ended = false;
      // Stopped by the signal while someone still waits for the body (a timeout, not a client
      // gone): the iteration fails with its reason, so the adapter cuts the connection and the
      // client sees the body incomplete instead of taking the part sent for the whole.
      let failed = false;
      let wake: ((result: IteratorResult<Chunk>) => void) | undefined;
      const stop = () => {
        failed = !ended && !isClientGone(signal.reason);
        end();
      };
      const end = () => {
        if (ended) return;
        ended = true;
        signal.removeEventListener('abort', stop);
        wake?.(DONE);
        // Not awaited: a generator suspended in an `await` finishes that first, and the response
        // must not wait for it. What counts the request until its code is done does.
        // A body stoppable itself (bound to the signal once already, then given a deadline)
        // records its own source's cleanup when it ends: that is what to wait for.
        const cleanup = Promise.resolve(source.return?.(signal.reason))
          .then(() => UNFINISHED.get(body))
          .catch(() => undefined);
        UNFINISHED.set(stoppable, cleanup);
        onEnd?.();
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop);
      const read = (): Promise<IteratorResult<Chunk>> => source.next();
      return {
        next: () => {
          if (ended) return failed ? Promise.reject(signal.reason) : Promise.resolve(DONE);
          const stopped = new Promise<IteratorResult<Chunk>>((resolve) => {
            wake = resolve;
          });
          let reading: Promise<IteratorResult<Chunk>>;
          try {
            reading = read();
          } catch (error) {
            // A `next()` that throws rather than rejects ends the iteration as a rejection does.
            end();
            return Promise.reject(error);
          }
          return Promise.race([reading, stopped]).then(
            (result) => {
              if (result.done) end();
              if (failed) throw signal.reason;
              return ended ? DONE : result;
            },
            (error: unknown) => {
              end();
              throw error;
            },
          );
        },
        return: () => {
          end();
          return Promise.resolve(DONE);
        },
      };
    },
  };
  return stoppable;
}

/** Whether `reason` says the client went away (the signal's AbortError): nobody is reading. */
export function isClientGone(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === 'AbortError';
}

/** Binds a stream body to the request's signal; anything else goes out as it is. */
export function guardStream(exchange: Exchange, response: Response, onEnd?: () => void): Response {
  const { body } = response;
  const state = exchange.state;
  if (state === undefined || !isStream(body)) {
    onEnd?.();
    return response;
  }
  response.body = stopOnAbort(body, requestSignal(state), onEnd);
  return response;
}

/** Lets go of a body nobody will send: a generator's `finally` runs, a stream is cancelled. */
function abandon(response: Response): void {
  const body = response.body;
  if (!isStream(body)) return;
  // An iteration that starts on a fired signal ends the source at once.
  stopOnAbort(body, AbortSignal.abort())[Symbol.asyncIterator]();
}

function timeoutReason(timeout: number): DOMException {
  return new DOMException(`The request took longer than ${timeout} ms`, 'TimeoutError');
}

/**
 * A response ready at once whose stream body is still to be sent: from now, the body has
 * `timeout` ms, and is cut short as the pending answers' bodies are when the timer expires.
 * Anything else goes out as it is, with no timer.
 */
export function withStreamDeadline(
  exchange: Exchange,
  response: Response,
  timeout: number,
): Response {
  const body = response.body;
  if (!isStream(body)) return response;
  exchange.state ??= newRequestState(exchange.request);
  const state = exchange.state;
  const timer = setTimeout(() => abortRequest(state, timeoutReason(timeout)), timeout);
  response.body = stopOnAbort(body, requestSignal(state), () => clearTimeout(timer));
  return response;
}

/**
 * Gives `pending` `timeout` ms; then the request's signal fires and `onTimeout` answers instead
 * (a 503 through the error path), and the late response is let go. The timer keeps running
 * while a stream body is sent, which it cuts short when it expires. An `onTimeout` answer that is
 * itself not ready within another `timeout` ms (an error handler waiting on what the route was
 * stuck on) gives way to `fallback`'s, which involves no application code.
 */
export function withDeadline(
  exchange: Exchange,
  pending: Promise<Response>,
  timeout: number,
  onTimeout: (error: HttpError) => Response | Promise<Response>,
  fallback: (error: HttpError) => Response | Promise<Response>,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let expired = false;
    let answered = false;
    const timer = setTimeout(() => {
      expired = true;
      const reason = timeoutReason(timeout);
      if (exchange.state !== undefined) abortRequest(exchange.state, reason);
      if (answered) return;
      // The 503 is the library's answer, not logged as a failure; the operator still needs to
      // know which requests are too slow.
      const { host, request } = exchange;
      host.logger.warn(`Request timed out: no response within ${timeout} ms; answering 503`, {
        requestId: request.requestId,
        method: request.method,
        path: request.path,
      });
      const error = libraryAnswer(new HttpError(503, reason.message));
      const handler = pending.then(
        () => undefined,
        () => undefined,
      );
      const answer = inTime(exchange, onTimeout(error), timeout, () => fallback(error));
      resolve(
        Promise.resolve(answer).then((response) => {
          UNFINISHED.set(response, handler);
          return response;
        }),
      );
    }, timeout);
    pending.then(
      (response) => {
        if (expired) return abandon(response);
        answered = true;
        resolve(guardStream(exchange, response, () => clearTimeout(timer)));
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) reject(error);
      },
    );
  });
}

/**
 * `answer` if it is ready within `timeout` ms, else `fallback()`'s answer, with an `error` line
 * saying so; an answer that comes later is let go.
 */
function inTime(
  exchange: Exchange,
  answer: Response | Promise<Response>,
  timeout: number,
  fallback: () => Response | Promise<Response>,
): Response | Promise<Response> {
  if (!isPending(answer)) return answer;
  return new Promise<Response>((resolve) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      const { host, request } = exchange;
      host.logger.error(
        `The error handler did not answer the timeout's 503 within ${timeout} ms; sending the built-in 503`,
        { requestId: request.requestId, method: request.method, path: request.path },
      );
      resolve(fallback());
    }, timeout);
    answer.then(
      (response) => {
        if (late) return abandon(response);
        clearTimeout(timer);
        resolve(response);
      },
      () => {
        // answerError never rejects; should it, the fallback answers at its time.
      },
    );
  });
}
