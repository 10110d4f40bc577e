// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * Schemas whose `properties`, `required`, `patternProperties` or `dependencies` name members of
 * Object.prototype (`__proto__`, `constructor`, `toString`, ...): such a name is an ordinary
 * property name, present only when the instance has it (examples and fast-check).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Config, ConfigValidationError, Schema } from '../../src/config/index.js';

const prototypeNames = Object.getOwnPropertyNames(Object.prototype);

/** An object with exactly these own properties (`__proto__` included), as JSON.parse makes. */
function own(entries: Record<string, unknown> | [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(Array.isArray(entries) ? entries : Object.entries(entries));
}

/** A schema from JSON text, so that a `__proto__` key is an own property, as in a schema file. */
function schemaOf(json: string): Schema {
  return Schema.fromJson(json);
}

function violationsOf(action: () => unknown): string[] {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      return error.errors.map((violation) => `${violation.path}: ${violation.message}`);
    }
    throw error;
  }
  return [];
}

describe('properties named like Object.prototype members', () => {
  const schema = schemaOf(`{
    "type": "object",
    "properties": {
      "__proto__": { "type": "number" },
      "constructor": { "type": "number" },
      "toString": { "type": "string" },
      "hasOwnProperty": { "type": "boolean" }
    },
    "additionalProperties": false
  }`);

  it('are not present on an object that does not have them', () => {
    expect(schema.validate({})).toEqual([]);
    expect(schema.validate(JSON.parse('{}'))).toEqual([]);
  });

  it('are checked when present, and count as known for additionalProperties', () => {
    const valid = JSON.parse(
      '{"__proto__": 1, "constructor": 2, "toString": "t", "hasOwnProperty": true}',
    );
    expect(schema.validate(valid)).toEqual([]);
    const invalid = JSON.parse(
      '{"__proto__": "a", "constructor": "b", "toString": 3, "hasOwnProperty": null}',
    );
    expect(schema.validate(invalid).map(({ path, message }) => `${path}: ${message}`)).toEqual([
      'constructor: "b" is not of type "number"',
      'toString: 3 is not of type "string"',
      'hasOwnProperty: null is not of type "boolean"',
      '__proto__: "a" is not of type "number"',
    ]);
    expect(schema.validate(JSON.parse('{"valueOf": 1}'))[0]?.message).toBe(
      "Additional properties are not allowed ('valueOf' was unexpected)",
    );
  });

  it('work through Config.validate and validateRaw, from YAML', () => {
    const config = Config.fromYaml('__proto__: ${env:P}\nconstructor: ${env:C}\ntoString: t\n', {
      env: { P: '12', C: 'x' },
    });
    // The value came from the environment, so the message names its source, not the value.
    expect(violationsOf(() => config.validate(schema))).toEqual([
      'constructor: <from env:C> is not of type "number"',
    ]);
    expect(() => config.validateRaw(schema)).not.toThrow();
    const fixed = Config.fromYaml('__proto__: ${env:P}\nconstructor: 7\n', { env: { P: '12' } });
    const value = fixed.validate<Record<string, unknown>>(schema);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.entries(value)).toEqual([
      ['__proto__', 12],
      ['constructor', 7],
    ]);
    expect(violationsOf(() => Config.fromYaml('__proto__: x\n').validateRaw(schema))).toEqual([
      '__proto__: "x" is not of type "number"',
    ]);
  });

  it('a default for such a name is not applied (Ajv tests `data.constructor === undefined`)', () => {
    // Asserted so that a fix shows up; a default for any other name is applied.
    const defaults = schemaOf(
      '{"properties": {"constructor": {"default": 5}, "toString": {"default": "t"}, "port": {"default": 80}}}',
    );
    const value = Config.fromObject({}).validate(defaults, { applyDefaults: true });
    expect(value).toEqual({ port: 80 });
  });
});

describe('required names like Object.prototype members', () => {
  const schema = schemaOf('{"required": ["__proto__", "constructor", "toString", "valueOf"]}');

  it('are missing from an object that does not have them', () => {
    expect(schema.validate({}).map((violation) => violation.message)).toEqual([
      '"__proto__" is a required property',
      '"constructor" is a required property',
      '"toString" is a required property',
      '"valueOf" is a required property',
    ]);
    expect(violationsOf(() => Config.fromYaml('a: 1\n').validate(schema))).toHaveLength(4);
    expect(violationsOf(() => Config.fromYaml('a: 1\n').validateRaw(schema))).toHaveLength(4);
  });

  it('are met by own properties', () => {
    const yaml = '__proto__: 1\nconstructor: 2\ntoString: 3\nvalueOf: ${env:V}\n';
    expect(
      schema.validate(JSON.parse('{"__proto__":1,"constructor":2,"toString":3,"valueOf":4}')),
    ).toEqual([]);
    expect(() => Config.fromYaml(yaml, { env: { V: '4' } }).validate(schema)).not.toThrow();
    expect(() => Config.fromYaml(yaml, { env: {} }).validateRaw(schema)).not.toThrow();
  });
});

describe('patternProperties and dependencies naming __proto__', () => {
  it('a pattern "__proto__" matches names that contain it', () => {
    const schema = schemaOf('{"patternProperties": {"__proto__": {"type": "integer"}}}');
    expect(schema.validate(JSON.parse('{"x__proto__x": 1, "__proto__": 2}'))).toEqual([]);
    expect(schema.validate(JSON.parse('{"a__proto__": "no"}')).map((v) => v.path)).toEqual([
      'a__proto__',
    ]);
  });

  it('a dependency of __proto__ applies when the instance has it', () => {
    const schema = schemaOf(
      '{"dependencies": {"__proto__": ["bar"], "constructor": ["baz"], "toString": {"required": ["qux"]}}}',
    );
    expect(schema.validate({})).toEqual([]);
    expect(schema.validate(JSON.parse('{"__proto__": 1, "bar": 2}'))).toEqual([]);
    // Reported as for any other name.
    expect(schema.validate(JSON.parse('{"__proto__": 1}'))).toEqual([
      {
        path: '',
        message: '"bar" is a dependency of "__proto__"',
        keyword: 'dependencies',
        value: JSON.parse('{"__proto__": 1}'),
      },
    ]);
    expect(schema.validate(JSON.parse('{"constructor": 1}')).map((v) => v.message)).toEqual([
      '"baz" is a dependency of "constructor"',
    ]);
    expect(schema.validate(JSON.parse('{"toString": 1}')).map((v) => v.message)).toEqual([
      '"qux" is a required property',
    ]);
  });

  it('a list of names __proto__ needs is checked like any other name, in every dialect', () => {
    const dependencies = '"dependencies": {"__proto__": ["b", "c"], "a": ["b", "c"]}';
    for (const dialect of ['draft-06', 'draft-07', '2019-09', '2020-12']) {
      const uri = dialect.startsWith('draft')
        ? `http://json-schema.org/${dialect}/schema#`
        : `https://json-schema.org/draft/${dialect}/schema`;
      const schema = schemaOf(`{"$schema": "${uri}", ${dependencies}}`);
      const shape = (instance: string) =>
        schema.validate(JSON.parse(instance)).map(({ message, keyword }) => [keyword, message]);
      expect(shape('{"__proto__": 1, "c": 2}'), dialect).toEqual([
        ['dependencies', '"b" is a dependency of "__proto__"'],
      ]);
      expect(shape('{"__proto__": 1}'), dialect).toEqual(
        shape('{"a": 1}').map(([keyword, message]) => [
          keyword,
          message?.replace('"a"', '"__proto__"'),
        ]),
      );
      expect(shape('{"__proto__": 1, "b": 2, "c": 3}'), dialect).toEqual([]);
    }
    const schema = schemaOf(`{${dependencies}}`);
    const config = Config.fromYaml('__proto__: ${env:P}\nb: 1\n', { filename: 'c.yaml' });
    expect(() => config.validateRaw(schema)).toThrow(
      'c.yaml:1:1: (root): "c" is a dependency of "__proto__"',
    );
  });
});

describe('any Object.prototype member name as a property name (fast-check)', () => {
  const types = ['number', 'string', 'boolean'] as const;
  type Type = (typeof types)[number];
  const sample: Record<Type, fc.Arbitrary<unknown>> = {
    number: fc.integer(),
    // Config.validate resolves `${...}` first; this property is about names, so no `$`.
    string: fc.stringMatching(/^[^$]{0,5}$/),
    boolean: fc.boolean(),
  };
  const name = fc.oneof(fc.constantFrom(...prototypeNames), fc.stringMatching(/^[a-z]{1,6}$/));
  const declared = fc.uniqueArray(fc.tuple(name, fc.constantFrom(...types), fc.boolean()), {
    selector: ([property]) => property,
    maxLength: 6,
  });
  const present = fc.uniqueArray(
    fc.tuple(
      name,
      fc.constantFrom(...types).chain((type) => sample[type]),
    ),
    { selector: ([property]) => property, maxLength: 6 },
  );

  function typeOf(value: unknown): Type {
    return typeof value === 'number' ? 'number' : typeof value === 'string' ? 'string' : 'boolean';
  }

  it('Schema.validate and Config.validate see exactly the names the instance has', () => {
    fc.assert(
      fc.property(declared, present, fc.boolean(), (properties, entries, closed) => {
        const definition = JSON.stringify({
          type: 'object',
          properties: own(
            properties.map(([property, type]): [string, unknown] => [property, { type }]),
          ),
          required: properties.filter(([, , required]) => required).map(([property]) => property),
          ...(closed ? { additionalProperties: false } : {}),
        });
        const schema = schemaOf(definition);
        const instance = own(entries);
        const has = (property: string) => Object.hasOwn(instance, property);
        const expected: string[] = [];
        for (const [property, type, required] of properties) {
          if (required && !has(property)) expected.push(`missing ${property}`);
          if (has(property) && typeOf(instance[property]) !== type)
            expected.push(`type ${property}`);
        }
        const declaredNames = new Set(properties.map(([property]) => property));
        for (const [property] of entries) {
          if (closed && !declaredNames.has(property)) expected.push(`extra ${property}`);
        }
        const seen = schema
          .validate(instance)
          .map((violation) =>
            violation.keyword === 'required'
              ? `missing ${JSON.parse(violation.message.split(' is ')[0]!)}`
              : violation.keyword === 'type'
                ? `type ${violation.path.split('.').at(-1)}`
                : `extra ${/'(.*)' was unexpected/.exec(violation.message)?.[1]}`,
          );
        expect(seen.sort()).toEqual(expected.sort());
        const viaConfig = violationsOf(() => Config.fromObject(instance).validate(schema));
        expect(viaConfig).toHaveLength(expected.length);
      }),
      { numRuns: 300 },
    );
  });
});
