/**
 * Which of Ajv's errors were produced while it tried the subschemas of an `anyOf`, `oneOf` or
 * `contains`: the reference implementation reports only the keyword's own error for those, while
 * an error of another schema object that applies at the same place is a violation of its own.
 *
 * Ajv pushes a keyword's branch errors right before the keyword's error, so they are the run
 * just before it; what ends the run is an error produced by a schema object the branches do not
 * reach. The schema objects are compared, not their places: an error from a `$ref`'s target
 * carries a place relative to that target (`#/anyOf/0/type` whatever refers to it), so places
 * cannot tell a recursive schema's inner `anyOf` from the outer one.
 */

import type { ErrorObject, ValidateFunction } from 'ajv';
import { isSchemaObject, mapSubschemas } from './walk.js';

/**
 * Keywords whose subschemas report errors at the place of the schema holding them: those that
 * apply to the same value, and `propertyNames`, whose errors about a name are placed at the object.
 */
const IN_PLACE = new Set([
  'propertyNames',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependencies',
  'dependentSchemas',
]);

/** Keywords whose subschemas Ajv reaches only through a `$ref`, or never applies. */
const NOT_APPLIED = new Set(['definitions', '$defs']);

/** The schema objects a keyword's branches reach: in place, and anywhere below the value. */
interface Reach {
  readonly inPlace: ReadonlySet<object>;
  readonly below: ReadonlySet<object>;
  /** A reference this module cannot follow (`$dynamicRef`, an unknown URI): anything may be reached. */
  readonly unbounded: boolean;
  /** The `$ref`s followed, as written, with their targets: for errors of `false` subschemas. */
  readonly references: ReadonlyArray<readonly [string, unknown]>;
}

type Env = ValidateFunction['schemaEnv'];

/**
 * The index of the first error produced by the branches of the summarising keyword whose error is
 * at `index` (`index` itself when they produced none). `runStarts` holds those of the keywords
 * before it.
 */
export function branchRunStart(
  errors: readonly ErrorObject[],
  index: number,
  runStarts: ReadonlyMap<number, number>,
  reachOf: (error: ErrorObject) => Reach,
): number {
  const keyword = errors[index]!;
  const reach = reachOf(keyword);
  let before = index - 1;
  while (before >= 0) {
    const earlier = errors[before]!;
    if (!producedByBranches(earlier, keyword, reach)) break;
    // A nested keyword's own run lies inside this one: step over it whole.
    before = (runStarts.get(before) ?? before) - 1;
  }
  return before + 1;
}

function producedByBranches(earlier: ErrorObject, keyword: ErrorObject, reach: Reach): boolean {
  const place = keyword.instancePath;
  const inPlace = earlier.instancePath === place;
  if (!inPlace && !earlier.instancePath.startsWith(`${place}/`)) return false;
  const schema = earlier.parentSchema;
  // The keyword's own schema object, at the keyword's own value, is where the branches start.
  if (inPlace && schema === keyword.parentSchema) return false;
  if (reach.unbounded) return true;
  if (typeof schema !== 'object' || schema === null)
    return falseSchemaInBranches(earlier, keyword, reach);
  return (inPlace ? reach.inPlace : reach.below).has(schema);
}

/**
 * An error of a `false` subschema names no schema object, only its place: under the keyword's
 * own, or inside a `$ref`'s target, where Ajv places it after the `$ref` as written when it
 * copied the target in, and from the target's root (`#/...`) when it called it.
 */
function falseSchemaInBranches(earlier: ErrorObject, keyword: ErrorObject, reach: Reach): boolean {
  const place = earlier.schemaPath.replace(/\/false schema$/, '');
  if (place.startsWith(`${keyword.schemaPath}/`)) return true;
  return reach.references.some(([written, target]) => {
    const inside = place.startsWith(`${written}/`) ? place.slice(written.length) : undefined;
    return (
      (inside !== undefined && pointAt(target, inside) === false) ||
      (place.startsWith('#/') && pointAt(target, place.slice(1)) === false)
    );
  });
}

/** The value a JSON pointer (`/properties/a`) names inside a schema. */
function pointAt(schema: unknown, pointer: string): unknown {
  let value = schema;
  for (const token of pointer.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined;
    const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Makes `reachOf`, which walks a summarising keyword's branches (following `$ref` through the
 * references Ajv resolved for `validate`) once per keyword.
 */
export function branchReach(validate: ValidateFunction | undefined): (error: ErrorObject) => Reach {
  const cache = new WeakMap<object, Reach>();
  return (error) => {
    const branches = error.schema as unknown;
    if (validate === undefined || typeof branches !== 'object' || branches === null) {
      return { inPlace: new Set(), below: new Set(), unbounded: true, references: [] };
    }
    let reach = cache.get(branches);
    if (!reach) {
      const root = validate.schemaEnv.root;
      // `contains` applies its one subschema to the items; `anyOf`/`oneOf` theirs to the value.
      const starts = Array.isArray(branches) ? branches : [branches];
      reach = walk(starts, error.keyword !== 'contains', root, root.baseId);
      cache.set(branches, reach);
    }
    return reach;
  };
}

function walk(starts: readonly unknown[], inPlace: boolean, root: Env, base: string): Reach {
  const inPlaceSet = new Set<object>();
  const below = new Set<object>();
  let unbounded = false;
  const references: Array<[string, unknown]> = [];
  const pending: Array<[unknown, boolean, Env, string]> = starts.map((start) => [
    start,
    inPlace,
    root,
    base,
  ]);
  while (pending.length > 0) {
    const [schema, here, env, outerBase] = pending.pop()!;
    if (!isSchemaObject(schema)) continue;
    const seen = here ? inPlaceSet : below;
    if (seen.has(schema)) continue;
    seen.add(schema);
    below.add(schema);
    const scope = typeof schema.$id === 'string' ? resolve(schema.$id, outerBase) : outerBase;
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === '$ref' && typeof value === 'string') {
        const target = lookUp(env, resolve(value, scope));
        if (target === undefined) unbounded = true;
        else {
          references.push([value, target.schema]);
          pending.push([target.schema, here, target.env, target.env.baseId]);
        }
      } else if (keyword === '$dynamicRef' || keyword === '$recursiveRef') {
        unbounded = true;
      } else if (!NOT_APPLIED.has(keyword)) {
        const stays = here && IN_PLACE.has(keyword);
        mapSubschemas(keyword, value, (subschema) => {
          pending.push([subschema, stays, env, scope]);
          return subschema;
        });
      }
    }
  }
  return { inPlace: inPlaceSet, below, unbounded, references };
}

/** A URI resolved as Ajv keys its references: without an empty fragment. */
function resolve(reference: string, base: string): string {
  let uri = reference;
  if (base !== '') {
    try {
      uri = new URL(reference, base).href;
    } catch {
      uri = reference;
    }
  }
  return uri.endsWith('#') ? uri.slice(0, -1) : uri;
}

/** The schema a resolved `$ref` names, and the references its own `$ref`s resolve through. */
function lookUp(env: Env, uri: string): { schema: unknown; env: Env } | undefined {
  const root = env.root;
  if (uri === '' || uri === root.baseId) return { schema: root.schema, env: root };
  const found: unknown = root.refs[uri];
  if (found === undefined) return undefined;
  if (typeof found === 'object' && found !== null && 'schema' in found && 'root' in found) {
    const target = found as Env;
    return { schema: target.schema, env: target };
  }
  return { schema: found, env };
}
