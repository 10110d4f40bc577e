/**
 * Whether a connection stays open after a response. A client may pipeline requests (RFC 9112
 * §9.3.2): send its next ones before the earlier answers arrive, and Node hands each to the
 * listener as soon as it is parsed, whatever the responses before it say; so the adapter
 * remembers, per connection, how many requests it received and whether the connection closes.
 * Kept in a WeakMap: one small object per connection, gone with its socket, one lookup per
 * request. Numbers, not the responses themselves: a response kept until the next request on its
 * connection would outlive young-generation collections, and everything it holds with it (GET /
 * 56,616 → 57,884 instructions). And a request body left unread decides whether the connection
 * can go on at all.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { http2Stream } from './transport.js';

interface Connection {
  /** How many requests were handed to the application on this connection. */
  received: number;
  /**
   * A response that closes the connection was written, or a request asked to close it: no
   * later request on it may be processed.
   */
  closing: boolean;
}

const connections = new WeakMap<Socket, Connection>();

/**
 * Records a request Node parsed on `socket`, answered on `res`: its place among the requests
 * received on the connection (1 for the first), or 0 when it must not reach the application.
 * RFC 9112 §9.6: a server that sent `close`, or received it, "MUST NOT process any further
 * requests received on that connection". Node would still hand them over (a client pipelining
 * behind a request whose answer closes the connection), and their handlers would run (a POST's
 * side effect included) for answers that can never be sent. Left unanswered, the request is
 * lost with the connection, which tells the client to retry it (RFC 9112 §9.3.2).
 */
export function admitRequest(socket: Socket, res: ServerResponse): number {
  // Node closes after a request that asked for it (`Connection: close`, HTTP/1.0 without
  // keep-alive): that request is the connection's last.
  const connection = connections.get(socket);
  if (connection === undefined) {
    connections.set(socket, { received: 1, closing: !res.shouldKeepAlive });
    return 1;
  }
  if (connection.closing) return 0;
  connection.closing = !res.shouldKeepAlive;
  return ++connection.received;
}

/**
 * Whether the request `place` (from {@link admitRequest}) is the last received on `socket` so
 * far: while the server drains, only its answer may say `Connection: close`. Said earlier, the
 * requests pipelined behind it, whose handlers already run, could never be answered.
 */
export function isLastRequest(socket: Socket, place: number): boolean {
  const received = connections.get(socket)?.received;
  return received === undefined || received === place;
}

/** Notes that a response telling the client the connection closes was written on `socket`. */
export function markClosing(socket: Socket): void {
  const connection = connections.get(socket);
  if (connection !== undefined) connection.closing = true;
}

/**
 * The largest unread request body that is read and thrown away after the response, keeping the
 * connection open, as plain Node does: a form or a JSON document a handler ignored costs a
 * keep-alive client its connection otherwise, and requests it pipelined behind it their answers.
 * Under the 16 KiB a request buffers by default, so the body never stops Node reading the
 * connection. Bodies larger or of unknown length close the connection instead: reading them
 * could cost as much as what the body limit (an early 413) was meant to spare.
 */
const DISCARDED_BODY_LIMIT = 16 * 1024 - 1;

/**
 * Whether the connection must close after the response because the request's body is still
 * (partly) unread (RFC 9112 §9.6 lets a server close; the client learns from `Connection:
 * close`). A small body of declared length is discarded instead (see DISCARDED_BODY_LIMIT).
 * A request without a body is not `complete` yet while its headers are being handled, which is
 * when a synchronous answer is written, so the framing headers decide.
 */
export function unreadBodyCloses(message: IncomingMessage, res: ServerResponse): boolean {
  if (message.complete) return false;
  const headers = message.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  if (length === undefined || length === '0') return false;
  // A client that expects 100-continue and was not told to go on may never send the body, and
  // its next request would be read as the rest of this one (RFC 9110 §10.1.1).
  if (Number(length) > DISCARDED_BODY_LIMIT || headers.expect !== undefined) return true;
  // Node throws away the body of a request nobody read; one a handler began reading and left
  // is resumed here, so the rest of it flows past too.
  res.once('finish', () => {
    if (!message.complete) message.resume();
  });
  return false;
}

/** RST_STREAM's NO_ERROR (RFC 9113 §7), without loading `node:http2` for HTTP/1. */
const NGHTTP2_NO_ERROR = 0;

/**
 * What closing after a response is on HTTP/2, where the connection carries other requests'
 * streams and has no Connection field (RFC 9113 §8.2.2; Node drops one with a warning).
 * A request body still coming once the response is complete is refused by resetting the stream
 * with NO_ERROR (RFC 9113 §8.1): the client stops sending, and the rest costs nothing. Node does
 * so itself only for a body nobody began reading, not for one left half-way (a 413 for crossing
 * the limit), whose client would otherwise wait on flow control for ever. While the server
 * drains (`drain`), the connection closes gracefully (GOAWAY, RFC 9113 §6.8): the streams it has
 * begun are answered, and the client opens new ones elsewhere.
 */
export function closeHttp2AfterResponse(
  message: IncomingMessage,
  res: ServerResponse,
  drain: boolean,
): void {
  const stream = http2Stream(res);
  if (stream === undefined) return;
  if (drain) stream.session?.close();
  if (stream.endAfterHeaders) return;
  // `finish`: the response went out whole, END_STREAM included.
  stream.once('finish', () => {
    if (!stream.closed && stream.state.remoteClose !== 1) stream.close(NGHTTP2_NO_ERROR);
    // A stream is released only once its request body was read to its end: what arrived and a
    // reader left unread (paused at the limit) is thrown away, as on HTTP/1.
    message.resume();
  });
}
