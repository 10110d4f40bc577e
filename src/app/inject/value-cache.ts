/**
 * Where injected values are kept (docs/application.md, "Dependency injection by name"): a
 * request's values in its state, session values in the application's cache, each made once,
 * and a failure kept like a value, so that no reader runs its producer again.
 */

import { isThenable } from '../thenable.js';
import type { Binding } from './bindings.js';

// The keys of session values, per session cache (an application's): see sessionKey().
const SESSION_KEYS = new WeakMap<
  Map<unknown, unknown>,
  Map<Binding, { resolution: readonly (Binding | undefined)[] }[]>
>();

/** A producer's synchronous throw, kept so that later readers see it without running it again. */
class Failure {
  constructor(readonly error: unknown) {}
}

/** `value` as a reader gets it: a kept failure is thrown again. */
export function recall(value: unknown): unknown {
  if (value instanceof Failure) throw value.error;
  return value;
}

/**
 * The value cached under `key`, produced on first use. A promise is replaced by its value once
 * settled, so later readers need no await. A failure (a throw or a rejection) stays cached in a
 * request, so every reader in it sees the same one and the producer (an authorization check, a
 * lookup) runs at most once; with `retry` (session values) the session forgets it, so a later
 * request tries again, and `remember` keeps it for the rest of this request.
 */
export function cached<K>(
  cache: Map<K, unknown>,
  key: K,
  produce: () => unknown,
  retry: boolean,
  remember?: (failed: unknown) => void,
): unknown {
  if (cache.has(key)) {
    const known = recall(cache.get(key));
    // A session value still being made for another request: if it fails, this request keeps
    // that failure too, though the session forgets it.
    if (remember !== undefined && isThenable(known)) {
      Promise.resolve(known).then(undefined, () => remember(known));
    }
    return known;
  }
  let value: unknown;
  try {
    value = produce();
  } catch (error) {
    if (retry) remember?.(new Failure(error));
    else cache.set(key, new Failure(error));
    throw error;
  }
  cache.set(key, value);
  if (isThenable(value)) {
    Promise.resolve(value).then(
      (resolved) => cache.set(key, resolved),
      () => {
        if (retry && cache.get(key) === value) {
          cache.delete(key);
          remember?.(value);
        }
      },
    );
  }
  return value;
}

/**
 * The key a session value made from `binding` is cached under in `cache`, for one way its names
 * resolve (`resolution`: the binding of each name it reaches, in name order). Scopes that
 * resolve them alike share the key, and so the value.
 */
export function sessionKey(
  cache: Map<unknown, unknown>,
  binding: Binding,
  resolution: readonly (Binding | undefined)[],
): object {
  let known = SESSION_KEYS.get(cache);
  if (known === undefined) {
    known = new Map();
    SESSION_KEYS.set(cache, known);
  }
  let keys = known.get(binding);
  if (keys === undefined) {
    keys = [];
    known.set(binding, keys);
  }
  const same = keys.find(
    (key) =>
      key.resolution.length === resolution.length &&
      key.resolution.every((other, i) => other === resolution[i]),
  );
  if (same !== undefined) return same;
  const key = { resolution };
  keys.push(key);
  return key;
}
