// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
// biome-ignore-all lint/suspicious/noThenProperty: "then" is the JSON Schema keyword in these schemas.
/** Validation: coercion, validate against validateRaw, wording per keyword, loading schemas. */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Config,
  ConfigMalformedError,
  ConfigNotFoundError,
  ConfigValidationError,
  Schema,
  SchemaError,
} from '../../src/config/index.js';
import { messageLines, thrown } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const seedSchema = Schema.fromFile(join(fixtures, 'seed-schema.yaml'));

describe('validate against validateRaw on the same file', () => {
  const file = join(fixtures, 'seed-env.yaml');

  it('validateRaw accepts the placeholders whatever the environment holds', () => {
    expect(() => Config.fromYamlFile(file, { env: {} }).validateRaw(seedSchema)).not.toThrow();
    expect(() =>
      Config.fromYamlFile(file, { env: { PORT: 'abc' } }).validateRaw(seedSchema),
    ).not.toThrow();
  });

  it('validate fails when PORT=abc, at the line of the placeholder', () => {
    const error = thrown(() =>
      Config.fromYamlFile(file, { env: { PORT: 'abc' } }).validate(seedSchema),
    );
    expect(error).toBeInstanceOf(ConfigValidationError);
    // The value came from the environment, so it is named by its source, not shown.
    expect(error.message).toBe(
      `${file}:6:9: database.port: <from env:PORT> is not of type "integer"`,
    );
  });

  it('validate passes when PORT=8080 and returns typed values', () => {
    const settings = Config.fromYamlFile(file, { env: { PORT: '8080', DEBUG: 'true' } }).validate(
      seedSchema,
    );
    expect(settings).toEqual({
      app: { name: 'orders', debug: true },
      database: { host: 'localhost', port: 8080 },
    });
  });

  it('validate applies the range after coercion', () => {
    expect(
      messageLines(() =>
        Config.fromYamlFile(file, { env: { PORT: '70000' } }).validate(seedSchema),
      ),
    ).toEqual([`${file}:6:9: database.port: <from env:PORT> is greater than the maximum of 65535`]);
  });

  it('validate throws a missing variable as itself, before validating', () => {
    const error = thrown(() => Config.fromYamlFile(file, { env: {} }).validate(seedSchema));
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.message).toContain(
      'database.port: ${env:PORT}: environment variable "PORT" not found',
    );
  });
});

describe('coercion of interpolated text', () => {
  const schema = Schema.fromObject({
    type: 'object',
    properties: {
      integer: { type: 'integer' },
      number: { type: 'number' },
      boolean: { type: 'boolean' },
      nothing: { type: 'null' },
      text: { type: 'string' },
      either: { type: ['integer', 'null'] },
      list: { type: 'array', items: { type: 'integer' } },
    },
  });

  function check(value: Record<string, unknown>, env: Record<string, string>) {
    return Config.fromObject(value, { env }).validate<Record<string, unknown>>(schema);
  }

  it('converts env text that is exactly the JSON form of the schema type', () => {
    const settings = check(
      {
        integer: '${env:I}',
        number: '${env:N}',
        boolean: '${env:B}',
        nothing: '${env:Z}',
        text: '${env:I}',
        either: '${env:Z}',
        list: ['${env:I}', '${env:J}'],
      },
      { I: '8080', J: '-3', N: '1.5e2', B: 'false', Z: 'null' },
    );
    expect(settings).toEqual({
      integer: 8080,
      number: 150,
      boolean: false,
      nothing: null,
      text: '8080',
      either: null,
      list: [8080, -3],
    });
  });

  it('converts defaults, files and references to interpolated text', () => {
    const config = Config.fromYaml(
      'integer: ${env:P,default=42}\nnumber: ${file:port.txt}\nboolean: ${env:X,default=${env:B}}\neither: ${.integer}',
      { env: { B: 'true' }, baseDir: join(fixtures, 'files') },
    );
    expect(config.validate(schema)).toEqual({
      integer: 42,
      number: 8443,
      boolean: true,
      either: 42,
    });
  });

  it.each([
    ['integer', ' 8080'],
    ['integer', '8080\n'],
    ['integer', '08080'],
    ['integer', '1.0'],
    ['integer', '0x10'],
    ['integer', '9007199254740993'],
    ['number', '1.'],
    ['number', 'NaN'],
    ['boolean', 'True'],
    ['boolean', 'yes'],
    ['nothing', ''],
    ['nothing', '~'],
  ])('leaves %s text %j alone, and reports it', (key, text) => {
    const error = thrown(() => check({ [key]: '${env:V}' }, { V: text }));
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).errors[0]).toMatchObject({
      path: key,
      keyword: 'type',
      value: '<from env:V>',
    });
    expect(error.message).toMatch(/: <from env:V> is not of type "/);
  });

  it('never converts literal YAML strings', () => {
    const error = thrown(() =>
      Config.fromYaml('integer: "8080"\nboolean: "true"').validate(schema),
    );
    expect(error.message.split('\n')).toEqual([
      '1:10: integer: "8080" is not of type "integer"',
      '2:10: boolean: "true" is not of type "boolean"',
    ]);
  });

  it('never converts a literal string reached through a reference, or mixed text', () => {
    const error = thrown(() =>
      Config.fromYaml('source: "8080"\ninteger: ${source}\nnumber: "${env:V}0"', {
        env: { V: '1' },
      }).validate(schema),
    );
    expect(error.message.split('\n')).toEqual([
      '2:10: integer: "8080" is not of type "integer"',
      '3:9: number: <from env:V> is not of type "number"',
    ]);
  });

  it('converts only where a type error asks for it, including inside combinators', () => {
    const combined = Schema.fromObject({
      properties: {
        port: { anyOf: [{ type: 'integer' }, { const: 'auto' }] },
        name: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    const settings = Config.fromObject(
      { port: '${env:P}', name: '${env:N}' },
      { env: { P: '80', N: '42' } },
    ).validate(combined);
    expect(settings).toEqual({ port: 80, name: '42' });
  });

  it('returns the converted value while resolve() keeps the text', () => {
    const config = Config.fromObject({ integer: '${env:I}' }, { env: { I: '7' } });
    expect(config.validate(schema)).toEqual({ integer: 7 });
    expect(config.resolve()).toEqual({ integer: '7' });
  });
});

describe('validateRaw', () => {
  const schema = Schema.fromYaml(`
type: object
required: [name, port, mode]
additionalProperties: false
definitions:
  level: { type: string, enum: [debug, info] }
properties:
  name: { type: string, pattern: "^[a-z]+$", minLength: 3 }
  port: { type: integer, minimum: 1, maximum: 65535 }
  mode: { const: strict }
  email: { type: string, format: email }
  url: { type: string, pattern: "^https?://" }
  level: { $ref: "#/definitions/level" }
  same: { $ref: "#/properties/port" }
  tags: { type: array, uniqueItems: true, items: { type: string, maxLength: 3 } }
  database:
    type: object
    required: [host]
    properties: { host: { type: string } }
`);

  function raw(text: string) {
    return Config.fromYaml(text, { filename: 'raw.yaml', env: {} });
  }

  it('accepts a placeholder wherever a value may stand, unresolved', () => {
    const text = [
      'name: ${env:NAME}',
      'port: ${env:PORT}',
      'mode: ${.name}',
      'email: ${file:missing.txt}',
      'url: https://${env:HOST}/api',
      'level: ${env:LEVEL,default=${env:OTHER}}',
      'same: ${env:PORT}',
      'tags: ["${env:A}", "${env:A}", "${env:B}"]',
      'database: ${env:DATABASE_JSON}',
    ].join('\n');
    expect(() => raw(text).validateRaw(schema)).not.toThrow();
    expect(() => raw(text).validate(schema)).toThrow(ConfigNotFoundError);
  });

  it('accepts a placeholder as the whole configuration', () => {
    expect(() => raw('${env:EVERYTHING}').validateRaw(schema)).not.toThrow();
  });

  it('still checks structure and every literal value', () => {
    const text = [
      'name: AB',
      'port: 70000',
      'extra: ${env:X}',
      'level: trace',
      'same: 0',
      'tags: [abcd, ok, ok]',
      'database: {}',
    ].join('\n');
    expect(messageLines(() => raw(text).validateRaw(schema))).toEqual([
      'raw.yaml:1:1: (root): "mode" is a required property',
      "raw.yaml:3:1: (root): Additional properties are not allowed ('extra' was unexpected)",
      'raw.yaml:1:7: name: "AB" is shorter than 3 characters',
      'raw.yaml:1:7: name: "AB" does not match "^[a-z]+$"',
      'raw.yaml:2:7: port: 70000 is greater than the maximum of 65535',
      'raw.yaml:4:8: level: "trace" is not one of ["debug", "info"]',
      'raw.yaml:5:7: same: 0 is less than the minimum of 1',
      'raw.yaml:6:8: tags[0]: "abcd" is longer than 3 characters',
      'raw.yaml:6:1: tags: ["abcd", "ok", "ok"] has non-unique elements',
      'raw.yaml:7:1: database: "host" is a required property',
    ]);
  });

  it('checks that text mixing interpolations with literal text may be a string', () => {
    const error = thrown(() =>
      raw('name: xyz\nmode: strict\nport: "${env:P}0"').validateRaw(schema),
    );
    expect(error.message).toBe('raw.yaml:3:7: port: "${env:P}0" is not of type "integer"');
  });

  it('checks mixed text against the type however it is reached: $ref, allOf, enum', () => {
    const reached = Schema.fromYaml(`
definitions:
  port: { type: integer }
  host: { type: string, minLength: 20, pattern: "^[a-z.]+$", format: hostname }
properties:
  byRef: { $ref: "#/definitions/port" }
  byAllOf: { allOf: [{ type: integer }] }
  byEnum: { enum: [1, 2] }
  host: { $ref: "#/definitions/host" }
  mode: { enum: [1, "fast"] }
`);
    const text = 'byRef: "x${env:P}"\nbyAllOf: "x${env:P}"\nbyEnum: "x${env:P}"\n';
    expect(messageLines(() => raw(text).validateRaw(reached))).toEqual([
      'raw.yaml:1:8: byRef: "x${env:P}" is not of type "integer"',
      'raw.yaml:2:10: byAllOf: "x${env:P}" is not of type "integer"',
      'raw.yaml:3:9: byEnum: "x${env:P}" is not one of [1, 2]',
    ]);
    // Where a string may stand, the text is unknown: length, pattern and format pass it.
    const strings = 'host: "db-${env:N}"\nmode: "${env:M}x"\nbyRef: ${env:P}\n';
    expect(() => raw(strings).validateRaw(reached)).not.toThrow();
    // Literal strings are still checked by those keywords.
    expect(messageLines(() => raw('host: DB\n').validateRaw(reached))).toEqual([
      'raw.yaml:1:7: host: "DB" is shorter than 20 characters',
      'raw.yaml:1:7: host: "DB" does not match "^[a-z.]+$"',
    ]);
  });

  it('decides mixed text the same whether its schema is inline, behind $ref or in allOf', () => {
    const leaf = fc.oneof(
      fc
        .constantFrom('integer', 'number', 'boolean', 'null', 'string', 'object', 'array')
        .map((type) => ({ type })),
      fc.constant({ type: ['integer', 'string'] }),
      fc
        .uniqueArray(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean()), {
          minLength: 1,
          maxLength: 3,
        })
        .map((values) => ({ enum: values })),
      fc.oneof(fc.integer(), fc.string({ maxLength: 3 })).map((value) => ({ const: value })),
      fc.constant({ minLength: 50, pattern: '^$' }),
      fc.constant({ not: { type: 'string' } }),
    );
    const accepts = (schema: object, text: string) => {
      try {
        Config.fromObject({ v: text }).validateRaw(Schema.fromObject(schema));
        return true;
      } catch (error) {
        if (error instanceof ConfigValidationError) return false;
        throw error;
      }
    };
    fc.assert(
      fc.property(leaf, fc.constantFrom('x${env:V}', '${env:V}:${env:W}'), (schema, text) => {
        const inline = accepts({ properties: { v: schema } }, text);
        expect(
          accepts(
            { definitions: { d: schema }, properties: { v: { $ref: '#/definitions/d' } } },
            text,
          ),
        ).toBe(inline);
        expect(accepts({ properties: { v: { allOf: [schema] } } }, text)).toBe(inline);
        // A whole placeholder passes wherever it stands.
        expect(
          accepts(
            { definitions: { d: schema }, properties: { v: { $ref: '#/definitions/d' } } },
            '${env:V}',
          ),
        ).toBe(true);
      }),
    );
  });

  it('checks escaped text as the literal it is', () => {
    const error = thrown(() =>
      raw('name: abc\nmode: strict\nport: \\${env:P}').validateRaw(schema),
    );
    expect(error.message).toBe('raw.yaml:3:7: port: "${env:P}" is not of type "integer"');
  });

  it('rejects a malformed placeholder, first in document order', () => {
    const error = thrown(() => raw('name: ok\nport: ${env:P\nmode: ${}').validateRaw(schema));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe(
      'raw.yaml:2:7: port: "${env:P": malformed interpolation: unexpected end of input at character 8 of the value',
    );
  });

  it('prints a not-schema as it was written', () => {
    const negated = Schema.fromObject({ properties: { a: { not: { type: 'integer' } } } });
    expect(messageLines(() => Config.fromObject({ a: 5 }).validateRaw(negated))).toEqual([
      'a: 5 should not be valid under {"type": "integer"}',
    ]);
  });
});

describe('messages per keyword', () => {
  it.each<[string, object, unknown, string]>([
    ['minimum', { minimum: 1 }, 0, '(root): 0 is less than the minimum of 1'],
    ['maximum', { maximum: 65535 }, 70000, '(root): 70000 is greater than the maximum of 65535'],
    [
      'exclusiveMinimum',
      { exclusiveMinimum: 1 },
      1,
      '(root): 1 is less than or equal to the minimum of 1',
    ],
    [
      'exclusiveMaximum',
      { exclusiveMaximum: 1 },
      1,
      '(root): 1 is greater than or equal to the maximum of 1',
    ],
    ['multipleOf', { multipleOf: 5 }, 7, '(root): 7 is not a multiple of 5'],
    ['type', { type: 'integer' }, 'abc', '(root): "abc" is not of type "integer"'],
    [
      'type list',
      { type: ['integer', 'null'] },
      'x',
      '(root): "x" is not of type "integer", "null"',
    ],
    ['minLength', { minLength: 1 }, '', '(root): "" is shorter than 1 character'],
    ['maxLength', { maxLength: 2 }, 'abc', '(root): "abc" is longer than 2 characters'],
    ['pattern', { pattern: '^a' }, 'b', '(root): "b" does not match "^a"'],
    ['format', { format: 'email' }, 'nope', '(root): "nope" is not a "email"'],
    ['enum', { enum: ['a', 1, null] }, 'x', '(root): "x" is not one of ["a", 1, null]'],
    ['const', { const: 'on' }, 'off', '(root): "on" was expected'],
    ['minItems', { minItems: 2 }, [1], '(root): [1] has fewer than 2 items'],
    ['maxItems', { maxItems: 1 }, [1, 2], '(root): [1, 2] has more than 1 item'],
    ['uniqueItems', { uniqueItems: true }, [1, 1], '(root): [1, 1] has non-unique elements'],
    ['minProperties', { minProperties: 1 }, {}, '(root): {} has fewer than 1 property'],
    [
      'maxProperties',
      { maxProperties: 1 },
      { a: 1, b: 2 },
      '(root): {"a": 1, "b": 2} has more than 1 property',
    ],
    ['required', { required: ['name'] }, {}, '(root): "name" is a required property'],
    [
      'additionalProperties',
      { properties: { a: {} }, additionalProperties: false },
      { a: 1, x: 2 },
      "(root): Additional properties are not allowed ('x' was unexpected)",
    ],
    [
      'additionalItems',
      { items: [{}], additionalItems: false },
      [1, 2, 3],
      '(root): Additional items are not allowed (2, 3 were unexpected)',
    ],
    [
      'dependencies',
      { dependencies: { a: ['b'] } },
      { a: 1 },
      '(root): "b" is a dependency of "a"',
    ],
    [
      'contains',
      { contains: { type: 'string' } },
      [1, 2],
      '(root): [1, 2] does not contain items matching the given schema',
    ],
    [
      'anyOf',
      { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 3 }] },
      1,
      '(root): 1 is not valid under any of the given schemas',
    ],
    [
      'oneOf (none)',
      { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
      1,
      '(root): 1 is not valid under any of the given schemas',
    ],
    [
      'oneOf (several)',
      { oneOf: [{ type: 'number' }, { type: 'integer' }] },
      1,
      '(root): 1 is valid under more than one of the given schemas',
    ],
    [
      'not',
      { not: { type: 'string' } },
      'x',
      '(root): "x" should not be valid under {"type": "string"}',
    ],
    ['false schema', { properties: { a: false } }, { a: 1 }, 'a: False schema does not allow 1'],
    [
      'if/then',
      { if: { type: 'string' }, then: { minLength: 3 } },
      'ab',
      '(root): "ab" is shorter than 3 characters',
    ],
    [
      'propertyNames',
      { propertyNames: { pattern: '^a' } },
      { b: 1 },
      '(root): "b" does not match "^a"',
    ],
  ])('%s', (_keyword, definition, value, line) => {
    const schema = Schema.fromObject(definition);
    expect(messageLines(() => Config.fromObject(value).validate(schema))).toEqual([line]);
  });

  it('names nested paths with dots and indices', () => {
    const schema = Schema.fromObject({
      properties: { servers: { items: { properties: { port: { type: 'integer' } } } } },
    });
    const violations = schema.validate({ servers: [{ port: 1 }, { port: 'x' }] });
    expect(violations).toEqual([
      {
        path: 'servers[1].port',
        message: '"x" is not of type "integer"',
        keyword: 'type',
        value: 'x',
      },
    ]);
  });

  it('quotes keys that contain path punctuation', () => {
    const schema = Schema.fromObject({ properties: { 'a.b': { type: 'string' } } });
    expect(schema.validate({ 'a.b': 1 })[0]?.path).toBe('["a.b"]');
  });
});

describe('schemas', () => {
  it('compiles once and is reusable', () => {
    const schema = Schema.fromFile(join(fixtures, 'schema.json'));
    expect(schema.validate({ port: 1 })).toEqual([]);
    expect(schema.validate({ port: 0 })).toHaveLength(1);
    expect(schema.validate({ port: 2 })).toEqual([]);
  });

  it('reads JSON and YAML text, and files by extension', () => {
    expect(Schema.fromJson('{"type": "integer"}').validate('x')).toHaveLength(1);
    expect(Schema.fromYaml('type: integer').validate(1)).toEqual([]);
    expect(Schema.fromFile(join(fixtures, 'seed-schema.yaml')).dialect).toBe('draft-07');
  });

  it('applies a default written in the definition a $ref names', () => {
    const defaults = (schema: object) =>
      Config.fromObject({}).validate(Schema.fromObject(schema), { applyDefaults: true });
    const definitions = {
      port: { type: 'integer', default: 8080 },
      // A chain of references: the first default on the way is taken.
      alias: { $ref: '#/definitions/port' },
      tls: { type: 'boolean' },
      'a/b~c': { default: 'escaped' },
    };
    expect(
      defaults({
        properties: {
          port: { $ref: '#/definitions/port' },
          other: { $ref: '#/definitions/alias' },
          // A default beside the $ref wins.
          own: { $ref: '#/definitions/port', default: 1 },
          tls: { $ref: '#/definitions/tls', default: false },
          none: { $ref: '#/definitions/tls' },
          escaped: { $ref: '#/definitions/a~1b~0c' },
        },
        definitions,
      }),
    ).toEqual({ port: 8080, other: 8080, own: 1, tls: false, escaped: 'escaped' });
    // 2020-12's $defs, and a definition's own properties inside it.
    expect(
      defaults({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        properties: { server: { $ref: '#/$defs/server', default: {} } },
        $defs: {
          server: { properties: { port: { $ref: '#/$defs/port' } } },
          port: { default: 80 },
        },
      }),
    ).toEqual({ server: { port: 80 } });
    // A $ref inside another base URI ($id) is not followed: its "#/..." is another document.
    expect(
      defaults({
        properties: { inner: { $ref: 'inner.json', default: {} } },
        definitions: {
          inner: {
            $id: 'inner.json',
            properties: { port: { $ref: '#/definitions/port' } },
            definitions: { port: { default: 1 } },
          },
          port: { default: 2 },
        },
      }),
    ).toEqual({ inner: {} });
    // Only when asked; the schema as given is unchanged.
    const schema = Schema.fromObject({
      properties: { port: { $ref: '#/definitions/port' } },
      definitions,
    });
    expect(Config.fromObject({}).validate(schema)).toEqual({});
    expect(schema.definition).toEqual({
      properties: { port: { $ref: '#/definitions/port' } },
      definitions,
    });
  });

  it('rejects a file extension it cannot read, naming those it can', () => {
    const error = thrown(() => Schema.fromFile('schema.txt'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toContain('use a .json, .jsonc, .yaml or .yml extension');
  });

  it('reports invalid JSON with its line and column', () => {
    const error = thrown(() => Schema.fromJson('{\n  "type": "object",\n  "properties": {,}\n}'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toBe('3:18: invalid JSON: unexpected ",", expected a property name');
    expect(error).toMatchObject({ line: 3, column: 18 });
  });

  it.each([
    ['{"a": 1', "1:8: invalid JSON: unexpected end of input, expected ',' or '}'"],
    ['{"a": tru}', '1:7: invalid JSON: unexpected "t", expected a value'],
    ['[1, 2,]', '1:7: invalid JSON: unexpected "]", expected a value'],
    ['{} x', '1:4: invalid JSON: unexpected "x" after the end of the value'],
    ['', '1:1: invalid JSON: unexpected end of input, expected a value'],
  ])('locates the JSON error in %j', (text, message) => {
    expect(thrown(() => Schema.fromJson(text)).message).toBe(message);
  });

  it('reports invalid YAML with its line and column', () => {
    const error = thrown(() => Schema.fromYaml('type: object\nproperties: [\n'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toMatch(/^3:1: invalid YAML: /);
  });

  it('reports an invalid schema with the place of the bad keyword', () => {
    const file = join(fixtures, 'invalid-schema.yaml');
    const error = thrown(() => Schema.fromFile(file));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe(
      `${file}:4:5: invalid schema: properties.port.type: "int" is not valid under any of the given schemas`,
    );
  });

  it('rejects a schema that is not an object or a boolean', () => {
    expect(thrown(() => Schema.fromJson('[1]')).message).toBe(
      '1:1: a schema must be an object or a boolean',
    );
  });

  it('reports a reference that leads nowhere', () => {
    const error = thrown(() => Schema.fromObject({ $ref: '#/definitions/missing' }));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toContain('#/definitions/missing');
  });

  it('selects the dialect from $schema', () => {
    expect(Schema.fromObject({}).dialect).toBe('draft-07');
    expect(Schema.fromObject({ $schema: 'http://json-schema.org/draft-06/schema#' }).dialect).toBe(
      'draft-06',
    );
    const v2019 = Schema.fromObject({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      dependentRequired: { a: ['b'] },
    });
    expect(v2019.validate({ a: 1 }).map((violation) => violation.message)).toEqual([
      '"b" is a dependency of "a"',
    ]);
    const v2020 = Schema.fromObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      prefixItems: [{ type: 'integer' }],
      items: false,
    });
    expect(v2020.dialect).toBe('2020-12');
    expect(v2020.validate([1, 'x']).map((violation) => violation.message)).toEqual([
      'Additional items are not allowed ("x" was unexpected)',
    ]);
  });

  it('ignores keywords next to $ref in draft-07, as the draft says', () => {
    const schema = Schema.fromObject({
      definitions: { n: { type: 'integer' } },
      properties: { a: { $ref: '#/definitions/n', maximum: 1 } },
    });
    expect(schema.validate({ a: 5 })).toEqual([]);
  });

  it('rejects an unknown or unsupported $schema', () => {
    expect(
      thrown(() => Schema.fromObject({ $schema: 'https://example.com/my-schema' })).message,
    ).toBe(
      'unknown "$schema" "https://example.com/my-schema"; expected draft-06, draft-07 (the default), 2019-09 or 2020-12',
    );
    expect(
      thrown(() => Schema.fromObject({ $schema: 'http://json-schema.org/draft-04/schema#' }))
        .message,
    ).toContain('(draft-04) is not supported');
  });

  it('takes other schemas that $ref names by URI', () => {
    const schema = Schema.fromObject(
      { properties: { port: { $ref: 'https://example.com/port.json' } } },
      { references: { 'https://example.com/port.json': { type: 'integer', minimum: 1 } } },
    );
    expect(schema.validate({ port: 0 }).map((violation) => violation.message)).toEqual([
      '0 is less than the minimum of 1',
    ]);
  });

  it('takes boolean schemas', () => {
    expect(Schema.fromObject(true).validate({ anything: 1 })).toEqual([]);
    expect(Schema.fromObject(false).validate(1)[0]?.message).toBe('False schema does not allow 1');
  });
});

describe('schema positions', () => {
  it('refuses a duplicate key in JSON schema text, as a configuration does, with its place', () => {
    const error = thrown(() => Schema.fromJson('{"type": "object", "type": "int"}'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe('1:20: invalid JSON: duplicate key "type"');
    // "\u0041" is "A": the same name, whatever the spelling.
    expect(thrown(() => Schema.fromJson('{"default": {"A": 1, "\\u0041": 2}}')).message).toBe(
      '1:22: invalid JSON: duplicate key "A"',
    );
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-schema-'));
    const file = join(folder, 'dup.json');
    writeFileSync(
      file,
      '{\n  "properties": {\n    "port": {"type": "int", "type": "integer"}\n  }\n}\n',
    );
    expect(thrown(() => Schema.fromFile(file)).message).toBe(
      `${file}:3:29: invalid JSON: duplicate key "type"`,
    );
    // The same keys in different objects are no duplicates.
    expect(
      Schema.fromJson('{"type": "object", "properties": {"type": {"type": "string"}}}').validate({
        type: 1,
      }),
    ).toHaveLength(1);
  });

  it('places an invalid keyword in JSON text by reading it as JSON (long keys, 1e400)', () => {
    const name = 'k'.repeat(1100);
    const text = `{"properties": {\n  "${name}": {"type": "int"},\n  "b": [1, {"minimum": "x"}]\n}}`;
    const error = thrown(() => Schema.fromJson(text));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toMatch(/^2:1108: invalid schema: /);
    // JSON text is located as JSON: 1e400 is a JSON number (JSON.parse reads it as Infinity),
    // though a YAML reader refuses it.
    const huge = thrown(() => Schema.fromJson('{"maximum": 1e400, "type": "int"}'));
    expect(huge).toBeInstanceOf(SchemaError);
    expect(huge.message).toMatch(/^1:20: invalid schema: type: /);
    expect(thrown(() => Schema.fromJson('{"allOf": [{}, {"minimum": "x"}]}')).message).toMatch(
      /^1:17: invalid schema: allOf\[1\]\.minimum: /,
    );
  });

  it('finds duplicate keys at any depth of any JSON text (fast-check)', () => {
    // Objects written member by member, names drawn from a few so that some repeat, each name
    // spelled plainly or with every character escaped.
    const name = fc.constantFrom('a', 'b', '__proto__', 'constructor', 'é', '"');
    const spelled = (key: string, escaped: boolean) =>
      escaped
        ? `"${[...key].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
        : JSON.stringify(key);
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constant('1'),
        fc
          .array(tie('node'), { maxLength: 3 })
          .map((items) => `[${(items as string[]).join(',')}]`),
        fc.array(fc.tuple(name, fc.boolean(), tie('node')), { maxLength: 4 }).map((members) => {
          const names = members.map(([key]) => key);
          const text = `{${members.map(([key, escaped, value]) => `${spelled(key, escaped)}: ${value}`).join(', ')}}`;
          return new Set(names).size < names.length ? `${text}\u0000` : text;
        }),
      ),
    }));
    fc.assert(
      fc.property(tree.node as fc.Arbitrary<string>, (marked) => {
        // A NUL after an object marks a duplicate inside it (JSON text never holds a raw NUL).
        const text = marked.replaceAll('\u0000', '');
        const hasDuplicate = marked.includes('\u0000');
        const schema = `{"default": ${text}}`;
        if (hasDuplicate) {
          const error = thrown(() => Schema.fromJson(schema));
          expect(error.code).toBe('INVALID_SCHEMA');
          expect(error.message).toMatch(/^1:\d+: invalid JSON: duplicate key "/);
        } else {
          expect(Schema.fromJson(schema).definition).toEqual(JSON.parse(schema));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('places an unknown $schema in its file', () => {
    const error = thrown(() => Schema.fromYaml('type: object\n$schema: https://example.com/s\n'));
    expect(error.message).toBe(
      '2:1: unknown "$schema" "https://example.com/s"; expected draft-06, draft-07 (the default), 2019-09 or 2020-12',
    );
  });

  it('places a $ref that cannot be resolved at the $ref, in JSON and YAML files', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-schema-'));
    const json = join(folder, 'ref.schema.json');
    writeFileSync(
      json,
      '{\n  "properties": {\n    "a": {"$ref": "#/definitions/there"},\n    "b": {"$ref": "#/definitions/missing"}\n  },\n  "definitions": {"there": {}}\n}\n',
    );
    expect(thrown(() => Schema.fromFile(json)).message).toBe(
      `${json}:4:11: invalid schema: can't resolve reference #/definitions/missing from id #`,
    );
    const yaml = join(folder, 'ref.schema.yaml');
    writeFileSync(yaml, 'type: object\nitems:\n  - $ref: "#/nowhere"\n');
    const error = thrown(() => Schema.fromFile(yaml));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe(
      `${yaml}:3:5: invalid schema: can't resolve reference #/nowhere from id #`,
    );
  });

  it('places a pattern that is not a regular expression at the pattern', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-schema-'));
    const file = join(folder, 'pattern.schema.json');
    writeFileSync(
      file,
      '{"type":"object","properties":{"a":{"type":"string","pattern":"(unclosed"}}}\n',
    );
    expect(thrown(() => Schema.fromFile(file)).message).toBe(
      `${file}:1:53: invalid schema: Invalid regular expression: /(unclosed/u: Unterminated group`,
    );
    // A pattern in `enum` is data, not a keyword: the bad one is the patternProperties name.
    const error = thrown(() =>
      Schema.fromYaml('enum:\n  - pattern: "["\npatternProperties:\n  "a(": {type: string}\n'),
    );
    expect(error.message).toMatch(/^4:3: invalid schema: Invalid regular expression: \/a\(\/u: /);
  });

  it('names the file of an invalid schema even when the keyword is in a reference schema', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-schema-'));
    const file = join(folder, 'uses.schema.yaml');
    writeFileSync(file, '$ref: "https://example.com/common.json"\n');
    const error = thrown(() =>
      Schema.fromFile(file, {
        references: { 'https://example.com/common.json': { $ref: '#/definitions/gone' } },
      }),
    );
    expect(error.message).toBe(
      `${file}: invalid schema: can't resolve reference #/definitions/gone from id https://example.com/common.json`,
    );
  });
});

describe('validateRaw with const and enum on objects', () => {
  const schema = Schema.fromObject({
    properties: {
      pair: { const: { mode: 'strict', port: 1 } },
      choice: { enum: [{ host: 'a', port: 1 }, ['x', 2]] },
    },
  });

  it('lets a placeholder inside an object stand for the value it must equal', () => {
    expect(() =>
      Config.fromObject({
        pair: { mode: 'strict', port: '${env:PORT}' },
        choice: ['${env:X}', 2],
      }).validateRaw(schema),
    ).not.toThrow();
  });

  it('still compares the literal parts', () => {
    expect(
      messageLines(() =>
        Config.fromObject({
          pair: { mode: 'loose', port: '${env:PORT}' },
          choice: { host: '${env:H}', port: 2 },
        }).validateRaw(schema),
      ),
    ).toEqual([
      'pair: {"mode": "strict", "port": 1} was expected',
      'choice: {"host": "${env:H}", "port": 2} is not one of [{"host": "a", "port": 1}, ["x", 2]]',
    ]);
  });
});

describe('errors of anyOf, oneOf and contains branches', () => {
  const lines = (schema: object, yaml: string) =>
    messageLines(() =>
      Config.fromYaml(yaml, { filename: 'c.yaml' }).validate(Schema.fromObject(schema)),
    );
  const either = { anyOf: [{ required: ['a'] }, { required: ['b'] }] };

  it('keeps a violation of a sibling allOf branch at the same place as a failing anyOf', () => {
    const schema = {
      properties: { p: { allOf: [{ properties: { q: { type: 'integer' } } }, either] } },
    };
    expect(lines(schema, 'p:\n  q: notanumber\n')).toEqual([
      'c.yaml:2:6: p.q: "notanumber" is not of type "integer"',
      'c.yaml:1:1: p: {"q": "notanumber"} is not valid under any of the given schemas',
    ]);
    expect(Schema.fromObject(schema).validate({ p: { q: 'x' } })).toHaveLength(2);
  });

  it('keeps a violation found through a $ref beside a failing oneOf (draft-07 and 2020-12)', () => {
    const draft07 = {
      definitions: { q: { properties: { q: { type: 'integer' } } } },
      properties: {
        p: { allOf: [{ $ref: '#/definitions/q' }, { oneOf: either.anyOf }] },
      },
    };
    expect(lines(draft07, 'p:\n  q: notanumber\n')).toEqual([
      'c.yaml:2:6: p.q: "notanumber" is not of type "integer"',
      'c.yaml:1:1: p: {"q": "notanumber"} is not valid under any of the given schemas',
    ]);
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: {
        connection: { properties: { host: { type: 'string' }, port: { type: 'integer' } } },
      },
      properties: {
        database: {
          $ref: '#/$defs/connection',
          oneOf: [{ required: ['password'] }, { required: ['iamAuth'] }],
        },
      },
    };
    expect(lines(modern, 'database:\n  host: db\n  port: abc\n')).toEqual([
      'c.yaml:3:9: database.port: "abc" is not of type "integer"',
      'c.yaml:1:1: database: {"host": "db", "port": "abc"} is not valid under any of the given schemas',
    ]);
  });

  it('keeps an items violation beside a failing contains, in validate and validateRaw', () => {
    const schema = Schema.fromObject({
      properties: { l: { allOf: [{ items: { type: 'integer' } }, { contains: { const: 5 } }] } },
    });
    const expected = [
      'c.yaml:2:5: l[0]: "x" is not of type "integer"',
      'c.yaml:1:1: l: ["x", 1] does not contain items matching the given schema',
    ];
    const config = Config.fromYaml('l:\n  - x\n  - 1\n', { filename: 'c.yaml' });
    expect(messageLines(() => config.validate(schema))).toEqual(expected);
    expect(messageLines(() => config.validateRaw(schema))).toEqual(expected);
  });

  it('reports a recursive anyOf as the same one violation as the anyOf written inline', () => {
    const leaf = { anyOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }] };
    const inline = {
      properties: {
        p: {
          anyOf: [
            { type: 'integer' },
            {
              type: 'array',
              items: { anyOf: [{ type: 'integer' }, { type: 'array', items: leaf }] },
            },
          ],
        },
      },
    };
    const recursive = {
      definitions: {
        l: { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#/definitions/l' } }] },
      },
      properties: { p: { $ref: '#/definitions/l' } },
    };
    const expected = ['c.yaml:1:1: p: [["x"]] is not valid under any of the given schemas'];
    expect(lines(inline, 'p:\n  - - x\n')).toEqual(expected);
    expect(lines(recursive, 'p:\n  - - x\n')).toEqual(expected);
    expect(Schema.fromObject(recursive).validate({ p: [['x']] })).toEqual([
      expect.objectContaining({ path: 'p', keyword: 'anyOf' }),
    ]);
  });

  it('leaves out the errors of a propertyNames inside a branch', () => {
    const schema = Schema.fromObject({
      properties: { p: { anyOf: [{ propertyNames: { maxLength: 2 } }, { required: ['z'] }] } },
    });
    expect(schema.validate({ p: { abc: 1 } })).toEqual([
      expect.objectContaining({ path: 'p', keyword: 'anyOf' }),
    ]);
  });

  it('tells a false subschema of a sibling from one in a branch, directly or through a $ref', () => {
    const messages = (schema: object, value: unknown) =>
      Schema.fromObject(schema)
        .validate(value)
        .map((violation) => `${violation.path}: ${violation.message}`);
    const either = { anyOf: [{ properties: { a: false } }, false, { required: ['z'] }] };
    expect(
      messages(
        { properties: { p: { allOf: [{ properties: { b: false } }, either] } } },
        { p: { a: 1, b: 2 } },
      ),
    ).toEqual([
      'p.b: False schema does not allow 2',
      'p: {"a": 1, "b": 2} is not valid under any of the given schemas',
    ]);
    // q refers to itself, so Ajv calls it rather than copying it in: its places start at q.
    const q = { properties: { a: false, n: { $ref: '#/definitions/q' } } };
    const inBranch = { anyOf: [{ $ref: '#/definitions/q' }, { required: ['z'] }] };
    expect(messages({ definitions: { q }, properties: { p: inBranch } }, { p: { a: 1 } })).toEqual([
      'p: {"a": 1} is not valid under any of the given schemas',
    ]);
    const beside = {
      allOf: [{ $ref: '#/definitions/q' }, { anyOf: [{ required: ['y'] }, { required: ['z'] }] }],
    };
    expect(messages({ definitions: { q }, properties: { p: beside } }, { p: { a: 1 } })).toEqual([
      'p.a: False schema does not allow 1',
      'p: {"a": 1} is not valid under any of the given schemas',
    ]);
  });

  it('keeps a violation of the recursive schema object itself beside its failing anyOf', () => {
    const schema = {
      definitions: {
        l: {
          maxItems: 1,
          anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#/definitions/l' } }],
        },
      },
      properties: { p: { $ref: '#/definitions/l' } },
    };
    expect(lines(schema, 'p: [x, 1]\n')).toEqual([
      'c.yaml:1:1: p: ["x", 1] is not valid under any of the given schemas',
      'c.yaml:1:1: p: ["x", 1] has more than 1 item',
    ]);
  });
});
