/**
 * Query strings (`application/x-www-form-urlencoded`, as URLSearchParams reads them: `+` is a
 * space). Keys keep every value in order.
 */
import { percentDecodeLeniently } from './percent.js';

function decodeComponent(text: string): string {
  if (text.indexOf('+') !== -1) text = text.replace(/\+/g, ' ');
  if (text.indexOf('%') === -1) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape stays as sent and the valid ones around it are still decoded; bytes
    // that are not UTF-8 are U+FFFD. A query never fails the request.
    return percentDecodeLeniently(text);
  }
}

/**
 * Parses `a=1&b=2&a=3`, the query after its `?`, into an ordered map of every value per key.
 * A `?` inside it is data (RFC 3986 §3.4), a leading one too: `/x??a=1` has the key `?a`, as a
 * URL's `searchParams` reads it. Never throws.
 */
export function parseQueryString(query: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    if (end > start) {
      const pair = query.slice(start, end);
      const eq = pair.indexOf('=');
      const key = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
      const values = params.get(key);
      if (values === undefined) params.set(key, [value]);
      else values.push(value);
    }
    start = end + 1;
  }
  return params;
}
