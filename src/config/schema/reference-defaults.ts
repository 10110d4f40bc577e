/**
 * `applyDefaults` and a `default` written in the definition a `$ref` names.
 *
 * Ajv's `useDefaults` fills a missing property from the `default` of the subschema written
 * under `properties` (or in a tuple `items`) itself. `port: { $ref: '#/definitions/port' }` has
 * none there, so `definitions: { port: { type: integer, default: 8080 } }` was never applied,
 * though the definition is the subschema that applies to the property (draft-07 Core §8.3;
 * Validation §10.2 makes `default` an annotation of whatever subschema holds it). For the
 * defaults validator only, each subschema whose `$ref` is a JSON pointer into the same document
 * (`#`, `#/...`) and that has no `default` of its own is given its target's, following a chain
 * of such `$ref`s. A `default` beside the `$ref` still wins.
 *
 * Left alone, because Ajv would resolve them against another base URI than the one this walk
 * knows: `$ref`s inside a subschema with its own `$id`, pointers that pass through an `$id`, and
 * `#anchor` or other documents' URIs.
 */

import { isSchemaObject, mapSubschemas } from './walk.js';

/** `schema` with referenced defaults copied beside their `$ref`s; the input is not changed. */
export function withReferencedDefaults(schema: unknown): unknown {
  if (!isSchemaObject(schema)) return schema;
  return rewrite(schema, schema);
}

function rewrite(schema: unknown, root: Record<string, unknown>): unknown {
  // Inside another base URI, `#/...` means another document: nothing below is touched.
  if (!isSchemaObject(schema) || (schema !== root && typeof schema.$id === 'string')) {
    return schema;
  }
  let changed = false;
  const entries = Object.entries(schema).map(([keyword, value]): [string, unknown] => {
    const rewritten = mapSubschemas(keyword, value, (subschema) => rewrite(subschema, root));
    changed ||= rewritten !== value;
    return [keyword, rewritten];
  });
  const reference = schema.$ref;
  const inherited =
    typeof reference === 'string' && !Object.hasOwn(schema, 'default')
      ? referencedDefault(root, reference)
      : undefined;
  if (inherited !== undefined) {
    entries.push(['default', inherited.value]);
    changed = true;
  }
  // Object.fromEntries keeps a `__proto__` key as an own property.
  return changed ? Object.fromEntries(entries) : schema;
}

/** The `default` the chain of `$ref`s from `reference` reaches first, if any. */
function referencedDefault(
  root: Record<string, unknown>,
  reference: string,
): { value: unknown } | undefined {
  const seen = new Set<string>();
  for (let next: unknown = reference; typeof next === 'string' && !seen.has(next); ) {
    seen.add(next);
    const target = pointerTarget(root, next);
    if (!isSchemaObject(target)) return undefined;
    if (Object.hasOwn(target, 'default')) return { value: target.default };
    next = target.$ref;
  }
  return undefined;
}

/** The value a `#`-fragment JSON pointer (RFC 6901 §6) names in `root`, if no `$id` is on the way. */
function pointerTarget(root: Record<string, unknown>, reference: string): unknown {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const encoded of reference.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(encoded).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, token)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[token];
    if (isSchemaObject(current) && typeof current.$id === 'string') return undefined;
  }
  return current;
}
