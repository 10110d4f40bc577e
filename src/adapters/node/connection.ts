/**
 * What the adapter remembers about each connection, for pipelining (RFC 9112 §9.3.2): a client
 * may send its next requests before the earlier answers arrive, and Node hands each one to the
 * listener as soon as it is parsed, whatever the responses before it say. Kept in a WeakSet:
 * gone with its socket, one lookup per request.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections on which a response that closes them was written, or a request asked to close
 * them: no later request on them may be processed.
 */
const closing = new WeakSet<Socket>();

/**
 * Records a request Node parsed on `socket`, answered on `res`; false when it must not reach
 * the application. RFC 9112 §9.6: a server that sent `close`, or received it, "MUST NOT process
 * any further requests received on that connection". Node would still hand them over (a client
 * pipelining behind a request whose answer closes the connection), and their handlers would run
 * (a POST's side effect included) for answers that can never be sent. Left unanswered, the
 * request is lost with the connection, which tells the client to retry it (RFC 9112 §9.3.2).
 */
export function admitRequest(socket: Socket, res: ServerResponse): boolean {
  if (closing.has(socket)) return false;
  // Node closes after a request that asked for it (`Connection: close`, HTTP/1.0 without
  // keep-alive): that request is the connection's last.
  if (!res.shouldKeepAlive) closing.add(socket);
  return true;
}

/** Notes that a response telling the client the connection closes was written on `socket`. */
export function markClosing(socket: Socket): void {
  closing.add(socket);
}
