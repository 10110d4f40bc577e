/**
 * The parameters a query, headers or path validator documents: the properties its JSON Schema
 * names, through the unions and intersections a schema library writes for `z.union()`,
 * `z.discriminatedUnion()` and `z.intersection()` (`anyOf`, `oneOf`, `allOf`).
 */
import type { JsonSchema } from './types.js';

/** One property a query, headers or path schema names: its name, schema, and whether required. */
export type Property = [name: string, schema: JsonSchema, required: boolean];

/**
 * The properties of an object schema, or of a union's members (`anyOf`, `oneOf`: a property
 * any member names, required when every member requires it) or an intersection's (`allOf`:
 * required when any requires it). A property several members name with different schemas
 * documents as `anyOf` (a union) or `allOf` (an intersection) of them. `undefined`: the schema
 * names no properties at all (a record, a string).
 */
export function objectProperties(
  schema: JsonSchema,
  resolve: (schema: JsonSchema) => JsonSchema,
  depth = 0,
): Property[] | undefined {
  const resolved = resolve(schema);
  const members = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((keyword) =>
    Array.isArray(resolved[keyword]) ? [[keyword, resolved[keyword] as JsonSchema[]] as const] : [],
  );
  const own = ownProperties(resolved);
  // Deeper than a few levels is no schema a query was ever written with.
  if (members.length === 0 || depth > 4) return own;
  let properties = own;
  for (const [keyword, list] of members) {
    const each = list.map((member) => objectProperties(member, resolve, depth + 1));
    if (each.every((found) => found === undefined)) continue;
    const merged = keyword === 'allOf' ? intersect(each) : unite(each);
    properties = properties === undefined ? merged : intersect([properties, merged]);
  }
  return properties;
}

function ownProperties(schema: JsonSchema): Property[] | undefined {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, property]) => [
    name,
    property,
    required.includes(name),
  ]);
}

/** A union's properties: any member's, required when every member requires it. */
function unite(members: readonly (Property[] | undefined)[]): Property[] {
  const merged = merge(members, 'anyOf');
  return merged.map(([name, schema]) => [
    name,
    schema,
    members.every((member) => member?.some(([key, , required]) => key === name && required)),
  ]);
}

/** An intersection's properties: every member's, required when any member requires it. */
function intersect(members: readonly (Property[] | undefined)[]): Property[] {
  const merged = merge(members, 'allOf');
  return merged.map(([name, schema]) => [
    name,
    schema,
    members.some((member) => member?.some(([key, , required]) => key === name && required)),
  ]);
}

/** Each property once, in the order the members name them, its distinct schemas combined. */
function merge(
  members: readonly (Property[] | undefined)[],
  combine: 'anyOf' | 'allOf',
): [string, JsonSchema][] {
  const schemas = new Map<string, JsonSchema[]>();
  for (const [name, schema] of members.flatMap((member) => member ?? [])) {
    const known = schemas.get(name) ?? [];
    const text = JSON.stringify(schema);
    if (!known.some((other) => JSON.stringify(other) === text)) known.push(schema);
    schemas.set(name, known);
  }
  return [...schemas].map(([name, list]) => [
    name,
    list.length === 1 ? (list[0] as JsonSchema) : { [combine]: list },
  ]);
}
