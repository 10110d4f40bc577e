/**
 * The schema Ajv is given: the schema as written, rewritten where Ajv 8 would read it
 * differently from its draft. Subschemas that need no change are kept as they are (same object),
 * and every object built here keeps a `__proto__` key as an own property, never a prototype.
 *
 * - Draft-06 and draft-07 (draft-07 Core §8.3): "All other properties in a `$ref` object MUST be
 *   ignored." Ajv 8 applies them, as 2019-09 and later do. Keywords that check the instance are
 *   dropped, and so is `$id`: beside `$ref` it must not change the base URI the reference is
 *   resolved against. Annotations, `definitions` and unknown keywords stay, since JSON pointers
 *   may lead into them (`default` next to `$ref` is a common way to give a referenced property a
 *   default).
 * - Every dialect: Ajv skips the name `__proto__` in `properties`, `patternProperties` and
 *   `dependencies`, so a schema naming it would check nothing. The same checks are moved to
 *   keywords Ajv does apply: an anchored pattern (`^__proto__$`), `if`/`then` for a schema
 *   dependency (`dependentSchemas` too, so that validateRaw's rewrite never meets the name as a
 *   key), and a keyword of our own (proto-dependencies.ts) for a list of property names, which reports what
 *   Ajv's `dependencies` reports for any other name (an `if`/`then` on `required` said
 *   `"b" is a required property`, keyword `required`, and draft-06 has no `if`).
 *   Ajv's `ownProperties` option (see dialects.ts) makes it look at own properties only, so
 *   `constructor` or `toString` are not found on every object.
 */

import type { Dialect } from './dialects.js';
import { PROTO_DEPENDENCIES } from './proto-dependencies.js';
import { isKnownKeyword, isSchemaObject, mapSubschemas } from './walk.js';

/** Keywords that stay beside `$ref` in draft-06/07: they check nothing, and pointers may reach them. */
const KEPT_BESIDE_REFERENCE = new Set([
  '$schema',
  '$comment',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
]);

/** The one name Ajv leaves out when it reads the members of a keyword (its `allSchemaProperties`). */
const SKIPPED_NAME = '__proto__';

/** The schema rewritten for Ajv (see the module comment); the input is not changed. */
export function normalizeSchema(schema: unknown, dialect: Dialect): unknown {
  return normalize(schema, dialect === 'draft-06' || dialect === 'draft-07');
}

function normalize(schema: unknown, draft: boolean): unknown {
  if (!isSchemaObject(schema)) return schema;
  const reference = draft && typeof schema.$ref === 'string';
  let changed = false;
  const entries: [string, unknown][] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (reference && keyword !== '$ref' && !KEPT_BESIDE_REFERENCE.has(keyword)) {
      // Unknown keywords check nothing; they stay as places pointers may lead to.
      if (keyword === '$id' || isKnownKeyword(keyword)) {
        changed = true;
        continue;
      }
    }
    const normalized = mapSubschemas(keyword, value, (subschema) => normalize(subschema, draft));
    changed ||= normalized !== value;
    entries.push([keyword, normalized]);
  }
  const result = changed ? Object.fromEntries(entries) : schema;
  return withReachableNames(result);
}

/** Moves checks that Ajv would skip because of their name to keywords it applies. */
function withReachableNames(schema: Record<string, unknown>): Record<string, unknown> {
  const { properties, patternProperties, dependencies, dependentSchemas } = schema;
  const hasSkipped = (value: unknown) =>
    isSchemaObject(value) && Object.hasOwn(value, SKIPPED_NAME);
  if (
    !hasSkipped(properties) &&
    !hasSkipped(patternProperties) &&
    !hasSkipped(dependencies) &&
    !hasSkipped(dependentSchemas)
  ) {
    return schema;
  }
  const rewritten = Object.fromEntries(Object.entries(schema));
  const patterns = isSchemaObject(patternProperties) ? without(patternProperties) : {};
  const addPattern = (pattern: string, subschema: unknown) => {
    const existing = Object.hasOwn(patterns, pattern) ? patterns[pattern] : undefined;
    patterns[pattern] = existing === undefined ? subschema : { allOf: [existing, subschema] };
  };
  if (hasSkipped(patternProperties)) {
    // The same regular expression (ECMA-262, as draft-07 Validation §4.3 asks) under another key.
    addPattern(`(?:${SKIPPED_NAME})`, (patternProperties as Record<string, unknown>)[SKIPPED_NAME]);
  }
  if (hasSkipped(properties)) {
    const members = properties as Record<string, unknown>;
    rewritten.properties = without(members);
    addPattern(`^${SKIPPED_NAME}$`, members[SKIPPED_NAME]);
  }
  if (Object.keys(patterns).length > 0) rewritten.patternProperties = patterns;
  const conditions: unknown[] = [];
  for (const keyword of ['dependencies', 'dependentSchemas'] as const) {
    const members = schema[keyword];
    if (!hasSkipped(members)) continue;
    const map = members as Record<string, unknown>;
    rewritten[keyword] = without(map);
    const dependency = map[SKIPPED_NAME];
    if (Array.isArray(dependency)) {
      rewritten[PROTO_DEPENDENCIES] = dependency;
      continue;
    }
    conditions.push({
      if: { required: [SKIPPED_NAME] },
      // biome-ignore lint/suspicious/noThenProperty: "then" is the JSON Schema keyword here.
      then: dependency,
    });
  }
  if (conditions.length > 0) {
    rewritten.allOf = [...(Array.isArray(schema.allOf) ? schema.allOf : []), ...conditions];
  }
  return rewritten;
}

/** A copy of a map without the skipped name. */
function without(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).filter(([name]) => name !== SKIPPED_NAME));
}
