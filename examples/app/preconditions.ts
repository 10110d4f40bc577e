/**
 * The condition a PATCH or DELETE of a bookmark writes under. restmachine evaluates If-Match and
 * If-Unmodified-Since (RFC 9110 §13.2.2 steps 1 and 2) before the handler runs, against the row
 * `resourceExists` read. Another request may change the row between that read and the write, so
 * the write repeats the condition in its WHERE clause, where the database checks it in the same
 * statement as the change: a change that lands in between makes it a 412, never a lost update.
 */
import { type MultiValueHeaders, parseHttpDate } from '../../src/index.js';
import type { Bookmark, WriteCondition } from './store.js';

/**
 * The condition of this request's write, or `undefined` when it sent none (an unconditional
 * write, for which a row deleted in between is a 404 rather than a 412).
 */
export function writeCondition(
  headers: MultiValueHeaders,
  bookmark: Bookmark,
): WriteCondition | undefined {
  if (headers.has('if-match')) return { version: bookmark.version };
  // If-Unmodified-Since counts only without If-Match (§13.2.2), and only as one valid date
  // (§13.1.4): what restmachine ignored before the handler, the write ignores too.
  const since = headers.getAll('if-unmodified-since');
  const date = since.length === 1 ? parseHttpDate(since[0]) : undefined;
  return date === undefined ? undefined : { unmodifiedSince: date };
}
