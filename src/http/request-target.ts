/**
 * The absolute form of a request target (`http://example.com/users/1?x=2`), read as a server
 * reads it: RFC 9112 §3.2.2 has a server accept that form, route only its path and query, and
 * take its authority as the Host.
 */
import { type HeadersInit, MultiValueHeaders } from './headers.js';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * `target`'s path and query (still percent-encoded, the query still attached) and `headers`
 * with its authority as the Host when they have none; a target that is no absolute URL comes
 * back as it is. `headers` given as an instance are copied, never written into: a caller may
 * share one between requests.
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
  if (authority === '') return [path, headers];
  const withHost = new MultiValueHeaders(headers);
  if (!withHost.has('host')) withHost.set('Host', authority);
  return [path, withHost];
}
