/**
 * Header text that is UTF-8 octets. A header's text is its octets, one character each: what Node
 * hands over and what a Fetch runtime's `Headers` hold (RFC 9110 §5.5 leaves the meaning of an
 * octet above 0x7F to the field). Some fields carry text a client sends as UTF-8: a cookie a
 * script set with non-ASCII text (RFC 6265 §5.4), the last event id an `EventSource` sends back
 * (HTML standard, "Server-sent events", §9.2.4). Read as UTF-8, their octets are that text again,
 * on every adapter; text given in process (a test's `'é'`) is no UTF-8 and stays as it is.
 */

/** A character above 0x7F: text that is not plain ASCII. */
export const NOT_ASCII = /[\x80-\uffff]/;

// `ignoreBOM` keeps a leading U+FEFF, which is part of the value, not a byte order mark.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `value` read as UTF-8 when its characters are octets (none above U+00FF) that form UTF-8;
 * otherwise `value` as it is.
 *
 * @example
 * decodeUtf8Octets('\u00c3\u00a9t\u00c3\u00a9'); // 'été'
 * decodeUtf8Octets('été'); // 'été' (é alone is no UTF-8)
 */
export function decodeUtf8Octets(value: string): string {
  const octets = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff) return value;
    octets[i] = code;
  }
  try {
    return UTF8.decode(octets);
  } catch {
    return value;
  }
}
