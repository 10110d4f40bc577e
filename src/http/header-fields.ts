/**
 * Header fields as they come in: what headers can be built from besides other headers, and what
 * may be a field (RFC 9110 §5.1, §5.5): a name that is a token and a value of visible octets,
 * spaces and tabs, checked before anything is stored.
 */

/** Fields given as a record, a list of pairs or a WHATWG `Headers` (headers.ts adds its own). */
export type FieldsInit =
  | Readonly<Record<string, string | number | readonly string[] | undefined | null>>
  | ReadonlyArray<readonly [string, string]>
  | WhatwgHeadersLike;

/** The part of the WHATWG `Headers` class used to copy one (structural, so no DOM types). */
export interface WhatwgHeadersLike {
  forEach(callback: (value: string, name: string) => void): void;
  getSetCookie?(): string[];
}

/**
 * Whether `init` is a WHATWG `Headers`: `forEach` and `get` together (an array has no `get`, our
 * own headers no `forEach`).
 */
export function isWhatwgHeaders(init: object): init is WhatwgHeadersLike {
  return (
    typeof (init as WhatwgHeadersLike).forEach === 'function' &&
    typeof (init as { get?: unknown }).get === 'function'
  );
}

// RFC 9110 §5.1: a field name is a token. §5.5: CR, LF and NUL are never allowed in a value;
// rejecting them here closes response splitting whatever the adapter underneath does.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR, LF and NUL would split or end the field (RFC 9110 §5.5), and the other control characters
// (all but HTAB) are no field content either; a character above U+00FF is no octet, so no
// runtime can send it. Node refuses both only after the response was made, when its hooks and
// log have seen a 200 and the client gets a bare 500: refused here, the handler's error goes
// through the error path. What may be sent is §5.5's field content: HTAB, SP, VCHAR, obs-text.
const FORBIDDEN_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
// Nearly every value is ASCII: this one test passes it, and only a value it stops is tested
// against FORBIDDEN_VALUE, so obs-text is noticed at no cost to ASCII values.
const NOT_ASCII_FIELD_CONTENT = /[^\t\x20-\x7e]/;

/**
 * Whether this process has accepted a header value with obs-text (U+0080–U+00FF, one octet each:
 * RFC 9110 §5.5). Until it has, no response can hold one but a client's value echoed back, and
 * an adapter that must send such a value with care (the Node adapter writes a head and a text
 * body together in one encoding) skips looking for it.
 */
export let obsTextAccepted = false;

/** Records that `value`, a field value about to be sent, holds obs-text when it does. */
export function noteObsText(value: string): void {
  if (!obsTextAccepted && NOT_ASCII_FIELD_CONTENT.test(value)) obsTextAccepted = true;
}

// Names already found valid: applications send the same few names on every response.
const VALID_NAMES = new Set<string>();

/** Whether `value` may be sent as a field value: no control character but HTAB, all octets. */
export function isFieldValue(value: string): boolean {
  return !FORBIDDEN_VALUE.test(value);
}

/** Throws a TypeError unless `name` is a token. */
export function checkName(name: string): void {
  if (VALID_NAMES.has(name)) return;
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new TypeError(`Invalid header name ${JSON.stringify(name)}`);
  }
  if (VALID_NAMES.size < 512) VALID_NAMES.add(name);
}

/**
 * `value` as a string; throws a TypeError when it holds a control character other than HTAB
 * (CR, LF and NUL among them) or a character above U+00FF.
 */
export function checkValue(name: string, value: string): string {
  if (typeof value !== 'string') value = String(value);
  if (NOT_ASCII_FIELD_CONTENT.test(value)) checkObsTextValue(name, value);
  return value;
}

/** `checkValue` for a value that is not all ASCII field content: obs-text, or refused. */
function checkObsTextValue(name: string, value: string): void {
  if (FORBIDDEN_VALUE.test(value)) {
    throw new TypeError(
      `Invalid value for header ${name}: control characters are not allowed (CR, LF and NUL among them, RFC 9110 §5.5; HTAB is), nor characters above U+00FF (percent-encode them, as RFC 8187 does)`,
    );
  }
  obsTextAccepted = true;
}

/** What fields are added to: each through `add`, which validates it. */
export interface FieldTarget {
  add(name: string, value: string): unknown;
}

/** Adds every field of `init` to `target`, each through `add`, so each is validated. */
export function addFields(target: FieldTarget, init: FieldsInit): void {
  if (Array.isArray(init)) {
    for (const pair of init as ReadonlyArray<readonly [string, string]>) {
      target.add(pair[0], pair[1]);
    }
  } else if (isWhatwgHeaders(init)) {
    const cookies = typeof init.getSetCookie === 'function' ? init.getSetCookie() : undefined;
    init.forEach((value, name) => {
      if (cookies !== undefined && name.toLowerCase() === 'set-cookie') return;
      target.add(name, value);
    });
    if (cookies !== undefined) for (const cookie of cookies) target.add('Set-Cookie', cookie);
  } else {
    const record = init as Readonly<Record<string, string | number | readonly string[]>>;
    for (const name of Object.keys(record)) {
      const value = record[name];
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) target.add(name, item);
      else target.add(name, String(value));
    }
  }
}
