/**
 * `dependencies: { __proto__: [names] }`, which Ajv skips (it leaves the name `__proto__` out of
 * a keyword's members): draft07.ts moves the list to a keyword of its own, checked here as Ajv
 * checks a list of names for any other property (draft07.ts says why).
 */
import type { Ajv, SchemaValidateFunction } from 'ajv';

/** The keyword that holds the property names `dependencies` makes `__proto__` need. */
export const PROTO_DEPENDENCIES = 'x-restmachine-proto-dependencies';

/**
 * `dependencies: { __proto__: [names] }` as Ajv checks it for other names: one error per
 * missing name, keyword `dependencies` and the same params, so messages need no change.
 */
const checkProtoDependencies: SchemaValidateFunction = (
  names: string[],
  data: Record<string, unknown>,
  parentSchema,
) => {
  if (!Object.hasOwn(data, '__proto__')) return true;
  const missing = names.filter((name) => !Object.hasOwn(data, name));
  checkProtoDependencies.errors = missing.map((missingProperty) => ({
    keyword: 'dependencies',
    message: `must have property ${missingProperty} when property __proto__ is present`,
    params: {
      property: '__proto__',
      missingProperty,
      depsCount: names.length,
      deps: names.join(', '),
    },
    parentSchema,
  }));
  return missing.length === 0;
};

/** Lets a validator read what `normalizeSchema` (draft07.ts) writes. */
export function addReachableNameKeywords(validator: Ajv): void {
  validator.addKeyword({
    keyword: PROTO_DEPENDENCIES,
    type: 'object',
    schemaType: 'array',
    errors: true,
    validate: checkProtoDependencies,
  });
}
