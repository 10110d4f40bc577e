/**
 * Case-insensitive, order-preserving, multi-valued HTTP headers.
 *
 * Header names are matched without regard to case (RFC 9110 §5.1); the casing first seen is kept
 * for output. Values are never joined: `Set-Cookie` in particular cannot be folded into one line
 * (RFC 6265 §3), so every value stays separate until an adapter writes it.
 */

/** What a {@link MultiValueHeaders} can be built from. */
export type HeadersInit =
  | MultiValueHeaders
  | Readonly<Record<string, string | number | readonly string[] | undefined | null>>
  | ReadonlyArray<readonly [string, string]>
  | WhatwgHeadersLike;

/** The part of the WHATWG `Headers` class used to copy one (structural, so no DOM types). */
export interface WhatwgHeadersLike {
  forEach(callback: (value: string, name: string) => void): void;
  getSetCookie?(): string[];
}

interface Entry {
  name: string;
  values: string[];
}

// RFC 9110 §5.1: a field name is a token. §5.5: CR, LF and NUL are never allowed in a value;
// rejecting them here closes response splitting whatever the adapter underneath does.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_VALUE = /[\r\n\0]/;

// Names already found valid: applications send the same few names on every response.
const VALID_NAMES = new Set<string>();

function checkName(name: string): void {
  if (VALID_NAMES.has(name)) return;
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new TypeError(`Invalid header name ${JSON.stringify(name)}`);
  }
  if (VALID_NAMES.size < 512) VALID_NAMES.add(name);
}

function checkValue(name: string, value: string): string {
  if (typeof value !== 'string') value = String(value);
  if (FORBIDDEN_VALUE.test(value)) {
    throw new TypeError(`Invalid value for header ${name}: CR, LF and NUL are not allowed`);
  }
  return value;
}

function isWhatwgHeaders(init: object): init is WhatwgHeadersLike {
  return (
    typeof (init as WhatwgHeadersLike).forEach === 'function' &&
    typeof (init as { get?: unknown }).get === 'function' &&
    !(init instanceof MultiValueHeaders) &&
    !Array.isArray(init)
  );
}

/**
 * Case-insensitive multi-value headers.
 *
 * @example
 * const headers = new MultiValueHeaders({ 'Set-Cookie': ['a=1', 'b=2'] });
 * headers.add('Vary', 'Accept');
 * headers.get('set-cookie'); // 'a=1'
 * headers.getAll('set-cookie'); // ['a=1', 'b=2']
 */
export class MultiValueHeaders implements Iterable<[string, string]> {
  #map = new Map<string, Entry>();
  // Raw name/value pairs as a runtime handed them over (already validated by its parser),
  // indexed only when a header is first read: most requests read few headers or none.
  #pending: readonly string[] | undefined;

  constructor(init?: HeadersInit | null) {
    if (init === undefined || init === null) return;
    if (init instanceof MultiValueHeaders) {
      for (const [key, entry] of init.#entries()) {
        this.#map.set(key, { name: entry.name, values: entry.values.slice() });
      }
    } else if (Array.isArray(init)) {
      for (const pair of init as ReadonlyArray<readonly [string, string]>) {
        this.add(pair[0], pair[1]);
      }
    } else if (isWhatwgHeaders(init)) {
      const cookies = typeof init.getSetCookie === 'function' ? init.getSetCookie() : undefined;
      init.forEach((value, name) => {
        if (cookies !== undefined && name.toLowerCase() === 'set-cookie') return;
        this.add(name, value);
      });
      if (cookies !== undefined) for (const cookie of cookies) this.add('Set-Cookie', cookie);
    } else {
      const record = init as Readonly<Record<string, string | number | readonly string[]>>;
      for (const name of Object.keys(record)) {
        const value = record[name];
        if (value === undefined || value === null) continue;
        if (Array.isArray(value)) for (const item of value) this.add(name, item);
        else this.add(name, String(value));
      }
    }
  }

  /**
   * Builds headers from a flat `[name, value, name, value, ...]` list such as Node's
   * `rawHeaders`, without validating or indexing them until one is read.
   */
  static fromRawPairs(raw: readonly string[]): MultiValueHeaders {
    const headers = new MultiValueHeaders();
    if (raw.length > 0) headers.#pending = raw;
    return headers;
  }

  #entries(): Map<string, Entry> {
    const pending = this.#pending;
    if (pending !== undefined) {
      this.#pending = undefined;
      for (let i = 0; i + 1 < pending.length; i += 2) {
        const name = pending[i] as string;
        const key = name.toLowerCase();
        const entry = this.#map.get(key);
        if (entry === undefined) this.#map.set(key, { name, values: [pending[i + 1] as string] });
        else entry.values.push(pending[i + 1] as string);
      }
    }
    return this.#map;
  }

  /** The first value of `name`, or `undefined`. */
  get(name: string): string | undefined {
    return this.#entries().get(name.toLowerCase())?.values[0];
  }

  /** Every value of `name` in the order received (empty when absent). */
  getAll(name: string): string[] {
    const entry = this.#entries().get(name.toLowerCase());
    return entry === undefined ? [] : entry.values.slice();
  }

  has(name: string): boolean {
    return this.#entries().has(name.toLowerCase());
  }

  /** Replaces every value of `name`. */
  set(name: string, value: string | number | readonly string[]): this {
    checkName(name);
    const values = Array.isArray(value)
      ? value.map((item: string) => checkValue(name, item))
      : [checkValue(name, String(value))];
    const key = name.toLowerCase();
    const entries = this.#entries();
    const existing = entries.get(key);
    if (values.length === 0) entries.delete(key);
    else if (existing !== undefined) existing.values = values;
    else entries.set(key, { name, values });
    return this;
  }

  /**
   * Replaces `name` with one value the library produced itself (a length, a formatted date, a
   * validated id): no validation. Not part of the public API.
   */
  static setTrusted(headers: MultiValueHeaders, name: string, value: string): void {
    const key = name.toLowerCase();
    const entries = headers.#entries();
    const existing = entries.get(key);
    if (existing !== undefined) existing.values = [value];
    else entries.set(key, { name, values: [value] });
  }

  /** Appends a value to `name`, keeping the ones already there. */
  add(name: string, value: string | number): this {
    checkName(name);
    const checked = checkValue(name, String(value));
    const key = name.toLowerCase();
    const entries = this.#entries();
    const existing = entries.get(key);
    if (existing === undefined) entries.set(key, { name, values: [checked] });
    else existing.values.push(checked);
    return this;
  }

  /** Removes every value of `name`; returns whether there was one. */
  delete(name: string): boolean {
    return this.#entries().delete(name.toLowerCase());
  }

  /** The number of distinct header names. */
  get size(): number {
    return this.#entries().size;
  }

  /** Every (name, value) pair, one per value, names in their first-seen casing. */
  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const entry of this.#entries().values()) {
      for (const value of entry.values) yield [entry.name, value];
    }
  }

  entries(): IterableIterator<[string, string]> {
    return this[Symbol.iterator]();
  }

  /** Distinct header names in their first-seen casing. */
  *names(): IterableIterator<string> {
    for (const entry of this.#entries().values()) yield entry.name;
  }

  /** Calls `callback` once per distinct name with all of its values. */
  forEachName(callback: (values: readonly string[], name: string) => void): void {
    for (const entry of this.#entries().values()) callback(entry.values, entry.name);
  }

  /** The first value of each header (SPEC §4.2), keyed by the first-seen casing. */
  toDict(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const entry of this.#entries().values()) out[entry.name] = entry.values[0] as string;
    return out;
  }

  /** Every value of each header, keyed by the first-seen casing. */
  toMultiDict(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const entry of this.#entries().values()) out[entry.name] = entry.values.slice();
    return out;
  }

  /** A copy that can be changed without touching this one. */
  clone(): MultiValueHeaders {
    return new MultiValueHeaders(this);
  }
}
