/**
 * The absolute form of a request target (`http://example.com/users/1?x=2`), read as a server
 * reads it: RFC 9112 §3.2.2 has a server accept that form, route only its path and query, and
 * take its authority as the Host.
 */
import { type HeadersInit, MultiValueHeaders } from './headers.js';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

// What the Node server takes as a target's authority (RFC 3986 §3.2.2 and §3.2.3: a host, or an
// IP literal in brackets, and a port); no userinfo, which RFC 9110 §4.2.4 makes an error.
const AUTHORITY = /^(?:\[[0-9A-Za-z:.%_~-]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/;

/**
 * `target`'s path and query (still percent-encoded, the query still attached) and `headers`
 * with its authority as the Host when they have none; a target that is no absolute URL comes
 * back as it is. `headers` given as an instance are copied, never written into: a caller may
 * share one between requests. An authority that is no host and port (credentials, an empty or
 * malformed host) throws a TypeError, as the Node server answers such a target 400.
 *
 * @example
 * absoluteFormTarget('http://example.com/users/1?x=2', null);
 * // ['/users/1?x=2', MultiValueHeaders { host: ['example.com'] }]
 */
export function absoluteFormTarget(
  target: string,
  headers: HeadersInit | null | undefined,
): [string, HeadersInit | null | undefined] {
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute === null) return [target, headers];
  const rest = target.slice(absolute[0].length);
  const path = rest === '' || rest.charCodeAt(0) !== 47 /* / */ ? `/${rest}` : rest;
  const authority = absolute[1] as string;
  if (!AUTHORITY.test(authority)) {
    // As the Node server answers such a target 400 (and fetch() refuses credentials in a URL),
    // rather than route it and put a password or a malformed host in the Host header.
    throw new TypeError(
      `${JSON.stringify(target)} has no valid authority (a host and port, without credentials: RFC 9110 §4.2.4, RFC 9112 §3.2.2)`,
    );
  }
  const withHost = new MultiValueHeaders(headers);
  if (!withHost.has('host')) withHost.set('Host', authority);
  return [path, withHost];
}
