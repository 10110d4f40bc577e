/**
 * What Cloudflare Workers need of a response the Fetch adapter makes, beyond the Fetch API: work
 * kept running after the client went away (`waitUntil`), a stream of known length sent with
 * its Content-Length (`FixedLengthStream`), and a body already encoded (`encodeBody`). Other
 * runtimes have none of them and get the response as the Fetch API makes it.
 */
import { unfinished } from '../../app/kernel.js';

/**
 * Where the runtime gave a `waitUntil` (Workers' `ctx`), what keeps a released body's cleanup
 * running after its client went away: the source's release, then the cleanup the pipeline
 * recorded for `body` (a generator's `finally`, docs/fetch.md). Workers end a request's work
 * when its response is cancelled, so without this a generator waiting on a timer or on I/O
 * would never resume, and its `finally` never run.
 */
export function keepRunning(
  context: unknown,
  body: object,
): ((released: Promise<unknown>) => void) | undefined {
  const waitUntil = waitUntilOf(context);
  if (waitUntil === undefined) return undefined;
  return (released) => {
    waitUntil(released.then(() => unfinished(body)).catch(() => undefined));
  };
}

/** The runtime's `waitUntil` (Workers' `ctx.waitUntil`), bound, if its context has one. */
export function waitUntilOf(context: unknown): ((work: Promise<unknown>) => void) | undefined {
  const waitUntil = (context as { waitUntil?: unknown } | null | undefined)?.waitUntil;
  if (typeof waitUntil !== 'function') return undefined;
  return (work) => waitUntil.call(context, work);
}

/** Workers' identity transform that declares its length: `new FixedLengthStream(length)`. */
type FixedLengthStreamClass = new (
  length: number,
) => { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };

/**
 * A stream body whose length the pipeline declared (a file, a range, a stream with its
 * handler's Content-Length), piped through Workers' `FixedLengthStream` where the runtime has
 * one: Workers send any other stream chunked, without the Content-Length a HEAD of the same
 * resource states. Elsewhere the runtime sends the header as it is.
 */
export function withKnownLength(
  body: ReadableStream<Uint8Array>,
  headers: Headers,
  waitUntil: ((work: Promise<unknown>) => void) | undefined,
): ReadableStream<Uint8Array> {
  const FixedLength = (globalThis as { FixedLengthStream?: FixedLengthStreamClass })
    .FixedLengthStream;
  const declared = headers.get('content-length');
  if (FixedLength === undefined || declared === null) return body;
  const { readable, writable } = new FixedLength(Number(declared));
  // The pipe is what cancels `body` when the client goes away: kept running (waitUntil) so
  // it sees that, and the body's own release runs (toBody), where Workers would otherwise end
  // the request's work with the response.
  const piping = body.pipeTo(writable).catch(() => undefined);
  waitUntil?.(piping);
  return readable;
}

/**
 * Response options as Cloudflare Workers extend them: `encodeBody: 'manual'` says the body is
 * already in its Content-Encoding.
 */
export interface RuntimeResponseInit extends ResponseInit {
  encodeBody?: 'automatic' | 'manual';
}
