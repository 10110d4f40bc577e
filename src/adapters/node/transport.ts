/**
 * What carries a response, asked about and cut in one place. On HTTP/1 a response has its
 * connection to itself. On HTTP/2 (a `node:http2` server given the adapter's listener,
 * docs/node.md) it is one stream of a connection that other requests share, and Node's
 * compatibility objects do not tell that the way HTTP/1's do: an Http2ServerResponse has no
 * `destroyed`, reports `writableFinished` once its stream closed, reset or not, and its `socket`
 * is a stand-in that refuses to be written or ended. So the adapter asks its stream instead.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse, ServerHttp2Stream } from 'node:http2';
import { cutAfterFlush, resetAfterFlush } from './cut-connection.js';

/** The HTTP/2 stream `res` goes out on; undefined for an HTTP/1 response. */
export function http2Stream(res: ServerResponse): ServerHttp2Stream | undefined {
  return (res as unknown as Partial<Http2ServerResponse>).stream;
}

/** Whether what carries `res` is gone: its connection, or on HTTP/2 its stream. */
export function isGone(res: ServerResponse): boolean {
  // Only an Http2ServerResponse lacks `destroyed`: an HTTP/1 response pays one read.
  const destroyed: boolean | undefined = res.destroyed;
  return destroyed ?? (http2Stream(res) as ServerHttp2Stream).destroyed;
}

/**
 * Cuts a response whose body failed after its head was written, once what was written before
 * the failure has left: on HTTP/1 its connection closes (see {@link cutAfterFlush}), on HTTP/2
 * only its stream is reset, and the connection serves its other streams on.
 */
export function cutResponse(res: ServerResponse, hasLength: boolean): void {
  const stream = http2Stream(res);
  if (stream === undefined) cutAfterFlush(res, hasLength);
  else resetAfterFlush(stream);
}
