/**
 * Case-insensitive, order-preserving, multi-valued HTTP headers.
 *
 * Header names are matched without regard to case (RFC 9110 §5.1); the casing first seen is kept
 * for output. Values are never joined: `Set-Cookie` in particular cannot be folded into one line
 * (RFC 6265 §3), so every value stays separate until an adapter writes it.
 */

import { DataRecord } from './data-record.js';
import { addFields, checkName, checkValue, type FieldsInit } from './header-fields.js';
import { asciiKey, findPending, joinPending, startsWithLower } from './header-names.js';

export type { WhatwgHeadersLike } from './header-fields.js';

/** What a {@link MultiValueHeaders} can be built from. */
export type HeadersInit = MultiValueHeaders | FieldsInit;

// One header in the flat field list: its name as first seen, its lower-case key, and its values
// (one string, or an array once there are several).
const NAME = 0;
const KEY = 1;
const VALUES = 2;
const STRIDE = 3;

type Field = string | string[];

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
  // Distinct names in first-seen order, three slots each (see STRIDE). A message carries a dozen
  // headers or so, where a scan beats a Map, and a header costs no object of its own.
  #fields: Field[] = [];
  // Raw name/value pairs as a runtime handed them over (already validated by its parser). Reads
  // scan them as they are; they are indexed only when the headers change or are listed.
  #pending: readonly string[] | undefined;
  // Whether the pending names are listed in lower case once indexed, as Lambda events' are.
  #pendingInLowerCase: boolean | undefined;

  // The constructor and #index are a test and a call, small enough to be inlined where they are
  // called from the first optimised compile on (GET / 56,303 → 55,708 instructions together).
  constructor(init?: HeadersInit | null) {
    if (init !== undefined && init !== null) this.#copy(init);
  }

  #copy(init: HeadersInit): void {
    if (init instanceof MultiValueHeaders) {
      init.#index();
      const fields = init.#fields.slice();
      for (let i = VALUES; i < fields.length; i += STRIDE) {
        const values = fields[i] as Field;
        if (typeof values !== 'string') fields[i] = values.slice();
      }
      this.#fields = fields;
    } else {
      addFields(this, init);
    }
  }

  /**
   * Builds headers from a flat `[name, value, name, value, ...]` list such as Node's
   * `rawHeaders`, without validating or indexing them until one is read. With `inLowerCase`
   * the names are listed in lower case (lookups ignore case either way), and none is
   * lower-cased unless the headers are listed or changed.
   */
  static fromRawPairs(raw: readonly string[], inLowerCase = false): MultiValueHeaders {
    const headers = new MultiValueHeaders();
    if (raw.length > 0) {
      headers.#pending = raw;
      headers.#pendingInLowerCase = inLowerCase;
    }
    return headers;
  }

  // Moves pending raw pairs into the field list.
  #index(): void {
    if (this.#pending !== undefined) this.#indexPending(this.#pending);
  }

  #indexPending(pending: readonly string[]): void {
    this.#pending = undefined;
    // Many headers (a parser allows thousands) are grouped through a map, so indexing stays
    // linear whatever a client sends.
    const positions = pending.length > 64 ? new Map<string, number>() : undefined;
    const fields = this.#fields;
    for (let i = 0; i + 1 < pending.length; i += 2) {
      const name = pending[i] as string;
      const value = pending[i + 1] as string;
      const key = name.toLowerCase();
      const at = positions !== undefined ? (positions.get(key) ?? -1) : this.#find(key);
      if (at === -1) positions?.set(key, fields.length);
      this.#append(at, this.#pendingInLowerCase === true ? key : name, key, value);
    }
  }

  // Adds `value` to the field at `at`, or as a new field when `at` is -1.
  #append(at: number, name: string, key: string, value: string): void {
    const fields = this.#fields;
    if (at === -1) {
      fields.push(name, key, value);
      return;
    }
    const values = fields[at + VALUES] as Field;
    if (typeof values === 'string') fields[at + VALUES] = [values, value];
    else values.push(value);
  }

  // The position of `key`'s field, or -1.
  #find(key: string): number {
    const fields = this.#fields;
    for (let i = 0; i < fields.length; i += STRIDE) if (fields[i + KEY] === key) return i;
    return -1;
  }

  /** The first value of `name`, or `undefined`. */
  get(name: string): string | undefined {
    const key = asciiKey(name);
    return key === undefined ? undefined : this.#getLower(key);
  }

  /**
   * `get` for a name already in lower case and plain ASCII, as the library's own lookups are.
   *
   * @internal
   */
  static getLower(headers: MultiValueHeaders, key: string): string | undefined {
    return headers.#getLower(key);
  }

  /**
   * Every line of the list-valued field `key` (lower case, plain ASCII) as one value, joined
   * with ", " as RFC 9110 §5.3 allows: `Accept: a` and `Accept: b` mean `Accept: a, b`, as a
   * Fetch runtime already hands them over. `undefined` when absent.
   *
   * @internal
   */
  static getList(headers: MultiValueHeaders, key: string): string | undefined {
    const pending = headers.#pending;
    if (pending !== undefined) return joinPending(pending, key);
    const at = headers.#find(key);
    if (at === -1) return undefined;
    const values = headers.#fields[at + VALUES] as Field;
    return typeof values === 'string' ? values : values.join(', ');
  }

  // `key` is in lower case and plain ASCII.
  #getLower(key: string): string | undefined {
    const pending = this.#pending;
    if (pending !== undefined) {
      const at = findPending(pending, key, 0);
      return at === -1 ? undefined : pending[at + 1];
    }
    const at = this.#find(key);
    if (at === -1) return undefined;
    const values = this.#fields[at + VALUES] as Field;
    return typeof values === 'string' ? values : values[0];
  }

  /** Every value of `name` in the order received (empty when absent). */
  getAll(name: string): string[] {
    const key = asciiKey(name);
    if (key === undefined) return [];
    const pending = this.#pending;
    if (pending !== undefined) {
      const out: string[] = [];
      for (
        let at = findPending(pending, key, 0);
        at !== -1;
        at = findPending(pending, key, at + 2)
      ) {
        out.push(pending[at + 1] as string);
      }
      return out;
    }
    const at = this.#find(key);
    if (at === -1) return [];
    const values = this.#fields[at + VALUES] as Field;
    return typeof values === 'string' ? [values] : values.slice();
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /**
   * Whether some header name starts with `prefix` (lower case), such as `if-` for the
   * conditional headers: one pass instead of a lookup per name.
   *
   * @internal
   */
  static hasNameStartingWith(headers: MultiValueHeaders, prefix: string): boolean {
    const pending = headers.#pending;
    if (pending !== undefined) {
      // Names whose first letter differs, whatever its case, are passed over at once (241
      // instructions fewer per Lambda REST GET event with eight headers, bench/RESULTS.md).
      const first = prefix.charCodeAt(0);
      for (let i = 0; i + 1 < pending.length; i += 2) {
        const name = pending[i] as string;
        if ((name.charCodeAt(0) | 0x20) === first && startsWithLower(name, prefix)) return true;
      }
      return false;
    }
    const fields = headers.#fields;
    for (let i = 0; i < fields.length; i += STRIDE) {
      if ((fields[i + KEY] as string).startsWith(prefix)) return true;
    }
    return false;
  }

  /** Replaces every value of `name`. */
  set(name: string, value: string | number | readonly string[]): this {
    checkName(name);
    if (Array.isArray(value)) {
      const values = value.map((item: string) => checkValue(name, item));
      if (values.length === 0) this.delete(name);
      else
        this.#put(name, name.toLowerCase(), values.length === 1 ? (values[0] as string) : values);
    } else {
      this.#put(name, name.toLowerCase(), checkValue(name, String(value)));
    }
    return this;
  }

  #put(name: string, key: string, values: Field): void {
    this.#index();
    const at = this.#find(key);
    if (at === -1) this.#fields.push(name, key, values);
    else this.#fields[at + VALUES] = values;
  }

  /**
   * Replaces `name` (whose lower-case form is `key`) with one value the library produced itself
   * (a length, a formatted date, a validated id): no validation.
   *
   * @internal
   */
  static setTrusted(headers: MultiValueHeaders, name: string, key: string, value: string): void {
    headers.#put(name, key, value);
  }

  /**
   * Adds `name` (whose lower-case form is `key`) with one value the library produced itself,
   * unless the headers have it already; returns whether it was added.
   *
   * @internal
   */
  static setDefault(headers: MultiValueHeaders, name: string, key: string, value: string): boolean {
    headers.#index();
    if (headers.#find(key) !== -1) return false;
    headers.#fields.push(name, key, value);
    return true;
  }

  /**
   * Frames a response whose body the adapter sends itself (RFC 9112 §6) in one pass over the
   * fields: drops Transfer-Encoding, and sets Content-Length to `length` unless it is
   * undefined; with `replace` false a Content-Length already there is kept.
   *
   * @internal
   */
  static setFraming(
    headers: MultiValueHeaders,
    length: string | undefined,
    replace: boolean,
  ): void {
    headers.#index();
    const fields = headers.#fields;
    let lengthAt = -1;
    for (let i = 0; i < fields.length; i += STRIDE) {
      const key = fields[i + KEY];
      if (key === 'transfer-encoding') {
        fields.splice(i, STRIDE);
        i -= STRIDE;
      } else if (key === 'content-length') lengthAt = i;
    }
    if (length === undefined) return;
    if (lengthAt === -1) fields.push('Content-Length', 'content-length', length);
    else if (replace) fields[lengthAt + VALUES] = length;
  }

  /** Appends a value to `name`, keeping the ones already there. */
  add(name: string, value: string | number): this {
    checkName(name);
    const checked = checkValue(name, String(value));
    const key = name.toLowerCase();
    this.#index();
    this.#append(this.#find(key), name, key, checked);
    return this;
  }

  /** Removes every value of `name`; returns whether there was one. */
  delete(name: string): boolean {
    const key = asciiKey(name);
    if (key === undefined) return false;
    this.#index();
    const at = this.#find(key);
    if (at === -1) return false;
    this.#fields.splice(at, STRIDE);
    return true;
  }

  /** The number of distinct header names. */
  get size(): number {
    this.#index();
    return this.#fields.length / STRIDE;
  }

  /** Every (name, value) pair, one per value, names in their first-seen casing. */
  *[Symbol.iterator](): IterableIterator<[string, string]> {
    this.#index();
    const fields = this.#fields.slice();
    for (let i = 0; i < fields.length; i += STRIDE) {
      const name = fields[i + NAME] as string;
      const values = fields[i + VALUES] as Field;
      if (typeof values === 'string') yield [name, values];
      else for (const value of values.slice()) yield [name, value];
    }
  }

  entries(): IterableIterator<[string, string]> {
    return this[Symbol.iterator]();
  }

  /** Distinct header names in their first-seen casing. */
  *names(): IterableIterator<string> {
    this.#index();
    const fields = this.#fields.slice();
    for (let i = 0; i < fields.length; i += STRIDE) yield fields[i + NAME] as string;
  }

  /**
   * Calls `callback` once per distinct name with all of its values, in an array of its own: one
   * the caller keeps or changes never changes the headers.
   */
  forEachName(callback: (values: readonly string[], name: string) => void): void {
    this.#index();
    const fields = this.#fields.slice();
    for (let i = 0; i < fields.length; i += STRIDE) {
      const values = fields[i + VALUES] as Field;
      callback(typeof values === 'string' ? [values] : values.slice(), fields[i + NAME] as string);
    }
  }

  /**
   * Calls `visit` once per distinct name with its lower-case key and a fresh array of its values,
   * which `visit` may keep. `visit` must not change the headers.
   *
   * @internal
   */
  static forEachField(
    headers: MultiValueHeaders,
    visit: (name: string, key: string, values: string[]) => void,
  ): void {
    headers.#index();
    const fields = headers.#fields;
    for (let i = 0; i < fields.length; i += STRIDE) {
      const values = fields[i + VALUES] as Field;
      const fresh = typeof values === 'string' ? [values] : values.slice();
      visit(fields[i + NAME] as string, fields[i + KEY] as string, fresh);
    }
  }

  /**
   * Appends every (name, value) pair to `out` as `name, value, name, value, ...`, the flat form
   * Node's `writeHead` takes, with names in lower case (HTTP/2 and the Fetch API's `Headers`
   * write them so too; Node lower-cases every name it inspects, which costs less when there is
   * nothing to change).
   *
   * @internal
   */
  static flattenInto(headers: MultiValueHeaders, out: string[]): string[] {
    headers.#index();
    const fields = headers.#fields;
    for (let i = 0; i < fields.length; i += STRIDE) {
      const name = fields[i + KEY] as string;
      const values = fields[i + VALUES] as Field;
      if (typeof values === 'string') out.push(name, values);
      else for (const value of values) out.push(name, value);
    }
    return out;
  }

  // One entry per distinct name, keyed by the name's `slot` (NAME or KEY) and valued by `pick`.
  // The object inherits nothing: a header named `__proto__` or `constructor` is an entry like
  // any other.
  #record<T>(slot: number, pick: (values: Field) => T): Record<string, T> {
    this.#index();
    const fields = this.#fields;
    const out = new DataRecord<T>();
    for (let i = 0; i < fields.length; i += STRIDE) {
      out[fields[i + slot] as string] = pick(fields[i + VALUES] as Field);
    }
    return out;
  }

  /** The first value of each header, keyed by the first-seen casing; inherits nothing. */
  toDict(): Record<string, string> {
    return this.#record(
      NAME,
      (values) => (typeof values === 'string' ? values : values[0]) as string,
    );
  }

  /** Every value of each header, keyed by the first-seen casing; inherits nothing. */
  toMultiDict(): Record<string, string[]> {
    return this.#record(NAME, (values) => (typeof values === 'string' ? [values] : values.slice()));
  }

  /**
   * What `JSON.stringify` (and so a logger such as pino) writes: lower-case names, as Node's
   * `request.headers` has them and redaction paths (`headers.authorization`) expect, each with
   * its value, or every value in order when the field came on several lines.
   */
  toJSON(): Record<string, string | string[]> {
    return this.#record(KEY, (values) => (typeof values === 'string' ? values : values.slice()));
  }

  /** A copy that can be changed without touching this one. */
  clone(): MultiValueHeaders {
    return new MultiValueHeaders(this);
  }
}
