/**
 * Safe path resolution for static files: turns the raw request path below the mount point into
 * decoded segments that can only name something inside the served location.
 *
 * The order matters. The raw path is split on `/` before anything is decoded, so `%2F` can never
 * create a segment; each segment is then decoded exactly once, so `%252e%252e` stays the literal
 * name `%2e%2e` and never turns into `..` (a second decoding pass is how double-encoding attacks
 * get through). Only then are `.` and `..` resolved, as RFC 3986 §5.2.4 removes dot-segments.
 */

/** A request path resolved below the served location. */
export interface StaticPath {
  /**
   * Decoded segments, dot-segments resolved. None is empty, `.` or `..`, and none holds `/`, `\`
   * or NUL, so joining them under the root can only name something inside it.
   */
  readonly segments: readonly string[];
  /**
   * The client named a directory: the path ends in `/`, or in a `.` or `..` segment (which
   * resolve like `a/b/..` → `a/`, RFC 3986 §5.2.4).
   */
  readonly directory: boolean;
}

/** Why a path cannot name anything inside the location: it leaves it, or hides a separator. */
export const OUTSIDE = 'outside';
/** The path holds malformed percent-encoding (a 400). */
export const MALFORMED = 'malformed';

export type StaticPathResult = StaticPath | typeof OUTSIDE | typeof MALFORMED;

// After decoding, a segment must not hold a separator or NUL:
// - `/` (from `%2F`) would join two segments into a path the client never sent as segments;
// - `\` (raw or `%5C`) is a separator on Windows and is normalised to `/` by browsers, so
//   `..\..\x` must never reach a file system API;
// - NUL (`%00`) truncates C strings below the file system API, so `a.txt%00.png` is refused.
const UNSAFE_SEGMENT = /[/\\\0]/;

/**
 * Resolves the raw path below the mount point (`''`, `'/'`, `'/css//site.css'`, percent-encoding
 * intact) into segments. A path that climbs above the location (`/../x`) is {@link OUTSIDE}
 * rather than clamped at the root: a client that writes it is probing, and 404 tells it nothing
 * (docs/static-files.md).
 *
 * @example
 * resolveStaticPath('/css/../css//site.css'); // { segments: ['css', 'site.css'], directory: false }
 * resolveStaticPath('/%2e%2e/secret'); // 'outside'
 */
export function resolveStaticPath(raw: string): StaticPathResult {
  // The mount point itself, sent without its slash (`/static`): a directory not named as one.
  if (raw === '') return { segments: [], directory: false };
  const parts = raw.split('/');
  const segments: string[] = [];
  let directory = false;
  for (const part of parts) {
    if (part === '') {
      // Repeated slashes collapse; a trailing one marks a directory.
      directory = true;
      continue;
    }
    let segment = part;
    if (part.indexOf('%') !== -1) {
      try {
        // One decoding pass only (see the module comment). Overlong UTF-8 (`%C0%AE`) and lone
        // surrogates are malformed for decodeURIComponent, so they can never decode to `.`.
        segment = decodeURIComponent(part);
      } catch {
        return MALFORMED;
      }
    }
    if (UNSAFE_SEGMENT.test(segment)) return OUTSIDE;
    if (segment === '.') {
      directory = true;
      continue;
    }
    if (segment === '..') {
      if (segments.length === 0) return OUTSIDE;
      segments.pop();
      directory = true;
      continue;
    }
    segments.push(segment);
    directory = false;
  }
  return { segments, directory };
}

/**
 * The part of `rawPath` below the mount point, given how many segments the catch-all matched.
 * The router matched the mount prefix on non-empty segments, so the prefix ends after the
 * `prefixCount`-th of them; everything after it, slashes included, belongs to the router.
 */
/**
 * `rawPath` without its dot-segments (RFC 3986 §5.2.4, `%2e` being a dot), its other segments
 * as they were sent: the path the router matched, still percent-encoded. A path that ends in a
 * dot-segment names a directory (`/docs/.` is `/docs/`).
 */
export function withoutDotSegments(rawPath: string): string {
  if (rawPath.indexOf('/.') === -1 && !/%2e/i.test(rawPath)) return rawPath;
  const kept: string[] = [];
  let directory = rawPath.endsWith('/');
  for (const segment of rawPath.split('/')) {
    if (segment === '') continue;
    const dots = segment.replace(/%2e/gi, '.');
    directory = dots === '.' || dots === '..';
    if (dots === '..') kept.pop();
    else if (dots !== '.') kept.push(segment);
  }
  if (rawPath.endsWith('/')) directory = true;
  const path = `/${kept.join('/')}`;
  return directory && kept.length > 0 ? `${path}/` : path;
}

export function pathBelowMount(rawPath: string, catchAllValue: string): string {
  // The catch-all's decoded segments never hold `/` (the matcher refuses those), so its
  // segment count is its slash count plus one.
  let catchAllCount = 0;
  if (catchAllValue !== '') {
    catchAllCount = 1;
    for (let i = 0; i < catchAllValue.length; i++)
      if (catchAllValue.charCodeAt(i) === 47) catchAllCount++;
  }
  let total = 0;
  for (let i = 0; i < rawPath.length; i++) {
    if (rawPath.charCodeAt(i) !== 47 && (i === 0 || rawPath.charCodeAt(i - 1) === 47)) total++;
  }
  let prefixCount = total - catchAllCount;
  if (prefixCount <= 0) return rawPath;
  let index = 0;
  while (index < rawPath.length && prefixCount > 0) {
    while (rawPath.charCodeAt(index) === 47) index++;
    while (index < rawPath.length && rawPath.charCodeAt(index) !== 47) index++;
    prefixCount--;
  }
  return rawPath.slice(index);
}

/** The mount prefix of `rawPath` (the part before {@link pathBelowMount}), one slash apart. */
export function mountPrefixSegments(rawPath: string, below: string): string[] {
  return rawPath
    .slice(0, rawPath.length - below.length)
    .split('/')
    .filter((part) => part !== '');
}

/**
 * Encodes one decoded segment for a `Location` header. Everything outside the unreserved set and
 * a few harmless sub-delimiters is percent-encoded, `\` included: browsers read `/\host` as
 * `//host`, so a raw backslash in a redirect could point off-site.
 */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}
