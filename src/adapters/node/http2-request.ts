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
 * other than its Content-Length is malformed (RFC 9113 §8.1.1). A stream ended (END_STREAM) and
 * reset afterwards is not seen here: at its end its body was whole (docs/node.md, "HTTP/2").
 */
export function http2BodyCutShort(message: IncomingMessage, received: number): boolean {
  if (message.aborted) return true;
  const length = message.headers['content-length'];
  return length !== undefined && Number(length) !== received;
}

/** An HTTP/2 request's `:authority`: what Host is in HTTP/1.1 (RFC 9113 §8.3.1). */
export function http2Authority(message: IncomingMessage): string | undefined {
  const authority = message.headers[':authority'];
  return typeof authority === 'string' ? authority : undefined;
}

/**
 * The header fields of an HTTP/2 request as raw pairs, as the application reads them: without
 * its pseudo-header fields, which are not header fields (RFC 9113 §8.3) and which the Fetch
 * adapter never shows either, with its `:authority` as its one Host (RFC 9113 §8.3.1: a
 * request that has both carries the same authority twice; see {@link authorityConflict}), and
 * with its cookie crumbs as one Cookie field. HTTP/2 lets a client send each cookie in a field
 * of its own, for better compression, and RFC 9113 §8.2.3 has them joined with "; " before they
 * reach an application written for one Cookie line, as `headers.get('cookie')` is.
 */
export function http2Fields(message: IncomingMessage): string[] {
  const raw = message.rawHeaders;
  const authority = http2Authority(message);
  const pairs: string[] = [];
  let cookie: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    if (name.charCodeAt(0) === 58 /* : */) continue;
    if (authority !== undefined && name.length === 4 && name.toLowerCase() === 'host') continue;
    // HTTP/2 field names are lower case (RFC 9113 §8.2.1).
    if (name === 'cookie') cookie = cookie === undefined ? value : `${cookie}; ${value}`;
    else pairs.push(name, value);
  }
  if (cookie !== undefined) pairs.push('cookie', cookie);
  if (authority !== undefined) pairs.push('host', authority);
  return pairs;
}

/**
 * Whether an HTTP/2 request names two authorities: a Host other than its `:authority`. RFC 9113
 * §8.3.1 makes it malformed (a proxy and the application could each act for another host), once
 * the two are normalized (RFC 3986 §6.2): the host in any case, a scheme's default port or none.
 */
export function authorityConflict(message: IncomingMessage): boolean {
  const authority = http2Authority(message);
  const host = message.headers.host;
  if (authority === undefined || host === undefined) return false;
  const defaultPort = message.headers[':scheme'] === 'https' ? ':443' : ':80';
  return (
    withoutPort(host.toLowerCase(), defaultPort) !==
    withoutPort(authority.toLowerCase(), defaultPort)
  );
}

function withoutPort(authority: string, port: string): string {
  return authority.endsWith(port) ? authority.slice(0, -port.length) : authority;
}
