/**
 * The connection of a body that failed after its head was written (on HTTP/2, its stream): cut
 * once what was written before the failure has been flushed, so the client sees the body
 * incomplete but keeps every whole chunk it was sent.
 */
import type { ServerResponse } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
import { http2Stream } from './transport.js';
import { EMPTY } from './write-chunks.js';

/**
 * How long the connection (on HTTP/2, the stream) of a failed body may take to pass on what was
 * written before the failure, in milliseconds, before it is destroyed (reset) anyway.
 */
const FLUSH_GRACE = 1_000;

/** Milliseconds between the last bytes of a failed close-delimited body and the reset. */
const RESET_DELAY = 50;

/**
 * Cuts a response whose body failed after its head was written, once what was written before
 * the failure has left: on HTTP/1 its connection closes (see {@link cutAfterFlush}), on HTTP/2
 * only its stream is reset (see {@link resetAfterFlush}), and the connection serves its other
 * streams on.
 */
export function cutResponse(res: ServerResponse, hasLength: boolean): void {
  const stream = http2Stream(res);
  if (stream === undefined) cutAfterFlush(res, hasLength);
  else resetAfterFlush(stream);
}

/**
 * Ends the HTTP/1 connection of a response whose body failed. The head is out, so the status
 * cannot change; what tells the client the body is incomplete is the connection closing before the
 * body's end: a chunked body without its last chunk (RFC 9112 §7.1), a body shorter than its
 * Content-Length (RFC 9112 §6.3). So the response itself is never ended.
 *
 * The chunks written before the failure are whole (whole chunk frames, in a chunked body) and
 * belong to the client: an event stream's events fully produced before the failure must arrive
 * (docs/streams.md). Destroying the socket would throw away those still queued (in the socket,
 * or held back by Node's cork until the next tick), so its sending side is closed instead:
 * `end()` writes what is queued, then the FIN. The receiving side stays open until the client
 * closes too; closing it at once (as `destroySoon()` does) turns any bytes the client sent and
 * we did not read into a reset, which can make the client drop what it had not read yet
 * (RFC 9112 §9.6 closes in stages for this reason).
 *
 * A client that does not read, or never closes its side, would hold the connection forever;
 * after `FLUSH_GRACE` it is destroyed whatever is left. A client that already went away has
 * nothing left to flush: its connection is gone, or `end()` fails on it and destroys it.
 *
 * A body with neither chunks nor a length (an HTTP/1.0 client's) ends where the connection
 * closes (RFC 9112 §6.3), so a closing in stages would pass for its end: the connection is reset
 * instead, which a client reads as a failure. Not at once: once what was written left the
 * process, RESET_DELAY later, since a reset that reaches a client with data still unread reads
 * as a plain end on Linux.
 */
export function cutAfterFlush(res: ServerResponse, hasLength: boolean): void {
  if (res.destroyed) return;
  const socket = res.socket;
  if (socket === null) {
    // The response to a pipelined request waits for those before it and queues its bytes until
    // it is given the connection, which is when this event fires; they are written right after.
    res.once('socket', () => process.nextTick(cutAfterFlush, res, hasLength));
    return;
  }
  const timer = setTimeout(() => socket.destroy(), FLUSH_GRACE);
  socket.once('close', () => clearTimeout(timer));
  if (res.chunkedEncoding || hasLength) socket.end();
  // An empty write's callback runs once everything written before it has left.
  else socket.write(EMPTY, () => setTimeout(() => socket.resetAndDestroy(), RESET_DELAY));
}

/**
 * RST_STREAM's INTERNAL_ERROR (RFC 9113 §7): the server failed, so the client must not take what
 * it received as the whole response. Node's own constant lives in `node:http2`, which the adapter
 * does not load for HTTP/1.
 */
const NGHTTP2_INTERNAL_ERROR = 2;

/**
 * Ends the HTTP/2 stream of a response whose body failed. A stream is ended by END_STREAM, which
 * would pass the body for whole, so it is reset instead (RFC 9113 §8.1: a response is complete
 * only with END_STREAM), and only it: the connection carries other requests' streams. Not at once:
 * a reset drops the DATA still queued, and the chunks written before the failure belong to the
 * client (docs/streams.md), so it follows an empty write, whose callback runs once those have been
 * handed on. A client that stops reading holds that write back; after `FLUSH_GRACE` the stream
 * is reset whatever is left.
 */
export function resetAfterFlush(stream: ServerHttp2Stream): void {
  if (stream.destroyed) return;
  const reset = (): void => stream.close(NGHTTP2_INTERNAL_ERROR);
  const timer = setTimeout(reset, FLUSH_GRACE);
  stream.once('close', () => clearTimeout(timer));
  stream.write(EMPTY, reset);
}

/**
 * Gives up on a response nothing more can be written on (its head is out, or even a plain 500 was
 * refused): on HTTP/1 its connection is destroyed; on HTTP/2 only its stream is reset, with
 * INTERNAL_ERROR, so the client takes nothing it received for a whole response (RFC 9113 §8.1)
 * and the connection serves its other streams on.
 */
export function abandonResponse(res: ServerResponse): void {
  const stream = http2Stream(res);
  if (stream === undefined) res.destroy();
  else stream.close(NGHTTP2_INTERNAL_ERROR);
}
