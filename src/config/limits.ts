/**
 * The size limit of resolved values. Interpolations can double a value at every step
 * (`a1: ${a0}${a0}`, `a2: ${a1}${a1}`, ...), so thirty short lines could ask for a gigabyte; every
 * value an interpolation produces is measured against a limit instead, before it is copied.
 */

import type { JsonValue } from './json.js';

/** The default of `maxValueBytes`: 1 MiB. */
export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

/** Checks a `maxValueBytes` option: a number, zero or more (`Infinity` turns the limit off). */
export function checkedLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_MAX_VALUE_BYTES;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) {
    throw new TypeError(
      `maxValueBytes must be a number of bytes, zero or more (got ${String(limit)})`,
    );
  }
  return limit;
}

/**
 * What a value counts for against the limit: the UTF-8 bytes of a string, the length of the
 * JSON text of any other scalar, and for a list or map the sum of its parts (keys counted as
 * strings) plus one per item or entry and two for the brackets: close to its size as JSON.
 * Counting stops as soon as the total passes `limit`, so measuring costs at most about `limit`.
 */
export function valueSize(value: JsonValue, limit: number): number {
  let size = 0;
  const pending: JsonValue[] = [value];
  while (pending.length > 0 && size <= limit) {
    const item = pending.pop()!;
    if (typeof item === 'string') {
      // A string's UTF-8 form is never shorter than its UTF-16 length: no need to encode it.
      size += item.length > limit ? item.length : Buffer.byteLength(item);
    } else if (typeof item !== 'object' || item === null) {
      size += String(item).length;
    } else if (Array.isArray(item)) {
      size += 2 + item.length;
      for (const element of item) pending.push(element);
    } else {
      size += 2;
      for (const key of Object.keys(item)) {
        size += Buffer.byteLength(key) + 1;
        pending.push(item[key]!);
      }
    }
  }
  return size;
}
