/**
 * Conditional requests and ranges for one file (RFC 9110 §13 and §14), decided from the file's
 * validators before a byte of it is read.
 */
import { ifRangeAllows } from '../http/conditional.js';
import { toHttpSeconds } from '../http/date.js';
import { strongMatch, weakMatch } from '../http/etag.js';
import { parseRange } from '../http/range.js';
import type { Request } from '../request.js';

/** What is known about the representation before it is read. */
export interface Validators {
  /** A strong entity tag, quotes included. */
  etag: string;
  lastModified: Date | undefined;
  size: number;
}

/** How to answer a GET or HEAD for a representation with given validators. */
export type Decision =
  | { status: 200 }
  | { status: 206; start: number; end: number }
  | { status: 304 }
  | { status: 412 }
  | { status: 416 };

const FULL: Decision = { status: 200 };
const NOT_MODIFIED: Decision = { status: 304 };
const PRECONDITION_FAILED: Decision = { status: 412 };
const UNSATISFIABLE: Decision = { status: 416 };

/**
 * Evaluates the preconditions in the order of RFC 9110 §13.2.2, then the Range header (§14.2),
 * which only applies when the answer would otherwise be 200.
 *
 * @example
 * decide(request, { etag: '"1a-2b"', lastModified, size: 26 }); // { status: 206, start: 0, end: 9 }
 */
export function decide(request: Request, validators: Validators): Decision {
  const headers = request.headers;
  const get = request.method === 'GET';
  // Step 1: If-Match, strong comparison (§13.1.1); `*` matches because the file exists.
  if (headers.has('if-match')) {
    const tags = request.getIfMatch();
    if (!tags.some((tag) => tag === '*' || strongMatch(tag, validators.etag))) {
      return PRECONDITION_FAILED;
    }
  } else if (headers.has('if-unmodified-since') && validators.lastModified !== undefined) {
    // Step 2: only without If-Match; an invalid date is ignored (§13.1.4).
    const since = request.getIfUnmodifiedSince();
    if (since !== undefined && toHttpSeconds(validators.lastModified) > toHttpSeconds(since)) {
      return PRECONDITION_FAILED;
    }
  }
  // Step 3: If-None-Match, weak comparison (§13.1.2); a match on GET/HEAD is 304.
  if (headers.has('if-none-match')) {
    const tags = request.getIfNoneMatch();
    if (tags.some((tag) => tag === '*' || weakMatch(tag, validators.etag))) return NOT_MODIFIED;
  } else if (validators.lastModified !== undefined) {
    // Step 4: If-Modified-Since only without If-None-Match (§13.1.3).
    const since = request.getIfModifiedSince();
    if (since !== undefined && toHttpSeconds(validators.lastModified) <= toHttpSeconds(since)) {
      return NOT_MODIFIED;
    }
  }
  // Step 5: Range is defined for GET only (§14.2); HEAD answers as a GET without Range would.
  const range = get ? headers.get('range') : undefined;
  if (range === undefined) return FULL;
  if (headers.has('if-range') && !ifRangeAllows(headers.get('if-range') as string, validators)) {
    return FULL;
  }
  const parsed = parseRange(range, validators.size);
  if (parsed.kind === 'unsatisfiable') return UNSATISFIABLE;
  // Several ranges that stay apart after merging are answered with the whole file, which
  // §14.2 allows; one range is never served silently in place of several (SPEC §6).
  if (parsed.kind === 'ignore' || parsed.ranges.length !== 1) return FULL;
  const only = parsed.ranges[0] as { start: number; end: number };
  return { status: 206, start: only.start, end: only.end };
}
