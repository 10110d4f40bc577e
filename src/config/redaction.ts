/**
 * Values that came from `${env:...}` or `${file:...}` are often secrets (passwords, tokens), and
 * messages end up in logs. Such a value, or any text a part of which came from one, is shown in
 * messages and in `errors[].value` as `<from env:NAME>` or `<from file:PATH>` (the path as
 * written in the expression), never as itself. Values written in the configuration, defaults
 * included, are shown as they are.
 */

import type { JsonValue } from './json.js';
import type { PathSegment } from './path.js';

/** A place in a resolved value whose text came, wholly or in part, from these sources. */
export interface Secret {
  /** The place, relative to the value it was found in. */
  readonly path: readonly PathSegment[];
  /** Where the text came from, in order of first use: `env:DB_PASSWORD`, `file:secrets/db.txt`. */
  readonly sources: readonly string[];
}

/** Stands for a secret in the values messages print; prints as `<from env:NAME>`. */
export class Redacted {
  constructor(readonly sources: readonly string[]) {}

  toString(): string {
    return `<from ${this.sources.join(', ')}>`;
  }
}

/** The sources of every secret, each once, in order. */
export function sourcesOf(secrets: readonly Secret[]): string[] {
  const sources = new Set<string>();
  for (const secret of secrets) for (const source of secret.sources) sources.add(source);
  return [...sources];
}

/**
 * `value` with each secret replaced by a {@link Redacted}. Only the lists and maps on the way to
 * a secret are copied; `value` itself is left as it is.
 */
export function redact(value: JsonValue, secrets: readonly Secret[]): unknown {
  let root: unknown = value;
  const copies = new Set<object>();
  const copied = (container: object): Record<PathSegment, unknown> => {
    if (copies.has(container)) return container as Record<PathSegment, unknown>;
    // Spreading defines own properties, so a "__proto__" key stays a key.
    const copy = Array.isArray(container) ? [...container] : { ...container };
    copies.add(copy);
    return copy as Record<PathSegment, unknown>;
  };
  for (const { path, sources } of secrets) {
    const stand = new Redacted(sources);
    if (path.length === 0) {
      root = stand;
      continue;
    }
    if (typeof root !== 'object' || root === null || root instanceof Redacted) continue;
    root = copied(root);
    let parent = root as Record<PathSegment, unknown>;
    for (const [index, segment] of path.entries()) {
      if (!Object.hasOwn(parent, segment)) break;
      if (index === path.length - 1) {
        define(parent, segment, stand);
        break;
      }
      const child = parent[segment];
      if (typeof child !== 'object' || child === null || child instanceof Redacted) break;
      const copy = copied(child);
      define(parent, segment, copy);
      parent = copy;
    }
  }
  return root;
}

/** A printed-form value made plain again for `errors[].value`: each {@link Redacted} as its text. */
export function redactedText(value: unknown): unknown {
  if (value instanceof Redacted) return value.toString();
  if (Array.isArray(value)) return value.map(redactedText);
  if (typeof value !== 'object' || value === null) return value;
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    define(plain, key, redactedText((value as Record<string, unknown>)[key]));
  }
  return plain;
}

/** Defines an own property, so that a "__proto__" key stays a key and never sets a prototype. */
function define(target: object, key: PathSegment, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
