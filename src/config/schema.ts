/**
 * `Schema`: a JSON Schema compiled once (with Ajv) and reusable. `schema.validate(value)` is the
 * plain entry point; `Config.validate` and `Config.validateRaw` build on the same compiled
 * validators.
 */

import { extname } from 'node:path';
import type { AnySchema, ValidateFunction } from 'ajv';
import {
  ConfigMalformedError,
  ConfigTooLargeError,
  SchemaError,
  type SchemaViolation,
  type SourcePosition,
} from './errors.js';
import { lineAndColumn } from './json.js';
import { jsoncAsJson, jsonOffset, strictJsonProblem } from './json-places.js';
import { checkOptionNames, MAX_FILE_BYTES } from './limits.js';
import { refuseDeepNesting } from './nesting.js';
import { pointerToSegments } from './path.js';
import { lookedFor, NotTextError, readTextUpTo } from './read-text.js';
import { compile, type Mode, type SchemaState } from './schema/compile.js';
import { badPattern } from './schema/culprit.js';
import { endlessReference } from './schema/cycles.js';
import {
  createValidator,
  type Dialect,
  dialectOf,
  withKnownMetaSchema,
} from './schema/dialects.js';
import { type LocatedViolation, violationsFrom } from './schema/messages.js';
import { nearestNode, plainValue } from './source.js';
import { normalisedText } from './source-text.js';
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
   * A schema from a `.json`, `.jsonc` (JSON with comments and trailing commas), `.yaml` or `.yml`
   * file. A file longer than {@link MAX_FILE_BYTES} (4 MiB) is a `TOO_LARGE` error, found
   * without reading it whole.
   */
  static fromFile(path: string, options?: SchemaOptions): Schema {
    const extension = extname(path).toLowerCase();
    const format =
      extension === '.json' || extension === '.jsonc'
        ? 'json'
        : extension === '.yaml' || extension === '.yml'
          ? 'yaml'
          : undefined;
    if (!format) {
      throw new SchemaError(
        `cannot tell the format of schema file ${JSON.stringify(path)}: use a .json, .jsonc, .yaml or .yml extension`,
      );
    }
    let text: string | undefined;
    try {
      text = readTextUpTo(path, MAX_FILE_BYTES);
    } catch (error) {
      if (error instanceof NotTextError) {
        const { line, column } = error;
        throw new SchemaError(`the file ${error.reason}`, { file: path, line, column });
      }
      const code = (error as NodeJS.ErrnoException).code;
      throw new SchemaError(
        code === 'ENOENT'
          ? `schema file ${JSON.stringify(path)} not found${lookedFor(path)}`
          : `cannot read schema file ${JSON.stringify(path)} (${code ?? String(error)})`,
      );
    }
    if (text === undefined) throw new ConfigTooLargeError(MAX_FILE_BYTES, { file: path }, 'file');
    text = normalisedText(text);
    // JSONC: its comments and trailing commas become spaces, then it is strict JSON.
    if (extension === '.jsonc') {
      const json = jsoncAsJson(text);
      if (typeof json !== 'string') {
        throw new SchemaError(`invalid JSON: ${json.reason}`, {
          file: path,
          ...lineAndColumn(text, json.offset),
        });
      }
      text = json;
    }
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
    text = normalisedText(text);
    let definition: unknown;
    try {
      // Before any parser recurses into the text (nesting.ts).
      refuseDeepNesting(text, file, format === 'json' ? 'JSON' : 'YAML');
    } catch (error) {
      if (!(error instanceof ConfigMalformedError)) throw error;
      throw new SchemaError(error.reason, { file, line: error.line, column: error.column });
    }
    if (format === 'json') {
      // Duplicate keys are an error, as in a configuration (see json-places.ts).
      const parsed = strictJsonProblem(text);
      if (!('value' in parsed)) {
        throw new SchemaError(`invalid JSON: ${parsed.reason}`, {
          file,
          ...lineAndColumn(text, parsed.offset),
        });
      }
      definition = parsed.value;
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
      if (error instanceof RangeError) {
        throw new SchemaError(`invalid schema: ${TOO_DEEP_SCHEMA}`, locate(''));
      }
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
    let pattern: ReturnType<typeof badPattern>;
    try {
      pattern = badPattern(definition);
    } catch (error) {
      // Nested deeper than the search can go: compiling reports what it finds.
      if (!(error instanceof RangeError)) throw error;
    }
    if (pattern)
      throw new SchemaError(`invalid schema: ${pattern.reason}`, locate(pattern.pointer));
    // A `$ref` that leads back to itself without consuming the value: validation would not end.
    const endless = endlessReference(definition, dialect);
    if (endless) {
      throw new SchemaError(
        `invalid schema: ${endlessReferenceMessage(endless.pointer, endless.reference)}`,
        locate(endless.pointer),
      );
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
    if (runValidator(validate, value)) return [];
    return violationsFrom(validate.errors ?? [], value, { validate }).map(toSchemaViolation);
  }
}

/** Why a schema nested deeper than the stack allows is refused. */
const TOO_DEEP_SCHEMA = 'the schema is nested too deeply to be read';

/** Values nested deeper than this are blamed when validation overflows the stack. */
const DEEP_VALUE = 1000;

function endlessReferenceMessage(pointer: string, reference: string): string {
  return (
    `"$ref": ${JSON.stringify(reference)} at ${JSON.stringify(pointer)} refers to itself without end ` +
    '(it leads back to the same place without going into the value, so validation would never end)'
  );
}

/**
 * Runs a compiled validator. Ajv's generated code recurses as deep as the value and the schema
 * go, so a stack overflow is turned into an error with a code: a value nested too deeply
 * (`MALFORMED`), else a schema that refers to itself without end in a way found only here
 * (`INVALID_SCHEMA`; most such schemas are refused when they are built).
 */
export function runValidator(
  validate: ValidateFunction,
  value: unknown,
  position: SourcePosition = {},
): boolean {
  try {
    return validate(value) as boolean;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    if (deeperThan(value, DEEP_VALUE)) {
      throw new ConfigMalformedError(
        `the value is nested too deeply to be validated (more than ${DEEP_VALUE} levels)`,
        position,
      );
    }
    throw new SchemaError(
      'invalid schema: validation does not end: the schema refers to itself without end (a "$ref" leads back to the same place without going into the value)',
    );
  }
}

/** True when `value` holds lists or objects nested more than `limit` levels deep. */
function deeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const member of Object.values(item)) pending.push([member, depth + 1]);
  }
  return false;
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
