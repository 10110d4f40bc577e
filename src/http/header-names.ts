/**
 * Header names without regard to case (RFC 9110 §5.1), as `MultiValueHeaders` compares them:
 * their lower-case keys, and lookups among raw name/value pairs a runtime handed over.
 */

// The lower-case keys of the plain ASCII names looked up so far. Code asks for the same few
// names on every request, and one map lookup costs less than lower-casing the name and checking
// it character by character (`get('authorization')`: 1,621 instructions before, bench/RESULTS.md).
const ASCII_KEYS = new Map<string, string>();

/**
 * `name` in lower case when it is plain ASCII (a valid field name always is), else undefined:
 * a name beyond ASCII is no token and matches none (RFC 9110 §5.1: names are case-insensitive
 * in ASCII only). It is checked before lower-casing, which would turn the Kelvin sign into an
 * ASCII `k`. Remembered for the names seen (Lambda events repeat the same few on every
 * invocation).
 */
export function asciiKey(name: string): string | undefined {
  let key = ASCII_KEYS.get(name);
  if (key === undefined) {
    if (!isAscii(name)) return undefined;
    key = name.toLowerCase();
    if (ASCII_KEYS.size < 256) ASCII_KEYS.set(name, key);
  }
  return key;
}

/** Whether `name` starts with `prefix` (lower case) when compared without regard to case. */
export function startsWithLower(name: string, prefix: string): boolean {
  if (name.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    let code = name.charCodeAt(i);
    // Beyond ASCII (never in a valid name, but a runtime may pass one on), compare as
    // toLowerCase() does, like the indexed lookups.
    if (code > 127) return name.slice(0, prefix.length).toLowerCase() === prefix;
    if (code >= 65 && code <= 90) code += 32;
    if (code !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/** The position of the next raw pair named `key` (lower case, plain ASCII) from `from`, or -1. */
export function findPending(pending: readonly string[], key: string, from: number): number {
  // Lower-casing can lengthen a name ('İ' becomes 'i' and a combining dot), never into plain
  // ASCII: only a name of the key's length can match an ASCII key.
  for (let i = from; i + 1 < pending.length; i += 2) {
    const name = pending[i] as string;
    // toLowerCase() costs less than comparing character by character in JavaScript.
    if (name.length === key.length && (name === key || name.toLowerCase() === key)) return i;
  }
  return -1;
}

/**
 * Every raw line named `key` (lower case, plain ASCII) as one value, joined with ", " (RFC 9110
 * §5.3), or undefined when there is none.
 */
export function joinPending(pending: readonly string[], key: string): string | undefined {
  let joined: string | undefined;
  for (let i = 0; i + 1 < pending.length; i += 2) {
    const name = pending[i] as string;
    if (name.length === key.length && (name === key || name.toLowerCase() === key)) {
      const value = pending[i + 1] as string;
      joined = joined === undefined ? value : `${joined}, ${value}`;
    }
  }
  return joined;
}
