/**
 * What the adapter remembers about each connection, for pipelining (RFC 9112 §9.3.2): a client
 * may send its next requests before the earlier answers arrive, and Node hands each one to the
 * listener as soon as it is parsed, whatever the responses before it say. Kept in a WeakMap:
 * one small object per connection, gone with its socket, and one lookup per request.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Connection {
  /** The response to the last request handed to the application on this connection. */
  last: ServerResponse;
  /**
   * A response that closes the connection was written, or a request asked to close it: no
   * later request on it may be processed.
   */
  closing: boolean;
}

const connections = new WeakMap<Socket, Connection>();

/**
 * Records a request Node parsed on `socket`, answered on `res`; false when it must not reach
 * the application. RFC 9112 §9.6: a server that sent `close`, or received it, "MUST NOT process
 * any further requests received on that connection". Node would still hand them over (a client
 * pipelining behind a request whose answer closes the connection), and their handlers would run
 * (a POST's side effect included) for answers that can never be sent. Left unanswered, the
 * request is lost with the connection, which tells the client to retry it (RFC 9112 §9.3.2).
 */
export function admitRequest(socket: Socket, res: ServerResponse): boolean {
  // Node closes after a request that asked for it (`Connection: close`, HTTP/1.0 without
  // keep-alive): that request is the connection's last.
  const connection = connections.get(socket);
  if (connection === undefined) {
    connections.set(socket, { last: res, closing: !res.shouldKeepAlive });
    return true;
  }
  if (connection.closing) return false;
  connection.last = res;
  connection.closing = !res.shouldKeepAlive;
  return true;
}

/**
 * Whether `res` answers the last request received on `socket` so far: while the server drains,
 * only that one may say `Connection: close`. Said earlier, the requests pipelined behind it,
 * whose handlers already run, could never be answered.
 */
export function isLastRequest(socket: Socket, res: ServerResponse): boolean {
  const last = connections.get(socket)?.last;
  return last === undefined || last === res;
}

/** Notes that a response telling the client the connection closes was written on `socket`. */
export function markClosing(socket: Socket): void {
  const connection = connections.get(socket);
  if (connection !== undefined) connection.closing = true;
}
