/**
 * Entity tags (RFC 9110 §8.8.3). Tags are handled as strings with their quotes, `W/` kept for
 * weak ones: `'"abc"'`, `'W/"abc"'`.
 */

import { noteObsText } from './header-fields.js';

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE ; etagc = %x21 / %x23-7E / obs-text
const ETAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
// The same without obs-text, tested first so that a tag with obs-text is noticed (noteObsText).
const ASCII_ETAG = /^(?:W\/)?"[\x21\x23-\x7e]*"$/;

// What may stand between the quotes unchanged; obs-text is left out because runtimes disagree on
// sending it, and `%` because it marks the escapes below.
const PLAIN_ETAGC = /^[\x21\x23-\x24\x26-\x7e]*$/;

/**
 * Quotes `value` as an entity tag, prefixed `W/` when weak; an already quoted tag is kept.
 * Characters an entity tag cannot carry are percent-encoded rather than dropped, so two
 * different values never share a tag (which would answer 304 for a changed resource).
 *
 * @example
 * formatEntityTag('v1'); // '"v1"'
 * formatEntityTag('v1', true); // 'W/"v1"'
 */
export function formatEntityTag(value: string, weak = false): string {
  let quoted: string;
  if (ASCII_ETAG.test(value)) quoted = value;
  else if (ETAG.test(value)) {
    quoted = value;
    noteObsText(value);
  } else if (PLAIN_ETAGC.test(value)) quoted = `"${value}"`;
  else {
    try {
      quoted = `"${encodeURIComponent(value)}"`;
    } catch {
      throw new TypeError('An entity tag must be well-formed Unicode');
    }
  }
  if (weak && !quoted.startsWith('W/')) return `W/${quoted}`;
  return quoted;
}

/** Whether `value` is a well-formed entity tag. */
export function isEntityTag(value: string): boolean {
  return ETAG.test(value);
}

/**
 * Parses an `If-Match` / `If-None-Match` value into its tags; `*` is returned as `['*']`.
 * Malformed members are dropped, so a garbled header never matches by accident. Never throws.
 */
export function parseEntityTagList(header: string | undefined): string[] {
  if (header === undefined) return [];
  const trimmed = header.trim();
  if (trimmed === '*') return ['*'];
  const tags: string[] = [];
  let i = 0;
  const n = trimmed.length;
  while (i < n) {
    while (i < n && (trimmed[i] === ',' || trimmed[i] === ' ' || trimmed[i] === '\t')) i++;
    if (i >= n) break;
    const start = i;
    if (trimmed.startsWith('W/', i)) i += 2;
    if (trimmed[i] !== '"') {
      // Not a tag: skip to the next comma.
      while (i < n && trimmed[i] !== ',') i++;
      continue;
    }
    const close = trimmed.indexOf('"', i + 1);
    if (close === -1) break;
    const tag = trimmed.slice(start, close + 1);
    if (ETAG.test(tag)) tags.push(tag);
    i = close + 1;
  }
  return tags;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Strong comparison (RFC 9110 §8.8.3.2): both strong and identical. */
export function strongMatch(a: string, b: string): boolean {
  return !a.startsWith('W/') && !b.startsWith('W/') && a === b;
}

/** Weak comparison (RFC 9110 §8.8.3.2): opaque tags identical, weakness ignored. */
export function weakMatch(a: string, b: string): boolean {
  return opaque(a) === opaque(b);
}
