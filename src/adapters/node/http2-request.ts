/**
 * What an HTTP/2 request (a `node:http2` server given the adapter's listener, docs/node.md)
 * needs beyond what an HTTP/1 request does. Node hands it over through its compatibility API,
 * shaped as HTTP/1's `IncomingMessage` but framed by HTTP/2, so a few things HTTP/1's parser
 * guarantees are checked here. Only requests with `httpVersionMajor >= 2` come here: HTTP/1's
 * path pays nothing.
 */
import type { IncomingMessage } from 'node:http';

/**
 * Whether a request body whose end was seen is not the whole body. Node's HTTP/1 parser ends a
 * body only at its framing's end; its HTTP/2 compatibility API ends it with a plain `end` also
 * when the client reset the stream mid-upload (after `aborted`). And a body whose DATA add up to
 * other than its Content-Length is malformed (RFC 9113 §8.1.1).
 */
export function http2BodyCutShort(message: IncomingMessage, received: number): boolean {
  if (message.aborted) return true;
  const length = message.headers['content-length'];
  return length !== undefined && Number(length) !== received;
}
