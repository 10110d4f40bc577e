/**
 * The condition a PATCH or DELETE of a bookmark writes under. restmachine evaluates If-Match and
 * If-Unmodified-Since (RFC 9110 §13.2.2 steps 1 and 2) before the handler runs, against the row
 * `resourceExists` read. Another request may change the row between that read and the write, so
 * the write repeats the condition in its WHERE clause, where the database checks it in the same
 * statement as the change: a change that lands in between makes it a 412. With If-Match that
 * means no lost update; If-Unmodified-Since compares whole seconds, so it cannot tell a change
 * from one made earlier in the same second.
 * The write repeats the condition as the client sent it, not the version that was read: a
 * condition that still holds at the write (`*` on a bookmark that still exists, a list naming the
 * version another client just made) must not fail for a change it allows.
 */
import { type MultiValueHeaders, parseEntityTagList, parseHttpDate } from '../../src/index.js';
import type { WriteCondition } from './store.js';

/** A bookmark's entity tag: its version (`v3`, which restmachine sends quoted: `"v3"`). */
export function versionTag(version: number): string {
  return `v${version}`;
}

/**
 * The tag of one representation of a bookmark: the version for JSON, which API clients send
 * back in If-Match, and the version with the type's name for the page and the text (`v3-html`),
 * so that no strong tag stands for two representations (RFC 9110 §8.8.3).
 */
export function representationTag(version: number, mediaType: string | undefined): string {
  const tag = versionTag(version);
  if (mediaType === undefined || mediaType === 'application/json') return tag;
  return `${tag}-${mediaType.slice(mediaType.indexOf('/') + 1)}`;
}

// A tag of `versionTag`'s form, as restmachine compares tags for If-Match: strong (a weak tag
// never matches) and exactly (`"v03"` is not `"v3"`). Versions are PostgreSQL integers.
const VERSION_TAG = /^"v([1-9][0-9]{0,9})"$/;
const MAX_VERSION = 2_147_483_647;

function taggedVersion(tag: string): number[] {
  const digits = VERSION_TAG.exec(tag)?.[1];
  const version = Number(digits);
  return digits !== undefined && version <= MAX_VERSION ? [version] : [];
}

/**
 * The condition of this request's write, or `undefined` when it sent none (an unconditional
 * write, for which a row deleted in between is a 404 rather than a 412).
 */
export function writeCondition(headers: MultiValueHeaders): WriteCondition | undefined {
  if (headers.has('if-match')) {
    // §13.1.1, over every field line as restmachine reads it: `*` asks only that the bookmark
    // exists, which the write's `WHERE id = ...` already requires; a list holds when the row
    // has the version of any one of its tags.
    const tags = parseEntityTagList(headers.getAll('if-match').join(', '));
    return tags[0] === '*' ? {} : { versions: tags.flatMap(taggedVersion) };
  }
  // If-Unmodified-Since counts only without If-Match (§13.2.2), and only as one valid date
  // (§13.1.4): what restmachine ignored before the handler, the write ignores too.
  const since = headers.getAll('if-unmodified-since');
  const date = since.length === 1 ? parseHttpDate(since[0]) : undefined;
  return date === undefined ? undefined : { unmodifiedSince: date };
}
