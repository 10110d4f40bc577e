/**
 * The absolute form of a request target (`http://example.com/users/1?x=2`), read as a server
 * reads it: RFC 9112 §3.2.2 has a server accept that form, route only its path and query, and
 * take its authority as the Host.
 */
import { type HeadersInit, MultiValueHeaders } from './headers.js';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

// uri-host [":" port] (RFC 9110 §7.2, RFC 3986 §3.2.2): an IP literal in brackets, or a name or
// IPv4 address of unreserved characters, sub-delims and percent-escapes. Not empty: an "http"
// URI with an empty host is invalid, and its recipient must reject it (RFC 9110 §4.2.1). No
// userinfo either, which RFC 9110 §4.2.4 makes an error.
const AUTHORITY = /^(?:\[[0-9A-Za-z:.%_~-]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/;

/** Whether `authority` (a Host field, or an absolute target's authority) is a host and port. */
export function isValidAuthority(authority: string): boolean {
  return AUTHORITY.test(authority);
}

/**
 * The path and query as the client sent them. RFC 9112 §3.2.2: a server must accept the
 * absolute form (`GET http://host/path`), which proxies use; only its path and query are
 * routed. The path stays percent-encoded: the router decodes each segment once, and the
 * Request splits off the query.
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* / */) return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (authority === null) return target;
  const rest = target.slice(authority[0].length);
  return rest === '' || rest.charCodeAt(0) === 63 /* ? */ ? `/${rest}` : rest;
}

/**
 * The authority of an absolute-form request target (`example.com:8080` in
 * `GET http://example.com:8080/path`); undefined for any other form. RFC 9112 §3.2.2: the
 * server must then ignore the Host field and use this authority instead, so it is the Host
 * the application reads (a client, or a proxy that forwarded the target as it came, could
 * otherwise route by one host and have the application act for another).
 */
export function targetAuthority(target: string | undefined): string | undefined {
  if (target === undefined || target.charCodeAt(0) === 47 /* / */) return undefined;
  return ABSOLUTE_FORM.exec(target)?.[1];
}

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
  const authority = targetAuthority(target);
  if (authority === undefined) return [target, headers];
  if (!isValidAuthority(authority)) {
    // As the Node server answers such a target 400 (and fetch() refuses credentials in a URL),
    // rather than route it and put a password or a malformed host in the Host header.
    throw new TypeError(
      `${JSON.stringify(target)} has no valid authority (a host and port, without credentials: RFC 9110 §4.2.4, RFC 9112 §3.2.2)`,
    );
  }
  const withHost = new MultiValueHeaders(headers);
  if (!withHost.has('host')) withHost.set('Host', authority);
  return [originForm(target), withHost];
}
