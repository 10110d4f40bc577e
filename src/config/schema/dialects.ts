/**
 * JSON Schema dialects and the Ajv instance for each. Draft-07 is the default; `$schema` selects
 * draft-06, 2019-09 or 2020-12.
 *
 * The 2019-09 and 2020-12 validators are imported with the module, not when a schema first asks
 * for them: a validator is made synchronously, and the one synchronous way to load a module
 * later, `createRequire(import.meta.url)`, is one a bundler cannot follow (a bundle deployed
 * alone could not find them) and that throws where a bundler made CommonJS of this module. They
 * add about a sixth (some 10 ms unbundled) to the time `restmachine/config` takes to import.
 */

import { Ajv, type AnySchemaObject, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import addFormats from 'ajv-formats';
import { SchemaError } from '../errors.js';
import { addExtraFormats } from './formats.js';
import { useDecimalMultipleOf } from './multiple-of.js';
import { addReachableNameKeywords } from './proto-dependencies.js';

export type Dialect = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/** The validator class every dialect's Ajv extends. */
export type Validator = InstanceType<typeof Ajv>;

const DIALECTS: ReadonlyMap<string, Dialect> = new Map([
  ['json-schema.org/draft-06/schema', 'draft-06'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
]);

/**
 * The `$schema` each dialect's Ajv knows its meta-schema by. Ajv looks `$schema` up as written,
 * so a spelling {@link dialectOf} accepts with the other scheme is given to Ajv as this one.
 */
const META_SCHEMAS: Readonly<Record<Dialect, string>> = {
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

const UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  ['json-schema.org/draft-04/schema', 'draft-04'],
  ['json-schema.org/draft-03/schema', 'draft-03'],
  ['json-schema.org/schema', 'the unversioned "latest" meta-schema'],
]);

/** The dialect a schema declares with `$schema` (draft-07 when it declares none). */
export function dialectOf(schema: unknown): Dialect {
  if (typeof schema !== 'object' || schema === null || !('$schema' in schema)) return 'draft-07';
  const declared = (schema as { $schema: unknown }).$schema;
  if (typeof declared !== 'string') throw new SchemaError('"$schema" must be a string');
  const normalized = withoutSchemeAndFragment(declared) ?? '';
  const dialect = DIALECTS.get(normalized);
  if (dialect) return dialect;
  const unsupported = UNSUPPORTED.get(normalized);
  const supported = 'draft-06, draft-07 (the default), 2019-09 or 2020-12';
  if (unsupported) {
    throw new SchemaError(
      `"$schema" ${JSON.stringify(declared)} (${unsupported}) is not supported; use ${supported}`,
    );
  }
  throw new SchemaError(`unknown "$schema" ${JSON.stringify(declared)}; expected ${supported}`);
}

/** Both schemes and the empty fragment name the same meta-schema; a URI needs one of them. */
function withoutSchemeAndFragment(uri: string): string | undefined {
  return /^https?:\/\/(.*?)#?$/.exec(uri)?.[1];
}

/**
 * The schema as Ajv must be given it: a `$schema` naming a supported dialect in another
 * spelling is replaced by the one Ajv knows (a shallow copy; the input is not changed). Any
 * other value is returned as it is.
 */
export function withKnownMetaSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, '$schema')) {
    return schema;
  }
  const declared = (schema as { $schema: unknown }).$schema;
  if (typeof declared !== 'string') return schema;
  const dialect = DIALECTS.get(withoutSchemeAndFragment(declared) ?? '');
  if (dialect === undefined || declared === META_SCHEMAS[dialect]) return schema;
  // Spreading defines own properties, so a `__proto__` key stays a key.
  return { ...schema, $schema: META_SCHEMAS[dialect] };
}

export interface ValidatorOptions {
  /** Fill in `default`s for missing properties while validating. */
  readonly useDefaults?: boolean;
}

/** A fresh Ajv for a dialect, with formats and every error reported. */
export function createValidator(dialect: Dialect, options: ValidatorOptions = {}): Validator {
  const settings: Options = {
    allErrors: true,
    // Unknown keywords and formats are annotations in JSON Schema, not errors.
    strict: false,
    logger: false,
    // Errors carry the schema objects involved; messages need them (only on failure).
    verbose: true,
    useDefaults: options.useDefaults === true,
    // An instance's members are the names in it (draft-07 Validation §6.5), not those a
    // JavaScript prototype adds: `required: ["constructor"]` is not met by every object. See
    // draft07.ts for `__proto__`, which Ajv skips.
    ownProperties: true,
  };
  let validator: Validator;
  if (dialect === '2019-09') {
    validator = new Ajv2019(settings);
  } else if (dialect === '2020-12') {
    validator = new Ajv2020(settings);
  } else {
    validator = new Ajv(settings);
    if (dialect === 'draft-06') {
      validator.addMetaSchema(draft06MetaSchema as AnySchemaObject);
      // Draft-06 has no `if`/`then`/`else` (draft-07 added them): there they are unknown
      // keywords, which check nothing. Ajv's draft-07 vocabulary would apply them.
      for (const keyword of ['if', 'then', 'else']) validator.removeKeyword(keyword);
    }
  }
  addFormats.default(validator);
  addExtraFormats(validator);
  useDecimalMultipleOf(validator);
  addReachableNameKeywords(validator);
  return validator;
}
