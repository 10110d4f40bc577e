/**
 * Paths as the integrations hand them over, turned into the raw path the router expects
 * (percent-encoding intact, decoded once by the router, segment by segment: docs/application.md).
 */

// RFC 3986 §3.3: a path carries `/` and pchar = unreserved / pct-encoded / sub-delims / ":" /
// "@". Everything else must travel percent-encoded.
const OUTSIDE_DECODED_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/;
const OUTSIDE_DECODED_PATH_RUNS = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/]+/g;
// The same set plus `%`, for paths that are still encoded: their escapes must stay as they are.
const OUTSIDE_ENCODED_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;
const OUTSIDE_ENCODED_PATH_RUNS = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]+/g;

const UTF8 = new TextEncoder();

function percentEncode(run: string): string {
  try {
    return encodeURIComponent(run);
  } catch {
    // A lone surrogate cannot be encoded as UTF-8 by encodeURIComponent; TextEncoder writes
    // U+FFFD for it, which is what any UTF-8 transport would have carried.
    let out = '';
    for (const byte of UTF8.encode(run)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
  }
}

/**
 * Re-encodes a path the gateway already percent-decoded (HTTP API `rawPath` and payload 1.0
 * `path`): `%` and every character a path may not carry are escaped, so the router's single
 * decode gives back exactly the text the gateway decoded. A decoded `?` or `#` therefore stays
 * inside the path instead of starting a query or fragment.
 */
export function encodeDecodedPath(path: string): string {
  if (!OUTSIDE_DECODED_PATH.test(path)) return path;
  return path.replace(OUTSIDE_DECODED_PATH_RUNS, percentEncode);
}

/**
 * Makes a path that is still percent-encoded (REST APIs, Function URLs, ALB) safe to route:
 * its escapes are kept byte for byte, and only characters that can never appear literally in an
 * encoded path (a space, `?`, `#`, non-ASCII, controls) are escaped.
 */
export function sanitizeEncodedPath(path: string): string {
  if (!OUTSIDE_ENCODED_PATH.test(path)) return path;
  return path.replace(OUTSIDE_ENCODED_PATH_RUNS, percentEncode);
}

/** Removes `prefix` when the path is it or starts with it followed by `/`. */
export function stripPathPrefix(path: string, prefix: string): string {
  if (prefix === '' || !path.startsWith(prefix)) return path;
  if (path.length === prefix.length) return '/';
  return path.charCodeAt(prefix.length) === 47 /* / */ ? path.slice(prefix.length) : path;
}

/**
 * Normalises the `basePath` option to `''` or `/segment[/segment...]` (no trailing slash).
 * It is compared with the raw path, so it is given as it appears in the URL.
 */
export function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return '';
  if (typeof basePath !== 'string' || /[?#\s]/.test(basePath)) {
    throw new TypeError(
      `basePath must be a URL path such as "/api", got ${JSON.stringify(basePath)}`,
    );
  }
  let path = basePath.replace(/\/+$/, '');
  if (path !== '' && !path.startsWith('/')) path = `/${path}`;
  return path;
}
