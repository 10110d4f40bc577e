/**
 * Coercion of interpolated text to a schema's scalar type. Environment variables and files are
 * text, so `port: ${env:PORT}` could never satisfy `type: integer` without it. Only text that is
 * exactly the type's JSON form is converted (`"8080"` → 8080, `"1.5"` → 1.5, `"true"` → true,
 * `"null"` → null); anything else stays text and fails validation with its real value.
 */

import { type JsonObject, type JsonValue, setOwn } from './json.js';
import type { PathSegment } from './path.js';

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The value of `text` in the first of `types` whose JSON form it is, or `undefined`. */
export function coerceText(text: string, types: readonly string[]): JsonValue | undefined {
  for (const type of types) {
    if (type === 'integer' && INTEGER.test(text)) {
      const value = Number(text);
      // Beyond 2^53 the number would not be the one written.
      if (Number.isSafeInteger(value)) return value;
    } else if (type === 'number' && NUMBER.test(text)) {
      const value = Number(text);
      if (Number.isFinite(value)) return value;
    } else if (type === 'boolean' && (text === 'true' || text === 'false')) {
      return text === 'true';
    } else if (type === 'null' && text === 'null') {
      return null;
    }
  }
  return undefined;
}

/** The JSON Pointer of a path, as Ajv reports instance paths. */
export function toPointer(segments: readonly PathSegment[]): string {
  return segments
    .map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}

/** Replaces the value at `segments` (which exists); returns the new root. */
export function replaceAt(
  root: JsonValue,
  segments: readonly PathSegment[],
  value: JsonValue,
): JsonValue {
  if (segments.length === 0) return value;
  let parent = root as Record<string | number, JsonValue>;
  for (const segment of segments.slice(0, -1))
    parent = parent[segment] as Record<string | number, JsonValue>;
  const last = segments[segments.length - 1]!;
  if (Array.isArray(parent)) parent[last as number] = value;
  else setOwn(parent as JsonObject, String(last), value);
  return root;
}
