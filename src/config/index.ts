/**
 * `restmachine/config`: configuration files with `${...}` interpolation, validated against JSON
 * Schema, with errors that name the path and the line of every bad value.
 *
 * @example
 * ```ts
 * import { Config, Schema } from 'restmachine/config';
 *
 * const schema = Schema.fromFile('config.schema.yaml');
 * const settings = Config.fromYamlFile('config.yaml').validate(schema, { applyDefaults: true });
 * ```
 *
 * @module
 */

export {
  Config,
  type ConfigOptions,
  type ValidateOptions,
  type YamlConfigOptions,
} from './config.js';
export {
  ConfigCircularReferenceError,
  ConfigError,
  type ConfigErrorCode,
  ConfigMalformedError,
  ConfigNotFoundError,
  ConfigTooLargeError,
  ConfigValidationError,
  type ConfigViolation,
  SchemaError,
  type SchemaViolation,
  type SourcePosition,
  type ValueContext,
} from './errors.js';
export type { JsonObject, JsonValue } from './json.js';
export { DEFAULT_MAX_VALUE_BYTES, MAX_FILE_BYTES } from './limits.js';
export type { Dialect } from './schema/dialects.js';
export { Schema, type SchemaOptions } from './schema.js';
