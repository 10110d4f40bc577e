/**
 * The size limits of resolved values. Interpolations can double a value at every step
 * (`a1: ${a0}${a0}`, `a2: ${a1}${a1}`, ...), so thirty short lines could ask for a gigabyte; every
 * value an interpolation produces is measured against a limit instead, before it is copied, and
 * so is the sum of them all.
 */

import type { JsonValue } from './json.js';

/**
 * The most values a document may expand to: YAML aliases and merge keys, and objects that a
 * value given to `Config.fromObject` holds in several places, counted once per place.
 */
export const MAX_DOCUMENT_VALUES = 1_000_000;

/**
 * The most bytes read from a configuration file (`Config.fromYamlFile`) or a schema file
 * (`Schema.fromFile`): 4 MiB, hundreds of times a large configuration. It bounds the memory the
 * YAML parser takes (about 175 bytes per byte of dense YAML: 4 MiB takes some 700 MB and 6 s)
 * and stops a device or a pipe that never ends. Larger text can be read by the caller and given
 * to `Config.fromYaml` or `Schema.fromJson`/`fromYaml`.
 */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The default of `maxValueBytes`: 1 MiB. */
export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

/**
 * The default of `maxTotalBytes` is this many times `maxValueBytes` (16 MiB with its default).
 * Each copy stays under `maxValueBytes`, but a short document can ask for many of them
 * (`k1: ${big}`, `k2: ${big}`, ...): the total is what bounds the memory a resolution takes.
 */
export const DEFAULT_TOTAL_PER_VALUE = 16;

/** Checks a size option: a number, zero or more (`Infinity` turns the limit off). */
export function checkedLimit(limit: number | undefined, name: string, fallback: number): number {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) {
    throw new TypeError(`${name} must be a number of bytes, zero or more (got ${String(limit)})`);
  }
  return limit;
}

/** Which limit a value passed. */
export type SizeLimit = 'maxValueBytes' | 'maxTotalBytes';

/**
 * The sizes of the values one resolution produces, measured against both limits before they
 * are copied: each value against `maxValueBytes`, their sum against `maxTotalBytes`. Measuring
 * stops at `maxValueBytes`, and the sum stops the resolution at `maxTotalBytes`, so the work a
 * resolution does on copies is bounded by the limits, not by how often a value is copied.
 */
export class SizeBudget {
  #spent = 0;

  constructor(
    readonly maxValueBytes: number,
    readonly maxTotalBytes: number,
  ) {}

  /** Counts a value; returns the limit it passes, if any. */
  spend(value: JsonValue): SizeLimit | undefined {
    // Counting stops at whichever limit is nearer; what it counted is never more than the size.
    const size = valueSize(value, Math.min(this.maxValueBytes, this.maxTotalBytes - this.#spent));
    if (size > this.maxValueBytes) return 'maxValueBytes';
    this.#spent += size;
    return this.#spent > this.maxTotalBytes ? 'maxTotalBytes' : undefined;
  }
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

/**
 * Refuses option names `allowed` does not list: a misspelt `env` would resolve `${env:...}`
 * from the process's environment instead of the one given. `what` says where they were given.
 */
export function checkOptionNames(what: string, options: object, allowed: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (!allowed.includes(name)) {
      throw new TypeError(
        `${what}: unknown option ${JSON.stringify(name)}; the options are ${allowed.join(', ')}`,
      );
    }
  }
}
