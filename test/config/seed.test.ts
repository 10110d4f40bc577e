/** Seed 001: its full schema, valid and invalid configurations, and the exact error lines. */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Config, ConfigValidationError, Schema } from '../../src/config/index.js';
import { messageLines, thrown } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const schema = Schema.fromFile(join(fixtures, 'seed-schema.yaml'));

const valid = {
  app: { name: 'orders' },
  database: { host: 'db.internal', port: 5432 },
};

function withDatabase(database: Record<string, unknown>) {
  return { app: { name: 'orders' }, database: { host: 'db.internal', ...database } };
}

describe('the seed schema', () => {
  it('is read as draft-07', () => {
    expect(schema.dialect).toBe('draft-07');
  });

  it('accepts a valid configuration and returns it', () => {
    expect(Config.fromObject(valid).validate(schema)).toEqual(valid);
    expect(schema.validate(valid)).toEqual([]);
  });

  it('accepts the valid fixture file', () => {
    const settings = Config.fromYamlFile(join(fixtures, 'seed-valid.yaml')).validate(schema);
    expect(settings).toEqual({
      app: { name: 'orders' },
      database: { host: 'db.internal', port: 5432 },
    });
  });

  it('fills in defaults only when asked', () => {
    const config = Config.fromYamlFile(join(fixtures, 'seed-valid.yaml'));
    expect(config.validate(schema, { applyDefaults: true })).toEqual({
      app: { name: 'orders', debug: false },
      database: { host: 'db.internal', port: 5432, ssl: true },
    });
    const plain = config.validate<Record<string, Record<string, unknown>>>(schema);
    expect(plain.app).not.toHaveProperty('debug');
    expect(plain.database).not.toHaveProperty('ssl');
  });

  it('keeps values that are given over defaults', () => {
    const config = Config.fromObject({
      app: { name: 'orders', debug: true },
      database: { host: 'h', port: 1, ssl: false },
    });
    expect(config.validate(schema, { applyDefaults: true })).toEqual({
      app: { name: 'orders', debug: true },
      database: { host: 'h', port: 1, ssl: false },
    });
  });

  it.each([
    [70000, 'database.port: 70000 is greater than the maximum of 65535'],
    [0, 'database.port: 0 is less than the minimum of 1'],
    [65536, 'database.port: 65536 is greater than the maximum of 65535'],
    [-1, 'database.port: -1 is less than the minimum of 1'],
    [1.5, 'database.port: 1.5 is not of type "integer"'],
    ['abc', 'database.port: "abc" is not of type "integer"'],
  ])('port %j gives exactly one line', (port, line) => {
    expect(messageLines(() => Config.fromObject(withDatabase({ port })).validate(schema))).toEqual([
      line,
    ]);
  });

  it('accepts both bounds of the port', () => {
    expect(schema.validate(withDatabase({ port: 1 }))).toEqual([]);
    expect(schema.validate(withDatabase({ port: 65535 }))).toEqual([]);
  });

  it('reports a missing app.name at the app object', () => {
    const error = thrown(() =>
      Config.fromObject({ app: {}, database: valid.database }).validate(schema),
    ) as ConfigValidationError;
    expect(error.message).toBe('app: "name" is a required property');
    expect(error.errors).toEqual([
      { path: 'app', message: '"name" is a required property', keyword: 'required', value: {} },
    ]);
  });

  it('reports an empty name', () => {
    expect(
      messageLines(() =>
        Config.fromObject({ app: { name: '' }, database: valid.database }).validate(schema),
      ),
    ).toEqual(['app.name: "" is shorter than 1 character']);
  });

  it('reports a wrong type', () => {
    expect(
      messageLines(() =>
        Config.fromObject({ app: { name: 'x', debug: 'no' }, database: valid.database }).validate(
          schema,
        ),
      ),
    ).toEqual(['app.debug: "no" is not of type "boolean"']);
  });

  it('reports an unexpected top-level key at the root', () => {
    const error = thrown(() =>
      Config.fromObject({ ...valid, cache: { ttl: 5 } }).validate(schema),
    ) as ConfigValidationError;
    expect(error.message).toBe(
      "(root): Additional properties are not allowed ('cache' was unexpected)",
    );
    expect(error.errors[0]?.path).toBe('');
    expect(error.errors[0]?.keyword).toBe('additionalProperties');
  });

  it('reports missing top-level sections', () => {
    expect(messageLines(() => Config.fromObject({}).validate(schema))).toEqual([
      '(root): "app" is a required property',
      '(root): "database" is a required property',
    ]);
  });

  it('reports a root of the wrong type', () => {
    expect(messageLines(() => Config.fromObject([1, 2]).validate(schema))).toEqual([
      '(root): [1, 2] is not of type "object"',
    ]);
  });

  it('reports every violation of a file with its line and column', () => {
    const file = join(fixtures, 'seed-invalid.yaml');
    const error = thrown(() => Config.fromYamlFile(file).validate(schema)) as ConfigValidationError;
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect(error.code).toBe('VALIDATION');
    expect(error.message.split('\n')).toEqual([
      `${file}:7:1: (root): Additional properties are not allowed ('extra' was unexpected)`,
      `${file}:2:9: app.name: "" is shorter than 1 character`,
      `${file}:3:10: app.debug: "yes" is not of type "boolean"`,
      `${file}:6:9: database.port: 70000 is greater than the maximum of 65535`,
    ]);
    expect(error.errors.map(({ path, line, column }) => ({ path, line, column }))).toEqual([
      { path: '', line: 7, column: 1 },
      { path: 'app.name', line: 2, column: 9 },
      { path: 'app.debug', line: 3, column: 10 },
      { path: 'database.port', line: 6, column: 9 },
    ]);
    expect(error.errors.every((violation) => violation.file === file)).toBe(true);
  });

  it('gives the same violations through Schema.validate, without positions', () => {
    const value = Config.fromYamlFile(join(fixtures, 'seed-invalid.yaml')).resolve();
    expect(
      schema.validate(value).map((violation) => `${violation.path}: ${violation.message}`),
    ).toEqual([
      ": Additional properties are not allowed ('extra' was unexpected)",
      'app.name: "" is shorter than 1 character',
      'app.debug: "yes" is not of type "boolean"',
      'database.port: 70000 is greater than the maximum of 65535',
    ]);
  });

  it('points a required property of a nested object at the object', () => {
    const text = 'app:\n  name: x\ndatabase:\n  host: h\n';
    const error = thrown(() =>
      Config.fromYaml(text, { filename: 'c.yaml' }).validate(schema),
    ) as ConfigValidationError;
    expect(error.message).toBe('c.yaml:3:1: database: "port" is a required property');
    expect(error.errors[0]).toMatchObject({
      path: 'database',
      line: 3,
      column: 1,
      value: { host: 'h' },
    });
  });

  it('numbers lines from the text when there is no file name', () => {
    const error = thrown(() =>
      Config.fromYaml('app:\n  name: x\ndatabase:\n  host: h\n  port: 0\n').validate(schema),
    ) as ConfigValidationError;
    expect(error.message).toBe('5:9: database.port: 0 is less than the minimum of 1');
    expect(error.errors[0]).toMatchObject({ line: 5, column: 9, file: undefined });
  });
});
