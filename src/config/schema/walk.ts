/** Rewriting a schema's subschemas, for the few places that need a schema changed before Ajv sees it. */

/** Keywords whose value is one subschema. */
const SCHEMA_VALUED = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'contentSchema',
  'else',
  'if',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
]);

/**
 * Keywords whose value is data, not a subschema. A keyword in none of these lists is unknown to
 * the validator: its value is ignored unless a `$ref` points into it, so an object there is
 * treated as a schema (documents like `{ "integer": { "type": "integer" } }` are made only to be
 * pointed into).
 */
const DATA_KEYWORDS = new Set([
  '$anchor',
  '$comment',
  '$dynamicAnchor',
  '$dynamicRef',
  '$id',
  '$recursiveAnchor',
  '$recursiveRef',
  '$ref',
  '$schema',
  '$vocabulary',
  'const',
  'contentEncoding',
  'contentMediaType',
  'default',
  'deprecated',
  'dependentRequired',
  'description',
  'enum',
  'examples',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'format',
  'maxContains',
  'maximum',
  'maxItems',
  'maxLength',
  'maxProperties',
  'minContains',
  'minimum',
  'minItems',
  'minLength',
  'minProperties',
  'multipleOf',
  'pattern',
  'readOnly',
  'required',
  'title',
  'type',
  'uniqueItems',
  'writeOnly',
]);

/** True for keywords the validator acts on or reads (as opposed to unknown ones). */
export function isKnownKeyword(keyword: string): boolean {
  return (
    DATA_KEYWORDS.has(keyword) ||
    SCHEMA_VALUED.has(keyword) ||
    SCHEMA_LISTS.has(keyword) ||
    SCHEMA_MAPS.has(keyword) ||
    keyword === 'items'
  );
}

export function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rewrites every object subschema bottom-up: `rewrite` receives a copy of each subschema whose
 * own subschemas are already rewritten. Boolean schemas are left alone. The input is not changed.
 */
export function rewriteSchema(
  schema: unknown,
  rewrite: (copy: Record<string, unknown>, original: Record<string, unknown>) => unknown,
): unknown {
  if (!isSchemaObject(schema)) return schema;
  const sub = (value: unknown) => rewriteSchema(value, rewrite);
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_VALUED.has(keyword)) {
      copy[keyword] = sub(value);
    } else if (keyword === 'items') {
      copy[keyword] = Array.isArray(value) ? value.map(sub) : sub(value);
    } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
      copy[keyword] = value.map(sub);
    } else if (SCHEMA_MAPS.has(keyword) && isSchemaObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, subschema] of Object.entries(value)) {
        // `dependencies` may also hold lists of property names.
        map[name] = Array.isArray(subschema) ? subschema : sub(subschema);
      }
      copy[keyword] = map;
    } else if (!isKnownKeyword(keyword) && isSchemaObject(value)) {
      copy[keyword] = sub(value);
    } else {
      copy[keyword] = value;
    }
  }
  return rewrite(copy, schema);
}

/** What the keyword after `keyword` in a JSON pointer into a schema is. */
export function pointerStateAfter(keyword: string): 'schema' | 'member' | 'items' | 'verbatim' {
  if (keyword === 'items') return 'items';
  if (SCHEMA_VALUED.has(keyword) || !isKnownKeyword(keyword)) return 'schema';
  if (SCHEMA_LISTS.has(keyword) || SCHEMA_MAPS.has(keyword)) return 'member';
  return 'verbatim';
}

/**
 * `value`, the value of `keyword` in a schema, with `each` applied to the subschemas it holds
 * (itself, the items of a list, the members of a map), top-down; the same value when `each`
 * changed none. Lists of property names (`dependencies` members) stay as they are.
 */
export function mapSubschemas(
  keyword: string,
  value: unknown,
  each: (subschema: unknown) => unknown,
): unknown {
  const state = pointerStateAfter(keyword);
  if (state === 'verbatim') return value;
  if (state === 'schema') return each(value);
  if (Array.isArray(value)) {
    const items = value.map(each);
    return items.every((item, index) => item === value[index]) ? value : items;
  }
  if (state === 'items') return each(value);
  if (!isSchemaObject(value)) return value;
  let changed = false;
  const members = Object.entries(value).map(([name, member]): [string, unknown] => {
    const mapped = Array.isArray(member) ? member : each(member);
    changed ||= mapped !== member;
    return [name, mapped];
  });
  // Object.fromEntries keeps a `__proto__` member as an own property.
  return changed ? Object.fromEntries(members) : value;
}

/** Keywords that only annotate or hold schemas: they never check the instance themselves. */
const ANNOTATIONS = new Set([
  '$id',
  '$comment',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
]);

/**
 * Draft-06 and draft-07 say every keyword next to `$ref` is ignored; Ajv 8 applies them, as
 * later drafts do. Dropping them gives the draft's behaviour (annotations stay: `default` next
 * to `$ref` is a common way to give a referenced property a default).
 */
export function ignoreReferenceSiblings(schema: unknown): unknown {
  return rewriteSchema(schema, (copy) => {
    if (typeof copy.$ref !== 'string') return copy;
    const kept: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(copy)) {
      if (keyword === '$ref' || ANNOTATIONS.has(keyword)) kept[keyword] = value;
    }
    return kept;
  });
}
