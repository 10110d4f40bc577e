/**
 * Shared by the untrusted-name tests: the names Object.prototype carries, an arbitrary that
 * mixes them with random names, and a check that a map holds data and nothing inherited.
 */
import fc from 'fast-check';
import { expect } from 'vitest';

/** Every name Object.prototype carries: the ones a careless map inherits or lets change it. */
export const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** Names as a client might send them: prototype names mixed with ordinary ones. */
export const untrustedName = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.string({ minLength: 1, maxLength: 8 }),
);

/**
 * Checks that `map` holds exactly `expected`'s entries as own data and nothing else: each name
 * in `probes` reads as its sent value or `undefined`, never as something inherited.
 */
export function expectDataOnly(
  map: Record<string, unknown>,
  expected: ReadonlyMap<string, unknown>,
  probes: Iterable<string> = PROTOTYPE_NAMES,
): void {
  expect(Object.keys(map).sort()).toEqual([...expected.keys()].sort());
  for (const [name, value] of expected) {
    expect(Object.hasOwn(map, name), name).toBe(true);
    expect(map[name], name).toEqual(value);
  }
  for (const name of probes) {
    if (expected.has(name)) continue;
    expect(map[name], name).toBeUndefined();
  }
  const prototype = Object.getPrototypeOf(map) as object | null;
  if (prototype !== null) {
    expect(Object.getOwnPropertyNames(prototype)).toEqual([]);
    expect(Object.getPrototypeOf(prototype)).toBeNull();
  }
}
