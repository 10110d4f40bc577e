/**
 * What carries a response, asked about in one place (and cut in one: cut-connection.ts). On
 * HTTP/1 a response has its connection to itself. On HTTP/2 (a `node:http2` server given the
 * adapter's listener, docs/node.md) it is one stream of a connection that other requests share,
 * and Node's compatibility objects do not tell that the way HTTP/1's do: an Http2ServerResponse
 * has no `destroyed`, reports `writableFinished` once its stream closed, reset or not, and its
 * `socket` is a stand-in that refuses to be written or ended. So the adapter asks its stream.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse, ServerHttp2Stream } from 'node:http2';

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
 * Whether `res`, once closed, closed before it was complete: its client went away, or it was
 * cut. On HTTP/2 its stream says: one closed while its writable side was still open is marked
 * `aborted`, whoever reset it; an Http2ServerResponse reports `writableFinished` either way.
 */
export function closedEarly(res: ServerResponse): boolean {
  const stream = http2Stream(res);
  return stream === undefined ? !res.writableFinished : stream.aborted;
}
