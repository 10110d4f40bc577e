/**
 * Values JSON cannot represent (docs/application.md, "Handler results"): `JSON.stringify` sends
 * a Map, a Set or an Error as `{}` and a function or a symbol as nothing, with a 200 that hides
 * the mistake. A handler's result, a `Response`'s body and `Response.json()` all refuse them,
 * each saying what to send instead.
 */

const HINTS: ReadonlyArray<readonly [Function, string, string]> = [
  [Map, 'a Map', 'return Object.fromEntries(map) or [...map]'],
  [Set, 'a Set', 'return [...set]'],
  [WeakMap, 'a WeakMap', 'return a plain object'],
  [WeakSet, 'a WeakSet', 'return a plain object or an array'],
  [Promise, 'a Promise', 'await it before putting it in a tuple'],
  [Error, 'an Error', 'throw it (an HttpError for a status of your choice) instead'],
];

/**
 * Whether `value` is plain data: a string, number or boolean, or an object or array made by a
 * literal or JSON.parse. Nearly every value is; only the others are examined further.
 */
export function isPlainData(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object': {
      if (value === null) return true;
      const prototype = Object.getPrototypeOf(value);
      return prototype === Object.prototype || prototype === Array.prototype;
    }
    default:
      return false;
  }
}

/** What `value` is and what to send instead, when JSON cannot represent it; else undefined. */
export function describeUnrepresentable(value: unknown): string | undefined {
  switch (typeof value) {
    case 'function':
      return 'a function, which JSON sends as nothing: call it, or return what it computes';
    case 'symbol':
      return 'a symbol, which JSON sends as nothing: return a string';
    case 'bigint':
      return 'a bigint, which JSON cannot encode: return String(value) or Number(value)';
    case 'object': {
      if (isPlainData(value)) return undefined;
      // JSON sends what a `toJSON()` returns, whatever the object is (a Map subclass, an error).
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      for (const [type, name, hint] of HINTS) {
        if (value instanceof type) return `${name}, which JSON sends as {}: ${hint}`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
