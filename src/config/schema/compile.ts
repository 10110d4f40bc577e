/**
 * A schema's compiled validators, one per mode, each made once: its references added in the
 * schema's dialect (one written in another dialect left out, or named in the error when it is
 * referred to), and Ajv's compile errors turned into schema errors that name their place.
 */
import { type AnySchema, MissingRefError, type ValidateFunction } from 'ajv';
import { ConfigError, SchemaError, type SourcePosition } from '../errors.js';
import { compileErrorPointer } from './culprit.js';
import {
  createValidator,
  type Dialect,
  dialectOf,
  type Validator,
  withKnownMetaSchema,
} from './dialects.js';
import { normalizeSchema } from './draft07.js';
import { addPlaceholderKeywords, withPlaceholders } from './placeholders.js';
import { withReferencedDefaults } from './reference-defaults.js';

/** Which compiled validator to use. */
export type Mode = 'plain' | 'defaults' | 'raw';

export interface SchemaState {
  readonly definition: unknown;
  readonly dialect: Dialect;
  readonly references: Readonly<Record<string, unknown>>;
  readonly validators: Map<Mode, ValidateFunction>;
  /** For raw mode: rewritten subschemas back to the schema as written. */
  readonly originals: WeakMap<object, unknown>;
  /** Where a JSON pointer into the schema is written, for errors found while compiling. */
  readonly locate: (pointer: string) => SourcePosition | undefined;
}

export function compile(state: SchemaState, mode: Mode, premade?: Validator): ValidateFunction {
  const cached = state.validators.get(mode);
  if (cached) return cached;
  const validator = premade ?? createValidator(state.dialect, { useDefaults: mode === 'defaults' });
  const prepare = (schema: unknown): AnySchema => {
    const written = mode === 'defaults' ? withReferencedDefaults(schema) : schema;
    const normalized = withKnownMetaSchema(normalizeSchema(written, state.dialect));
    return (
      mode === 'raw' ? withPlaceholders(normalized, state.originals) : normalized
    ) as AnySchema;
  };
  if (mode === 'raw') addPlaceholderKeywords(validator);
  // References written in another dialect: this dialect's Ajv does not know their meta-schema,
  // and a `$ref` into another draft's document is not supported. One nothing refers to is left
  // out (it must not break the schema); one that is referred to is named in the error.
  const otherDialect = new Map<string, Dialect>();
  try {
    for (const [uri, reference] of Object.entries(state.references)) {
      // One that declares no `$schema` is read in the schema's own dialect.
      let dialect: Dialect = state.dialect;
      try {
        const declares =
          typeof reference === 'object' &&
          reference !== null &&
          Object.hasOwn(reference, '$schema');
        if (declares) dialect = dialectOf(reference);
      } catch (error) {
        if (!(error instanceof SchemaError)) throw error;
        throw new SchemaError(
          `invalid schema: reference ${JSON.stringify(uri)}: ${error.message}`,
          {
            file: state.locate('')?.file,
          },
        );
      }
      if (dialect !== state.dialect) {
        otherDialect.set(uri.replace(/#$/, ''), dialect);
        continue;
      }
      validator.addSchema(prepare(reference), uri);
    }
    const validate = validator.compile(prepare(state.definition));
    state.validators.set(mode, validate);
    return validate;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const other =
      error instanceof MissingRefError ? otherDialect.get(error.missingSchema) : undefined;
    if (error instanceof MissingRefError && other !== undefined) {
      const pointer = compileErrorPointer(state.definition, error);
      throw new SchemaError(
        `invalid schema: the reference ${JSON.stringify(error.missingSchema)} is written in ${other} and this schema in ${state.dialect}: a $ref into another draft's document is not supported`,
        pointer === undefined ? { file: state.locate('')?.file } : state.locate(pointer),
      );
    }
    // Ajv names no place for these (an unresolvable `$ref`, a bad `pattern`): look for the
    // keyword, and name at least the file when it is not in this schema.
    const pointer = compileErrorPointer(state.definition, error);
    throw new SchemaError(
      `invalid schema: ${error instanceof Error ? error.message : String(error)}`,
      pointer === undefined ? { file: state.locate('')?.file } : state.locate(pointer),
    );
  }
}
