/**
 * `Schema`: a JSON Schema compiled once (with Ajv) and reusable. `schema.validate(value)` is the
 * plain entry point; `Config.validate` and `Config.validateRaw` build on the same compiled
 * validators.
 */

import { extname } from 'node:path';
import type { AnySchema, ValidateFunction } from 'ajv';
import {
  ConfigError,
  ConfigMalformedError,
  ConfigTooLargeError,
  SchemaError,
  type SchemaViolation,
  type SourcePosition,
} from './errors.js';
import { lineAndColumn, locateJsonSyntaxError } from './json.js';
import { duplicateJsonKey, jsonOffset } from './json-places.js';
import { checkOptionNames, MAX_FILE_BYTES } from './limits.js';
import { pointerToSegments } from './path.js';
import { readTextUpTo } from './read-text.js';
import { compileErrorPointer } from './schema/culprit.js';
import {
  createValidator,
  type Dialect,
  dialectOf,
  type Validator,
  withKnownMetaSchema,
} from './schema/dialects.js';
import { normalizeSchema } from './schema/draft07.js';
import { type LocatedViolation, violationsFrom } from './schema/messages.js';
import { addPlaceholderKeywords, withPlaceholders } from './schema/placeholders.js';
import { nearestNode, plainValue } from './source.js';
import { nodesFromYaml } from './yaml-source.js';

/** Options shared by every way of making a {@link Schema}. */
export interface SchemaOptions {
  /**
   * Other schemas that `$ref` may name, by URI
   * (`{ 'https://example.com/common.json': {...} }`).
   */
  readonly references?: Readonly<Record<string, unknown>>;
}

// Its names, checked against SchemaOptions by the compiler.
const SCHEMA_OPTIONS = Object.keys({ references: true } satisfies Record<
  keyof SchemaOptions,
  true
>);

/** Which compiled validator to use. */
type Mode = 'plain' | 'defaults' | 'raw';

interface SchemaState {
  readonly definition: unknown;
  readonly dialect: Dialect;
  readonly references: Readonly<Record<string, unknown>>;
  readonly validators: Map<Mode, ValidateFunction>;
  /** For raw mode: rewritten subschemas back to the schema as written. */
  readonly originals: WeakMap<object, unknown>;
  /** Where a JSON pointer into the schema is written, for errors found while compiling. */
  readonly locate: (pointer: string) => SourcePosition | undefined;
}

const states = new WeakMap<Schema, SchemaState>();

/**
 * A compiled JSON Schema (draft-07 by default; `$schema` selects draft-06, 2019-09 or 2020-12).
 *
 * @example
 * ```ts
 * const schema = Schema.fromFile('config.schema.yaml');
 * const violations = schema.validate({ database: { port: 70000 } });
 * // [{ path: 'database.port', message: '70000 is greater than the maximum of 65535', ... }]
 * ```
 */
export class Schema {
  /** The compiled validator, held directly: `validate` is the hot path. */
  readonly #validate: ValidateFunction;

  private constructor(validate: ValidateFunction) {
    this.#validate = validate;
  }

  /** A schema from JSON text; a syntax error names its line and column. */
  static fromJson(text: string, options?: SchemaOptions): Schema {
    return Schema.fromText(text, 'json', undefined, options);
  }

  /** A schema from YAML text (YAML 1.2, core schema); a syntax error names its line and column. */
  static fromYaml(text: string, options?: SchemaOptions): Schema {
    return Schema.fromText(text, 'yaml', undefined, options);
  }

  /**
   * A schema from a `.json`, `.yaml` or `.yml` file. A file longer than {@link MAX_FILE_BYTES}
   * (4 MiB) is a `TOO_LARGE` error, found without reading it whole.
   */
  static fromFile(path: string, options?: SchemaOptions): Schema {
    const extension = extname(path).toLowerCase();
    const format =
      extension === '.json'
        ? 'json'
        : extension === '.yaml' || extension === '.yml'
          ? 'yaml'
          : undefined;
    if (!format) {
      throw new SchemaError(
        `cannot tell the format of schema file ${JSON.stringify(path)}: use a .json, .yaml or .yml extension`,
      );
    }
    let text: string | undefined;
    try {
      text = readTextUpTo(path, MAX_FILE_BYTES);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SchemaError(
        code === 'ENOENT'
          ? `schema file ${JSON.stringify(path)} not found`
          : `cannot read schema file ${JSON.stringify(path)} (${code ?? String(error)})`,
      );
    }
    if (text === undefined) throw new ConfigTooLargeError(MAX_FILE_BYTES, { file: path }, 'file');
    return Schema.fromText(text, format, path, options);
  }

  /** A schema from a value already in memory (an object, or `true`/`false`). */
  static fromObject(schema: object | boolean, options?: SchemaOptions): Schema {
    return Schema.create(schema, options, () => undefined);
  }

  private static fromText(
    text: string,
    format: 'json' | 'yaml',
    file: string | undefined,
    options: SchemaOptions | undefined,
  ): Schema {
    let definition: unknown;
    if (format === 'json') {
      try {
        definition = JSON.parse(text);
      } catch {
        const { offset, reason } = locateJsonSyntaxError(text);
        throw new SchemaError(`invalid JSON: ${reason}`, { file, ...lineAndColumn(text, offset) });
      }
      // Duplicate keys are an error, as in a configuration (see json-places.ts).
      const duplicate = duplicateJsonKey(text);
      if (duplicate) {
        throw new SchemaError(`invalid JSON: duplicate key ${JSON.stringify(duplicate.key)}`, {
          file,
          ...lineAndColumn(text, duplicate.offset),
        });
      }
    } else {
      try {
        definition = plainValue(nodesFromYaml(text, file));
      } catch (error) {
        if (error instanceof ConfigMalformedError) {
          throw new SchemaError(error.reason, { file, line: error.line, column: error.column });
        }
        throw error;
      }
    }
    if (
      typeof definition !== 'boolean' &&
      (typeof definition !== 'object' || definition === null || Array.isArray(definition))
    ) {
      throw new SchemaError('a schema must be an object or a boolean', {
        file,
        line: 1,
        column: 1,
      });
    }
    // Positions are worked out only when the schema turns out to be invalid.
    const locate = (pointer: string): SourcePosition => {
      const segments = pointerToSegments(pointer, definition);
      if (format === 'json') return { file, ...lineAndColumn(text, jsonOffset(text, segments)) };
      const root = nodesFromYaml(text, file);
      const node = nearestNode(root, segments);
      const location = node.keyLocation ?? node.location;
      return { file, line: location?.line, column: location?.column };
    };
    return Schema.create(definition as object | boolean, options, locate);
  }

  private static create(
    definition: object | boolean,
    options: SchemaOptions | undefined,
    locate: (pointer: string) => SourcePosition | undefined,
  ): Schema {
    checkOptionNames('Schema', options ?? {}, SCHEMA_OPTIONS);
    let dialect: Dialect;
    try {
      dialect = dialectOf(definition);
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      throw new SchemaError(error.message, locate('/$schema'));
    }
    const state: SchemaState = {
      definition,
      dialect,
      references: options?.references ?? {},
      validators: new Map(),
      originals: new WeakMap(),
      locate,
    };
    const validator = createValidator(dialect);
    let valid: boolean;
    try {
      valid = validator.validateSchema(withKnownMetaSchema(definition) as AnySchema) as boolean;
    } catch (error) {
      // Ajv throws when it cannot find a meta-schema; dialectOf admits only those it has.
      throw new SchemaError(
        `invalid schema: ${error instanceof Error ? error.message : String(error)}`,
        locate('/$schema'),
      );
    }
    if (!valid) {
      const errors = validator.errors ?? [];
      const [first] = violationsFrom(errors, definition);
      const pointer =
        errors.find((error) => !['anyOf', 'oneOf'].includes(error.keyword))?.instancePath ??
        errors[0]?.instancePath ??
        '';
      const where = first
        ? `${first.path === '' ? '(root)' : first.path}: ${first.message}`
        : 'invalid schema';
      throw new SchemaError(`invalid schema: ${where}`, locate(pointer));
    }
    const schema = new Schema(compile(state, 'plain', validator));
    states.set(schema, state);
    return schema;
  }

  /** The dialect the schema is read as. */
  get dialect(): Dialect {
    return stateOf(this).dialect;
  }

  /** The schema as given. */
  get definition(): unknown {
    return stateOf(this).definition;
  }

  /**
   * Validates a plain value and returns every violation (an empty list when it is valid).
   * Nothing is resolved or coerced; see `Config.validate` for configurations.
   */
  validate(value: unknown): SchemaViolation[] {
    const validate = this.#validate;
    if (validate(value)) return [];
    return violationsFrom(validate.errors ?? [], value).map(toSchemaViolation);
  }
}

function toSchemaViolation({ path, message, keyword, value }: LocatedViolation): SchemaViolation {
  return { path, message, keyword, value };
}

function stateOf(schema: Schema): SchemaState {
  const state = states.get(schema);
  if (!state)
    throw new TypeError('not a Schema made by Schema.fromJson/fromYaml/fromFile/fromObject');
  return state;
}

function compile(state: SchemaState, mode: Mode, premade?: Validator): ValidateFunction {
  const cached = state.validators.get(mode);
  if (cached) return cached;
  const validator = premade ?? createValidator(state.dialect, { useDefaults: mode === 'defaults' });
  const prepare = (schema: unknown): AnySchema => {
    const normalized = withKnownMetaSchema(normalizeSchema(schema, state.dialect));
    return (
      mode === 'raw' ? withPlaceholders(normalized, state.originals) : normalized
    ) as AnySchema;
  };
  if (mode === 'raw') addPlaceholderKeywords(validator);
  try {
    for (const [uri, reference] of Object.entries(state.references)) {
      validator.addSchema(prepare(reference), uri);
    }
    const validate = validator.compile(prepare(state.definition));
    state.validators.set(mode, validate);
    return validate;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // Ajv names no place for these (an unresolvable `$ref`, a bad `pattern`): look for the
    // keyword, and name at least the file when it is not in this schema.
    const pointer = compileErrorPointer(state.definition, error);
    throw new SchemaError(
      `invalid schema: ${error instanceof Error ? error.message : String(error)}`,
      pointer === undefined ? { file: state.locate('')?.file } : state.locate(pointer),
    );
  }
}

/** The compiled validator behind a schema, for `Config` (not part of the public API). */
export function validatorFor(
  schema: Schema,
  mode: Mode,
): {
  validate: ValidateFunction;
  original: (schema: unknown) => unknown;
} {
  const state = stateOf(schema);
  const validate = compile(state, mode);
  return {
    validate,
    original: (subschema) =>
      typeof subschema === 'object' && subschema !== null
        ? (state.originals.get(subschema) ?? subschema)
        : subschema,
  };
}
