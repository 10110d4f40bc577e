/**
 * Server-sent events: an async iterable of events as a `text/event-stream` response, in the
 * HTML standard's event-stream format (html.spec.whatwg.org, "Server-sent events", §9.2.5-6).
 * See docs/streams.md.
 */
import { Response, streamChunks } from '../response.js';
import { isTimerDelay, knownOptions, TIMER_DELAY } from './options.js';

/** One event; `data` that is not a string is sent as JSON. */
export interface ServerSentEvent {
  data?: unknown;
  /** The event type (`addEventListener(type, ...)` on the client); no CR or LF. */
  event?: string;
  /** The client's last event id, sent back as `Last-Event-ID` on reconnection; no CR, LF or NUL. */
  id?: string;
  /** The client's reconnection time in milliseconds: an integer from 0 to `Number.MAX_SAFE_INTEGER`. */
  retry?: number;
}

/** Options of `sse()`. */
export interface SseOptions {
  /**
   * Sends a comment line every `keepAlive` ms while no event comes, so proxies keep the
   * connection; above 0 and below 2^31 (about 24.8 days), what a timer holds.
   */
  keepAlive?: number;
}
const SSE_OPTIONS = Object.keys({ keepAlive: true } satisfies Record<keyof SseOptions, true>);

const LINE_BREAK = /\r\n|\r|\n/;
const KEEP_ALIVE = ': keep-alive\n\n';

function field(name: string, value: string, forbidden: RegExp): string {
  // A line break would start a new field, and the client ignores an id with NUL in it.
  if (forbidden.test(value))
    throw new TypeError(`An event's ${name} must not contain ${forbidden}`);
  return `${name}: ${value}\n`;
}

/**
 * One event in the event-stream format. Data is split at every CRLF, CR or LF into `data:`
 * lines, which the client joins with LF; the blank line ends the event.
 */
export function formatEvent(input: ServerSentEvent | string): string {
  const event: ServerSentEvent = typeof input === 'string' ? { data: input } : input;
  let out = '';
  if (event.event !== undefined) out += field('event', event.event, /[\r\n]/);
  if (event.id !== undefined) out += field('id', event.id, /[\r\n\0]/);
  if (event.retry !== undefined) {
    // The client reads a retry of ASCII digits only (HTML §9.2.6): a larger number would be
    // written as `1e+21`, which it ignores.
    if (!Number.isSafeInteger(event.retry) || event.retry < 0) {
      throw new TypeError(
        `An event's retry must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${event.retry}`,
      );
    }
    out += `retry: ${event.retry}\n`;
  }
  if (event.data !== undefined) {
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

/**
 * The body of an `sse()` response: the formatted events, with keep-alive comments between them.
 * The pipeline binds it to the request's signal, so the producer stops when the client goes.
 */
export class EventStream implements AsyncIterable<string> {
  readonly #source: AsyncIterable<ServerSentEvent | string>;
  readonly #keepAlive: number | undefined;

  constructor(source: AsyncIterable<ServerSentEvent | string>, keepAlive: number | undefined) {
    this.#source = source;
    this.#keepAlive = keepAlive;
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    // Through streamChunks, as a plain stream body: a feed that is a WHATWG or Node stream is let
    // go at once when the client leaves, even while it waits for an event that may never come
    // (docs/streams.md, "The request's signal"); its own iterator would wait for that event.
    const events = streamChunks(this.#source);
    const keepAlive = this.#keepAlive;
    const toChunk = (result: IteratorResult<ServerSentEvent | string>): IteratorResult<string> =>
      result.done
        ? { done: true, value: undefined }
        : { done: false, value: formatEvent(result.value) };
    // One read of the source at a time. A keep-alive comment that overtakes a read leaves it
    // pending, and the next call waits for that same read: the read's one handler hands its
    // outcome to whichever call waits now, or keeps it for the next call. A handler per call
    // would keep every call's closures (and timer) alive on an idle feed until its next event.
    let reading = false;
    let arrived: Promise<IteratorResult<string>> | undefined;
    let waiting: ((step: Promise<IteratorResult<string>>) => void) | undefined;
    const read = () => {
      const step = events.next().then(toChunk);
      reading = true;
      const settled = () => {
        reading = false;
        const waiter = waiting;
        waiting = undefined;
        if (waiter === undefined) arrived = step;
        else waiter(step);
      };
      step.then(settled, settled);
    };
    return {
      next: () => {
        const step = arrived;
        if (step !== undefined) {
          arrived = undefined;
          return step;
        }
        if (!reading) read();
        return new Promise<IteratorResult<string>>((resolve) => {
          const timer =
            keepAlive === undefined
              ? undefined
              : setTimeout(() => {
                  waiting = undefined;
                  resolve({ done: false, value: KEEP_ALIVE });
                }, keepAlive);
          waiting = (outcome) => {
            clearTimeout(timer);
            resolve(outcome);
          };
        });
      },
      // Settles once the source's own return() has, so what waits for the body to be let go
      // (a graceful shutdown counting `inFlight`) waits for the generator's `finally` too.
      return: () =>
        Promise.resolve(events.return?.()).then(
          (): IteratorResult<string> => ({ done: true, value: undefined }),
          (): IteratorResult<string> => ({ done: true, value: undefined }),
        ),
    };
  }
}

/**
 * A `text/event-stream` response of the events `source` yields (strings are data), sent as they
 * come. When the client goes away the source's `return()` runs, so a generator's `finally`
 * cleans up; pass the injected `signal` to whatever the generator waits on to stop it sooner.
 *
 * @example
 * app.get('/ticks', ({ signal }) =>
 *   sse(
 *     (async function* () {
 *       for (let i = 0; !signal.aborted; i++) {
 *         yield { event: 'tick', id: String(i), data: { i } };
 *         await new Promise((resolve) => setTimeout(resolve, 1000));
 *       }
 *     })(),
 *     { keepAlive: 15_000 },
 *   ),
 * );
 */
export function sse(
  source: AsyncIterable<ServerSentEvent | string>,
  options: SseOptions = {},
): Response {
  // sse() runs in a handler, where a wrong option is a 500: a TypeError, as for a wrong keepAlive.
  if (
    (typeof source !== 'object' && typeof source !== 'function') ||
    source === null ||
    typeof (source as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] !== 'function'
  ) {
    // Found here, not once the status is out (a callback `(send) => ...`, as other libraries take).
    throw new TypeError('sse() takes an async iterable of events, such as an async generator');
  }
  knownOptions('sse()', options, SSE_OPTIONS, TypeError);
  const { keepAlive } = options;
  if (keepAlive !== undefined && !isTimerDelay(keepAlive)) {
    throw new TypeError(`sse() keepAlive must be ${TIMER_DELAY}, got ${String(keepAlive)}`);
  }
  return new Response(200, new EventStream(source, keepAlive), {
    contentType: 'text/event-stream',
    // An event stream is live: a cache replaying it would replay stale events.
    headers: { 'Cache-Control': 'no-cache' },
  });
}
