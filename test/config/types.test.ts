/** Type tests for the configuration API: `npm run typecheck` fails if these stop holding. */

import { describe, expectTypeOf, it } from 'vitest';
import {
  Config,
  type ConfigErrorCode,
  type ConfigValidationError,
  type ConfigViolation,
  type JsonValue,
  Schema,
  type SchemaViolation,
} from '../../src/config/index.js';

interface Settings {
  database: { host: string; port: number };
}

describe('config types', () => {
  const schema = Schema.fromObject({ type: 'object' });
  const config = Config.fromObject({ database: { host: 'h', port: 1 } });

  it('returns the type asked for, JSON values otherwise', () => {
    expectTypeOf(config.validate<Settings>(schema)).toEqualTypeOf<Settings>();
    expectTypeOf(config.validate(schema)).toEqualTypeOf<JsonValue>();
    expectTypeOf(config.resolve()).toEqualTypeOf<JsonValue>();
    expectTypeOf(config.get<number>('database.port')).toEqualTypeOf<number>();
    expectTypeOf(config.validateRaw(schema)).toEqualTypeOf<void>();
  });

  it('types violations and error codes', () => {
    expectTypeOf(schema.validate({})).toEqualTypeOf<SchemaViolation[]>();
    expectTypeOf<ConfigValidationError['errors']>().toEqualTypeOf<readonly ConfigViolation[]>();
    expectTypeOf<ConfigValidationError['code']>().toEqualTypeOf<ConfigErrorCode>();
    expectTypeOf<ConfigViolation['line']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ConfigErrorCode>().toEqualTypeOf<
      | 'NOT_FOUND'
      | 'CIRCULAR_REFERENCE'
      | 'MALFORMED'
      | 'VALIDATION'
      | 'INVALID_SCHEMA'
      | 'TOO_LARGE'
    >();
  });

  it('accepts only schema-shaped values and options it knows', () => {
    // @ts-expect-error: a schema is an object or a boolean.
    Schema.fromObject.bind(null, 5);
    // @ts-expect-error: applyDefaults is a boolean.
    config.validate.bind(config, schema, { applyDefaults: 'yes' });
    // @ts-expect-error: maxValueBytes is a number of bytes.
    Config.fromYaml.bind(null, '', { maxValueBytes: '1mb' });
  });
});
