// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * `multipleOf` with a decimal divisor: `price: 19.99` is a multiple of 0.01, as its author
 * means, although 19.99 / 0.01 is 1998.9999999999998 in binary floating point.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Config, ConfigValidationError, Schema } from '../../src/config/index.js';
import { isDecimalMultiple } from '../../src/config/schema/multiple-of.js';
import { thrown } from './helpers.js';

/** `units × 10^-scale` written as a decimal literal: (-1999n, 2) is "-19.99". */
function decimalLiteral(units: bigint, scale: number): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const sign = units < 0n ? '-' : '';
  return `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

describe('multipleOf with a decimal divisor', () => {
  it.each<[number, number]>([
    [19.99, 0.01],
    [0.3, 0.1],
    [-0.3, 0.1],
    [1.1, 0.1],
    [0.07, 0.01],
    [4.35, 0.05],
    [2.75, 0.25],
    [0.0075, 0.0001],
    [12391239123, 1e-8],
    [1e308, 0.5],
    [0, 0.01],
    [1e-7, 1e-8],
    [1.5e21, 5e20],
  ])('%s is a multiple of %s', (value, divisor) => {
    expect(Schema.fromObject({ multipleOf: divisor }).validate(value)).toEqual([]);
    expect(isDecimalMultiple(value, divisor)).toBe(true);
  });

  it.each<[number, number]>([
    [19.995, 0.01],
    [0.35, 0.1],
    [0.00751, 0.0001],
    [1e308, 0.123456789],
    [0.30000000000000004, 0.1],
    [1.0000000001, 1],
    [7, 5],
    [35, 1.5],
  ])('%s is not a multiple of %s', (value, divisor) => {
    expect(Schema.fromObject({ multipleOf: divisor }).validate(value)).toEqual([
      {
        path: '',
        message: `${value} is not a multiple of ${divisor}`,
        keyword: 'multipleOf',
        value,
      },
    ]);
  });

  it('validates a price written in YAML, and reports one that is not a multiple where it is', () => {
    const schema = Schema.fromYaml(
      'properties:\n  price: { multipleOf: 0.01 }\n  ratio: { multipleOf: 0.1 }\n',
    );
    expect(Config.fromYaml('price: 19.99\nratio: 0.3\n').validate(schema)).toEqual({
      price: 19.99,
      ratio: 0.3,
    });
    const error = thrown(() =>
      Config.fromYaml('price: 19.995\nratio: 0.3\n', { filename: 'prices.yaml' }).validate(schema),
    );
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect(error.message).toBe('prices.yaml:1:8: price: 19.995 is not a multiple of 0.01');
  });

  it('validates a price that came from the environment, after coercion', () => {
    const schema = Schema.fromYaml('properties:\n  price: { type: number, multipleOf: 0.01 }\n');
    const config = Config.fromYaml('price: ${env:PRICE}\n', { env: { PRICE: '19.99' } });
    expect(config.validate(schema)).toEqual({ price: 19.99 });
  });

  it('works the same in every dialect', () => {
    for (const $schema of [
      'http://json-schema.org/draft-06/schema#',
      'https://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const schema = Schema.fromObject({ $schema, multipleOf: 0.01 });
      expect(schema.validate(19.99)).toEqual([]);
      expect(schema.validate(19.995)).toHaveLength(1);
    }
  });

  it('is still a number keyword: other types pass, a divisor of 0 is an invalid schema', () => {
    expect(Schema.fromObject({ multipleOf: 0.01 }).validate('19.991')).toEqual([]);
    expect(thrown(() => Schema.fromObject({ multipleOf: 0 })).code).toBe('INVALID_SCHEMA');
  });

  it('accepts n × step written as a decimal, and refuses n × step + step / 2 (fast-check)', () => {
    // Each step as units × 10^-scale; values stay within 15 significant digits, which a double
    // holds exactly as written.
    const steps: ReadonlyArray<readonly [units: bigint, scale: number]> = [
      [1n, 2],
      [1n, 1],
      [5n, 2],
      [25n, 2],
      [1n, 3],
      [125n, 3],
    ];
    const schemas = new Map<string, Schema>();
    const schemaFor = (step: string): Schema => {
      let schema = schemas.get(step);
      if (!schema) {
        schema = Schema.fromYaml(`properties:\n  value: { multipleOf: ${step} }\n`);
        schemas.set(step, schema);
      }
      return schema;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        fc.constantFrom(...steps),
        (n, [units, scale]) => {
          const step = decimalLiteral(units, scale);
          const schema = schemaFor(step);
          const multiple = decimalLiteral(BigInt(n) * units, scale);
          expect(Config.fromYaml(`value: ${multiple}\n`).validate(schema)).toEqual({
            value: Number(multiple),
          });
          // (2n + 1) × step / 2, one more decimal place: halfway between two multiples.
          const halfway = decimalLiteral((2n * BigInt(n) + 1n) * units * 5n, scale + 1);
          const error = thrown(() => Config.fromYaml(`value: ${halfway}\n`).validate(schema));
          expect(error.message).toBe(
            `1:8: value: ${Number(halfway)} is not a multiple of ${Number(step)}`,
          );
        },
      ),
    );
  });
});
