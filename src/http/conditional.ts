/**
 * Conditional request evaluation shared by routes and the static router (RFC 9110 §13).
 */
import { parseHttpDate, toHttpSeconds } from './date.js';
import { isEntityTag, strongMatch } from './etag.js';

/** The validators of the selected representation, as far as they are known. */
export interface RangeValidators {
  /** Its entity tag, quotes included (`W/` when weak). */
  etag?: string | undefined;
  lastModified?: Date | undefined;
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
  validators: RangeValidators,
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
