/**
 * What an HTTP/2 response head (a `node:http2` server given the adapter's listener, docs/node.md)
 * carries of the fields a handler set. HTTP/1 sends them all; Node's HTTP/2 refuses a head with a
 * field HTTP/2 forbids or with two values of a field it sends once, by throwing from `writeHead`.
 * Only responses on HTTP/2 come here: HTTP/1's path pays nothing.
 */
import type { Logger } from '../../app/logger.js';
import { MultiValueHeaders } from '../../http/headers.js';
import type { Response } from '../../response.js';

/**
 * Connection-specific fields (RFC 9113 §8.2.2): HTTP/2 must not send them (a response carrying
 * one is malformed), and they have nothing to say there: HTTP/2 has its own framing, keeps its
 * connection open, and is upgraded to by no one. `te` is one too unless it is "trailers" alone.
 */
const CONNECTION_SPECIFIC = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** The fields Node's HTTP/2 sends with one value only, refusing a head that gives two. */
const SINGLE_VALUE = new Set([
  'access-control-allow-credentials',
  'access-control-max-age',
  'access-control-request-method',
  'age',
  'authorization',
  'content-encoding',
  'content-language',
  'content-length',
  'content-location',
  'content-md5',
  'content-range',
  'content-type',
  'date',
  'dnt',
  'etag',
  'expires',
  'from',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'range',
  'referer',
  'retry-after',
  'tk',
  'upgrade-insecure-requests',
  'user-agent',
  'x-content-type-options',
]);

/**
 * What shaping an HTTP/2 head needs from its adapter: the logger, and the route and field pairs
 * already warned about, so a route that always sends a field twice warns once.
 */
export interface Http2HeadContext {
  readonly logger: Logger;
  readonly warnedFields: Set<string>;
}

/**
 * The head of `response` for HTTP/2, as the flat `[name, value, ...]` list `writeHead` takes:
 * without connection-specific fields, and with only the first value of a single-value field
 * given more than once, with a warning. HTTP/1 would send both lines and its client keep one;
 * failing the handler's answer for it would make a response that works on HTTP/1 a 500 on HTTP/2.
 */
export function http2HeadFields(response: Response, context: Http2HeadContext): string[] {
  const flat: string[] = [];
  MultiValueHeaders.forEachField(response.headers, (_name, key, values) => {
    if (CONNECTION_SPECIFIC.has(key)) return;
    // RFC 9113 §8.2.2: TE may be sent, with "trailers" as its only value.
    if (key === 'te') {
      if (values.length === 1 && values[0] === 'trailers') flat.push(key, 'trailers');
      return;
    }
    if (values.length > 1 && SINGLE_VALUE.has(key)) {
      warnOnce(response, key, context);
      flat.push(key, values[0] as string);
      return;
    }
    for (const value of values) flat.push(key, value);
  });
  return flat;
}

function warnOnce(response: Response, field: string, context: Http2HeadContext): void {
  const request = response.request;
  const route = request?.routeTemplate;
  const key = `${route ?? ''} ${field}`;
  if (context.warnedFields.has(key)) return;
  context.warnedFields.add(key);
  context.logger.warn(
    'A field HTTP/2 sends once was given more than once; its first value is sent',
    {
      requestId: request?.requestId,
      route,
      field,
    },
  );
}
