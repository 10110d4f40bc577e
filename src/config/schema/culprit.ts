/**
 * Where in a schema the keyword is that Ajv refused while compiling. Ajv's compile errors (a
 * `$ref` it cannot resolve, a `pattern` that is not a regular expression) carry no place in
 * the schema, so the schema is searched for the keyword that fits the error; the caller turns
 * the JSON pointer into a line and column as it does for other schema errors.
 */

import { MissingRefError } from 'ajv';
import { isSchemaObject, pointerStateAfter } from './walk.js';

/** Keywords whose value is a reference Ajv resolves while compiling. */
const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];

/**
 * A JSON pointer to the keyword behind a compile error of `definition`, or `undefined` when the
 * error is of another kind or its keyword is not in `definition` (it may be in a schema given
 * as a reference).
 */
export function compileErrorPointer(definition: unknown, error: unknown): string | undefined {
  if (error instanceof MissingRefError) {
    // Ajv keeps only the resolved URI; the reference as written is in the message.
    const written = /^can't resolve reference (.*) from id /s.exec(error.message)?.[1];
    if (written === undefined) return undefined;
    return find(definition, (schema) => {
      const keyword = REFERENCES.find((name) => schema[name] === written);
      return keyword === undefined ? undefined : [keyword];
    });
  }
  if (error instanceof SyntaxError) {
    // Ajv compiles `pattern` and `patternProperties` with the `u` flag (its `unicodeRegExp`
    // default), so a pattern is bad when that fails here too.
    return find(definition, (schema) => {
      if (typeof schema.pattern === 'string' && !compiles(schema.pattern)) return ['pattern'];
      if (isSchemaObject(schema.patternProperties)) {
        const bad = Object.keys(schema.patternProperties).find((pattern) => !compiles(pattern));
        if (bad !== undefined) return ['patternProperties', bad];
      }
      return undefined;
    });
  }
  return undefined;
}

/**
 * The first `pattern` or `patternProperties` name that is not a regular expression, with why.
 * Ajv compiles a `patternProperties` name only when its subschema can fail (not for `{}`), so
 * a bad one would otherwise surface later, in `validateRaw` only.
 */
export function badPattern(definition: unknown): { pointer: string; reason: string } | undefined {
  let reason = '';
  const check = (pattern: string): boolean => {
    try {
      new RegExp(pattern, 'u');
      return true;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      return false;
    }
  };
  const pointer = find(definition, (schema) => {
    if (typeof schema.pattern === 'string' && !check(schema.pattern)) return ['pattern'];
    if (isSchemaObject(schema.patternProperties)) {
      const bad = Object.keys(schema.patternProperties).find((pattern) => !check(pattern));
      if (bad !== undefined) return ['patternProperties', bad];
    }
    return undefined;
  });
  return pointer === undefined ? undefined : { pointer, reason };
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The pointer to the first place `match` names, visiting subschemas depth first in the order
 * they are written; data keywords (`enum`, `default`, ...) are not searched, since an object
 * there is not a schema.
 */
function find(
  definition: unknown,
  match: (schema: Record<string, unknown>) => readonly string[] | undefined,
): string | undefined {
  const visit = (
    value: unknown,
    state: ReturnType<typeof pointerStateAfter>,
    path: readonly string[],
  ): string[] | undefined => {
    if (state === 'verbatim') return undefined;
    if (state === 'member' || (state === 'items' && Array.isArray(value))) {
      if (typeof value !== 'object' || value === null) return undefined;
      for (const [key, member] of Object.entries(value)) {
        const found = visit(member, 'schema', [...path, key]);
        if (found) return found;
      }
      return undefined;
    }
    if (!isSchemaObject(value)) return undefined;
    const here = match(value);
    if (here) return [...path, ...here];
    for (const [keyword, subschema] of Object.entries(value)) {
      const found = visit(subschema, pointerStateAfter(keyword), [...path, keyword]);
      if (found) return found;
    }
    return undefined;
  };
  const segments = visit(definition, 'schema', []);
  // RFC 6901 §3: `~` and `/` in a token are written `~0` and `~1`.
  return segments
    ?.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}
