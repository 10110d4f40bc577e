/**
 * Which of a request's entity-tag conditions an S3-compatible store can be handed as they are,
 * and the tag a 304 answered when the store did not repeat it.
 */
import { isEntityTag } from '../http/etag.js';
import type { MultiValueHeaders } from '../http/headers.js';
import type { Request } from '../request.js';

/**
 * Whether the store can be handed the request's entity-tag conditions as they are: none, or one
 * field line holding one strong tag (or `If-Match: *`, which the read answers by itself).
 */
export function storeCanJudge(headers: MultiValueHeaders): boolean {
  return (
    singleStrongTag(headers, 'if-match', true) && singleStrongTag(headers, 'if-none-match', false)
  );
}

function singleStrongTag(headers: MultiValueHeaders, name: string, starHolds: boolean): boolean {
  const lines = headers.getAll(name);
  if (lines.length === 0) return true;
  if (lines.length > 1) return false;
  const value = (lines[0] as string).trim();
  return (starHolds && value === '*') || (isEntityTag(value) && !value.startsWith('W/'));
}

/**
 * The tag a 304 answered, when the store did not repeat it (some S3-compatible stores omit it):
 * with a single tag in If-None-Match, that tag is the one that matched.
 */
export function matchedTag(request: Request): string | undefined {
  const tags = request.getIfNoneMatch();
  return tags.length === 1 && tags[0] !== '*' ? tags[0] : undefined;
}
