/**
 * Conditional requests (RFC 9110 §13) and the range decision that follows them (§14), judged
 * once for routes and the static router alike. Callers hand in the validators of the selected
 * representation; what to send (a 304, a 412, a 206, a 416) is theirs to build.
 */
import { notLaterThanNow, parseHttpDate, toHttpSeconds } from './date.js';
import { isEntityTag, parseEntityTagList, strongMatch, weakMatch } from './etag.js';
import { MultiValueHeaders } from './headers.js';
import { parseRange, type RangeRequest } from './range.js';

/** What the evaluation reads of a request: its method and its header fields. */
export interface ConditionalRequest {
  readonly method: string;
  readonly headers: MultiValueHeaders;
}

/** The validators of the selected representation, as far as they are known. */
export interface Validators {
  /** Its entity tag, quotes included (`W/` when weak). */
  etag?: string | undefined;
  lastModified?: Date | undefined;
  /**
   * Whether a current representation exists, which is what `If-Match: *` and `If-None-Match: *`
   * ask (RFC 9110 §13.1.1, §13.1.2). True unless said otherwise: only a route's providers can
   * report that there is none.
   */
  exists?: boolean;
}

/** The outcome of RFC 9110 §13.2.2 steps 1 to 4. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/**
 * Whether `request` carries any precondition header: a cheap test before building validators.
 */
export function hasPreconditions(request: ConditionalRequest): boolean {
  const headers = request.headers;
  // Most requests carry no If-* header at all: one pass over the names says so.
  if (!MultiValueHeaders.hasNameStartingWith(headers, 'if-')) return false;
  return (
    headers.has('if-match') ||
    headers.has('if-none-match') ||
    headers.has('if-modified-since') ||
    headers.has('if-unmodified-since')
  );
}

function isSafe(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** An `If-Match` / `If-None-Match` list over all its field lines (RFC 9110 §5.3). */
function entityTags(headers: MultiValueHeaders, name: string): string[] {
  return parseEntityTagList(headers.getAll(name).join(', '));
}

/**
 * A date precondition header, or `undefined` when it must be ignored: not a valid HTTP-date, or
 * more than one member (RFC 9110 §13.1.3, §13.1.4). An IMF-fixdate has a comma of its own, so
 * "more than one member" is counted in field lines and in dates, not in commas. The S3 store
 * hands S3 only what this returns, so both stores ignore the same headers.
 */
export function dateHeader(headers: MultiValueHeaders, name: string): Date | undefined {
  const values = headers.getAll(name);
  if (values.length !== 1) return undefined;
  return parseHttpDate(values[0]);
}

/**
 * Evaluates the precondition headers of `request` against the selected representation, in the
 * order of RFC 9110 §13.2.2. Range and If-Range (step 5) are {@link evaluateRange}'s.
 *
 * @example
 * evaluatePreconditions(request, { etag: '"v2"' });
 * // 'failed' for a PUT with If-Match: "v1"; 'not-modified' for a GET with If-None-Match: "v2"
 */
export function evaluatePreconditions(
  request: ConditionalRequest,
  validators: Validators,
): PreconditionOutcome {
  const headers = request.headers;
  const safe = isSafe(request.method);
  const etag = validators.etag;
  const lastModified = validators.lastModified;
  const exists = validators.exists !== false;
  if (headers.has('if-match')) {
    // Step 1, §13.1.1: `*` holds when a current representation exists; a list holds when one of
    // its tags matches by the strong comparison (a weak tag never does). A malformed list has
    // no tags and therefore fails, which is the safe answer before a state change.
    const tags = entityTags(headers, 'if-match');
    const holds =
      tags[0] === '*' ? exists : etag !== undefined && tags.some((tag) => strongMatch(tag, etag));
    if (!holds) return 'failed';
  } else if (headers.has('if-unmodified-since')) {
    // Step 2, §13.1.4: ignored when not a valid date or when the resource has no date. A future
    // date is compared as the time of the response, which is what is sent for it (§8.8.2.1).
    const since = dateHeader(headers, 'if-unmodified-since');
    if (
      since !== undefined &&
      lastModified !== undefined &&
      toHttpSeconds(notLaterThanNow(lastModified)) > toHttpSeconds(since)
    ) {
      return 'failed';
    }
  }
  if (headers.has('if-none-match')) {
    // Step 3, §13.1.2: `*` fails when a representation exists; a list fails when one of its
    // tags matches by the weak comparison. GET/HEAD then answer 304, other methods 412.
    const tags = entityTags(headers, 'if-none-match');
    const matches =
      tags[0] === '*' ? exists : etag !== undefined && tags.some((tag) => weakMatch(tag, etag));
    if (matches) return safe ? 'not-modified' : 'failed';
  } else if (safe && headers.has('if-modified-since')) {
    // Step 4, §13.1.3: GET and HEAD only; dates compared at one-second precision, the finest an
    // HTTP-date carries (§5.6.7); a future date, as in step 2, as the time of the response.
    const since = dateHeader(headers, 'if-modified-since');
    if (
      since !== undefined &&
      lastModified !== undefined &&
      toHttpSeconds(notLaterThanNow(lastModified)) <= toHttpSeconds(since)
    ) {
      return 'not-modified';
    }
  }
  return 'proceed';
}

const IGNORE_RANGE: RangeRequest = { kind: 'ignore' };

/**
 * Step 5 of RFC 9110 §13.2.2: what the `Range` of `request` asks of a representation of `size`
 * bytes, once `If-Range` (§13.1.5) has had its say. `ignore` means the whole representation
 * with 200, `unsatisfiable` a 416, `ranges` a 206. Call it only where the preconditions let the
 * answer be a 200, and only for the methods the caller ranges (§14.2 defines GET).
 *
 * @example
 * evaluateRange(request, { etag: '"v1"' }, 26);
 * // { kind: 'ranges', ranges: [{ start: 0, end: 1 }] } for Range: bytes=0-1, If-Range: "v1"
 */
export function evaluateRange(
  request: ConditionalRequest,
  validators: Validators,
  size: number,
): RangeRequest {
  const headers = request.headers;
  const header = MultiValueHeaders.getLower(headers, 'range');
  if (header === undefined || !rangeLinesUsable(headers)) return IGNORE_RANGE;
  const ifRange = MultiValueHeaders.getLower(headers, 'if-range');
  if (ifRange !== undefined && !ifRangeAllows(ifRange, validators)) return IGNORE_RANGE;
  return parseRange(header, size);
}

/**
 * Whether the field lines of `Range` and `If-Range` can be used at all: a Range sent twice is
 * not a list and is ignored (§14.2); an If-Range sent on two lines is neither one entity tag nor
 * one date (§13.1.5), so it never holds and the Range is ignored too. The S3 store asks this
 * before handing S3 a range, so both stores ignore the same requests.
 */
export function rangeLinesUsable(headers: MultiValueHeaders): boolean {
  return headers.getAll('range').length === 1 && headers.getAll('if-range').length <= 1;
}

/**
 * Whether `If-Range` lets a `Range` be served (RFC 9110 §13.1.5); when it does not, the whole
 * representation is sent, because the client's partial copy may be of another version.
 *
 * - An entity tag (its first character a DQUOTE, or `W/` then one) holds only by the strong
 *   comparison: a weak tag on either side never does (§8.8.3.2).
 * - An HTTP date holds when it equals Last-Modified to the second, and only when that date is a
 *   strong validator. §8.8.2.2 asks the origin to know the representation did not change twice
 *   within that second; it cannot know that while the second is still running, so a
 *   Last-Modified in the current second (or in the future, from a skewed clock) never holds.
 * - Anything else (`W/` without a tag, `w/"x"`, a malformed tag or date) never holds.
 *
 * `now` is the time of the evaluation in milliseconds.
 *
 * @example
 * ifRangeAllows('"v1"', { etag: '"v1"' }); // true
 * ifRangeAllows('W/"v1"', { etag: '"v1"' }); // false: weak tags never match
 */
export function ifRangeAllows(
  ifRange: string,
  validators: Validators,
  now: number = Date.now(),
): boolean {
  const value = ifRange.trim();
  // §13.1.5: an entity-tag is told from an HTTP-date by a DQUOTE in its first three characters.
  if (value.startsWith('"') || value.startsWith('W/"')) {
    const etag = validators.etag;
    return isEntityTag(value) && etag !== undefined && strongMatch(value, etag);
  }
  const lastModified = validators.lastModified;
  if (lastModified === undefined) return false;
  const date = parseHttpDate(value);
  if (date === undefined) return false;
  const seconds = toHttpSeconds(lastModified);
  return seconds === toHttpSeconds(date) && seconds < Math.floor(now / 1000);
}
