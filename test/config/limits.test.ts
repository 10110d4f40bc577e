// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * Documents built to be expensive: aliases and merge keys that double at every level, and
 * interpolations that double a value at every level. Each must be refused with a ConfigError
 * (not a RangeError, not minutes of work). How long they take is measured outside the tests.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Config,
  ConfigError,
  ConfigMalformedError,
  ConfigTooLargeError,
  ConfigValidationError,
  DEFAULT_MAX_VALUE_BYTES,
  Schema,
} from '../../src/config/index.js';
import { thrown } from './helpers.js';

/** `lN: &lN {a: *lN-1, b: *lN-1}`: 2^levels copies of the first map. */
function aliasBomb(levels: number): string {
  let text = 'l0: &l0 {a: x, b: y}\n';
  for (let level = 1; level <= levels; level++) {
    text += `l${level}: &l${level} {a: *l${level - 1}, b: *l${level - 1}}\n`;
  }
  return text;
}

/** Each level merges the one before and holds it twice more: 3^levels values. */
function mergeBomb(levels: number): string {
  let text = 'm0: &m0 {k0: x}\n';
  for (let level = 1; level <= levels; level++) {
    const previous = `*m${level - 1}`;
    text += `m${level}: &m${level}\n  <<: ${previous}\n  a${level}: ${previous}\n  b${level}: ${previous}\n`;
  }
  return text;
}

/** `a0: x`, `aN: ${aN-1}${aN-1}`: the last value is 2^levels characters. */
function doubling(levels: number): Record<string, string> {
  const value: Record<string, string> = { a0: 'x' };
  for (let level = 1; level <= levels; level++) {
    value[`a${level}`] = `\${a${level - 1}}\${a${level - 1}}`;
  }
  return value;
}

describe('YAML aliases and merge keys', () => {
  it('refuses 18 levels of doubling aliases as MALFORMED, naming the problem', () => {
    const error = thrown(() => Config.fromYaml(aliasBomb(18), { filename: 'bomb.yaml' }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.code).toBe('MALFORMED');
    expect(error.message).toMatch(/^bomb\.yaml:\d+:\d+: .*expands to more than 1000000 values/);
    expect(error.message).toContain('aliases');
  });

  it('refuses far deeper alias bombs the same way', () => {
    expect(thrown(() => Config.fromYaml(aliasBomb(60))).code).toBe('MALFORMED');
  });

  it('refuses 12 levels of merge keys as MALFORMED', () => {
    const error = thrown(() => Config.fromYaml(mergeBomb(12)));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toContain('expands to more than 1000000 values');
  });

  it('counts an object given to fromObject once per place it is held, up to the same cap', () => {
    let shared: unknown = ['x'];
    for (let level = 0; level < 40; level++) shared = [shared, shared];
    const error = thrown(() => Config.fromObject({ bomb: shared }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toContain('expands to more than 1000000 values');
    expect(error.key).toMatch(/^bomb(\[[01]\])+$/);
    let small: unknown = ['x'];
    for (let level = 0; level < 10; level++) small = [small, small];
    expect(JSON.stringify(Config.fromObject(small).resolve())).toBe(JSON.stringify(small));
  });

  it('still expands small documents with aliases and merges exactly', () => {
    const config = Config.fromYaml(aliasBomb(3));
    expect(config.get('l3.a.b.a')).toEqual({ a: 'x', b: 'y' });
    expect(Config.fromYaml(mergeBomb(2)).get('m2')).toEqual({
      k0: 'x',
      a1: { k0: 'x' },
      b1: { k0: 'x' },
      a2: { k0: 'x', a1: { k0: 'x' }, b1: { k0: 'x' } },
      b2: { k0: 'x', a1: { k0: 'x' }, b1: { k0: 'x' } },
    });
  });

  it('takes the merged keys of a map that itself merges (no "<<" key appears)', () => {
    const text =
      'a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, z: 3}\nd: {<<: [*b, {w: 0}], x: 9}';
    expect(Config.fromYaml(text).resolve()).toEqual({
      a: { x: 1 },
      b: { x: 1, y: 2 },
      c: { x: 1, y: 2, z: 3 },
      d: { x: 9, y: 2, w: 0 },
    });
  });

  it('resolves an alias to the latest anchor of that name before it', () => {
    const text = 'a: &v 1\nb: *v\nc: &v 2\nd: *v\ne: [&v 3, *v]';
    expect(Config.fromYaml(text).resolve()).toEqual({ a: 1, b: 1, c: 2, d: 2, e: [3, 3] });
  });

  it('refuses an alias inside the value it names, and a map merged into itself', () => {
    const inside = thrown(() => Config.fromYaml('a: &a [1, *a]', { filename: 'x.yaml' }));
    expect(inside.message).toBe('x.yaml:1:11: alias *a refers to a value that contains it');
    const merged = thrown(() => Config.fromYaml('a: &a {b: 1, <<: *a}'));
    expect(merged.message).toBe('1:14: a merge key (<<) merges a map into itself');
  });

  it('reports an alias to an unknown anchor with its position', () => {
    const error = thrown(() => Config.fromYaml('a: 1\nb: *nope', { filename: 'x.yaml' }));
    expect(error.code).toBe('MALFORMED');
    expect(error.message).toMatch(/^x\.yaml:2:4: /);
  });
});

describe('the size limit of a resolved value', () => {
  it('documents 1 MiB as the default', () => {
    expect(DEFAULT_MAX_VALUE_BYTES).toBe(1024 * 1024);
  });

  it('refuses a doubling interpolation with TOO_LARGE, naming the key and the expression', () => {
    const error = thrown(() => Config.fromObject(doubling(30)).resolve());
    expect(error).toBeInstanceOf(ConfigTooLargeError);
    expect(error.code).toBe('TOO_LARGE');
    // 2^21 characters is the first value over 1 MiB.
    expect(error).toMatchObject({ key: 'a21', expression: '${a20}${a20}', limit: 1024 * 1024 });
    expect(error.message).toBe(
      'a21: ${a20}${a20}: the value is larger than the limit of 1048576 bytes (maxValueBytes)',
    );
  });

  it('names the file position when the configuration came from YAML', () => {
    const text = Object.entries(doubling(25))
      .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
      .join('\n');
    const error = thrown(() => Config.fromYaml(text, { filename: 'big.yaml' }).get('a25'));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toMatch(/^big\.yaml:22:6: a21: \$\{a20\}\$\{a20\}: /);
  });

  it('accepts a value of exactly the limit', () => {
    expect(Config.fromObject(doubling(20)).get<string>('a20')).toHaveLength(1024 * 1024);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const config = Config.fromObject(
      { a: 'é'.repeat(6), b: '${a}', c: 'x${a}' },
      {
        maxValueBytes: 11,
      },
    );
    expect(thrown(() => config.get('b'))).toMatchObject({ code: 'TOO_LARGE', key: 'b' });
    expect(thrown(() => config.get('c'))).toMatchObject({ code: 'TOO_LARGE', key: 'c' });
  });

  it('bounds lists and maps copied by references', () => {
    const value: Record<string, unknown> = { a0: ['x'] };
    for (let level = 1; level <= 40; level++) {
      value[`a${level}`] = [`\${a${level - 1}}`, `\${a${level - 1}}`];
    }
    // A smaller limit keeps the test quick; the copies before it are real work.
    const error = thrown(() => Config.fromObject(value, { maxValueBytes: 10_000 }).resolve());
    expect(error.code).toBe('TOO_LARGE');
    expect(error.key).toMatch(/^a\d+\[0\]$/);
    expect(error.expression).toMatch(/^\$\{a\d+\}$/);
  });

  it('applies to environment variables, files and defaults', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-limits-'));
    writeFileSync(join(folder, 'big.txt'), 'y'.repeat(20));
    const options = { maxValueBytes: 10, baseDir: folder, env: { BIG: 'z'.repeat(11) } };
    const cases: Array<[string, string]> = [
      ['${env:BIG}', '${env:BIG}'],
      ['${file:big.txt}', '${file:big.txt}'],
      ['${env:NOPE,default=0123456789ab}', '${env:NOPE,default=0123456789ab}'],
    ];
    for (const [text, expression] of cases) {
      const error = thrown(() => Config.fromObject({ v: text }, options).resolve());
      expect(error).toMatchObject({ code: 'TOO_LARGE', key: 'v', expression });
    }
    expect(Config.fromObject({ v: '${env:BIG}' }, { ...options, maxValueBytes: 11 }).get('v')).toBe(
      'z'.repeat(11),
    );
  });

  it('is configurable, and literal values are not limited', () => {
    const config = Config.fromObject(
      { long: 'x'.repeat(100), copy: '${long}' },
      {
        maxValueBytes: 50,
      },
    );
    expect(config.get<string>('long')).toHaveLength(100);
    expect(thrown(() => config.get('copy')).code).toBe('TOO_LARGE');
  });

  it('rejects a limit that is not a non-negative number', () => {
    for (const maxValueBytes of [-1, Number.NaN, '10' as unknown as number]) {
      expect(() => Config.fromObject({}, { maxValueBytes })).toThrow(TypeError);
    }
  });

  it('bounds the total of the copies: fan-out of a value under maxValueBytes is TOO_LARGE', () => {
    // Every copy of `big` is under maxValueBytes; together they pass 16 × maxValueBytes.
    let text = 'a0: [1,2,3,4,5,6,7,8,9,0]\n';
    for (let level = 1; level <= 3; level++) {
      text += `a${level}: [${Array(10)
        .fill(`"\${a${level - 1}}"`)
        .join(', ')}]\n`;
    }
    text += 'big: ["${a3}", "${a3}", "${a3}"]\n';
    for (let index = 0; index < 1000; index++) text += `k${index}: \${big}\n`;
    const error = thrown(() =>
      Config.fromYaml(text, { filename: 'fan.yaml', maxValueBytes: 100_000 }).resolve(),
    );
    expect(error).toBeInstanceOf(ConfigTooLargeError);
    expect(error).toMatchObject({
      code: 'TOO_LARGE',
      option: 'maxTotalBytes',
      limit: 1_600_000,
      expression: '${big}',
    });
    expect(error.key).toMatch(/^k\d+$/);
    expect(error.message).toMatch(
      /^fan\.yaml:\d+:\d+: k\d+: \$\{big\}: the values interpolations produce add up to more than the limit of 1600000 bytes \(maxTotalBytes\)$/,
    );
  });

  it('defaults maxTotalBytes to 16 MiB, 16 × maxValueBytes', () => {
    const value: Record<string, string> = { big: 'x'.repeat(1_000_000) };
    for (let index = 0; index < 20; index++) value[`k${index}`] = '${big}';
    // 16 copies are 16,000,000 bytes, under 16 MiB (16,777,216); the 17th passes it.
    const error = thrown(() => Config.fromObject(value).resolve());
    expect(error).toMatchObject({ option: 'maxTotalBytes', limit: 16 * 1024 * 1024, key: 'k16' });
    expect(Config.fromObject(value).get<string>('k19')).toHaveLength(1_000_000);
  });

  it('counts environment variables, files and mixed text against the total', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-total-'));
    writeFileSync(join(folder, 'f.txt'), 'f'.repeat(40));
    const value = { e: '${env:E}', f: '${file:f.txt}', t: 'x${env:E}' };
    const options = { baseDir: folder, env: { E: 'e'.repeat(40) } };
    expect(Config.fromObject(value, { ...options, maxTotalBytes: 162 }).resolve()).toBeTruthy();
    // env 40 + file 40 + (env 40 + text 41) = 161 bytes.
    expect(
      thrown(() => Config.fromObject(value, { ...options, maxTotalBytes: 160 }).resolve()),
    ).toMatchObject({ option: 'maxTotalBytes', key: 't', expression: 'x${env:E}' });
    expect(
      thrown(() => Config.fromObject(value, { ...options, maxTotalBytes: 79 }).resolve()),
    ).toMatchObject({ option: 'maxTotalBytes', key: 'f', expression: '${file:f.txt}' });
  });

  it('takes maxTotalBytes as an option, Infinity for no limit', () => {
    const value = { big: 'x'.repeat(100), a: '${big}', b: '${big}', c: '${big}' };
    expect(thrown(() => Config.fromObject(value, { maxTotalBytes: 250 }).resolve())).toMatchObject({
      code: 'TOO_LARGE',
      option: 'maxTotalBytes',
      limit: 250,
      key: 'c',
    });
    expect(Config.fromObject(value, { maxTotalBytes: 300 }).get<string>('c')).toHaveLength(100);
    expect(
      Config.fromObject(value, { maxValueBytes: 100, maxTotalBytes: Infinity }).resolve(),
    ).toMatchObject({ c: 'x'.repeat(100) });
    for (const maxTotalBytes of [-1, Number.NaN, '10' as unknown as number]) {
      expect(() => Config.fromObject({}, { maxTotalBytes })).toThrow(
        /^maxTotalBytes must be a number of bytes/,
      );
    }
  });

  it('fails at the first copy that brings the total over the limit (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        (size, copies, maxTotalBytes) => {
          const value: Record<string, string> = { big: 'é'.repeat(size) };
          for (let index = 0; index < copies; index++) value[`k${index}`] = '${big}';
          const config = Config.fromObject(value, { maxValueBytes: 128, maxTotalBytes });
          // Each copy is 2 × size UTF-8 bytes.
          const fitting = size === 0 ? copies : Math.floor(maxTotalBytes / (2 * size));
          if (fitting >= copies) {
            expect(Object.keys(config.resolve() as object)).toHaveLength(copies + 1);
          } else {
            expect(thrown(() => config.resolve())).toMatchObject({
              code: 'TOO_LARGE',
              option: 'maxTotalBytes',
              key: `k${fitting}`,
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts each value once, wherever the keys it refers to are written', () => {
    const references = Array.from({ length: 16 }, (_, index) => `r${index}`);
    const template = `"\${env:X}${references.map((name) => `\${${name}}`).join('')}"`;
    const rest = `${references.map((name) => `${name}: \${c}\n`).join('')}c: 1\n`;
    const options = { env: { X: 'x'.repeat(1000) }, maxValueBytes: 2000 };
    // 16 references of 1 byte, then a: X 1000 + 16 × 1 + the text 1016: 2048 bytes.
    for (const text of [`a: ${template}\n${rest}`, `${rest}a: ${template}\n`]) {
      const fits = Config.fromYaml(text, { ...options, maxTotalBytes: 2048 }).resolve();
      expect(fits).toMatchObject({ a: `${'x'.repeat(1000)}${'1'.repeat(16)}` });
      expect(
        thrown(() => Config.fromYaml(text, { ...options, maxTotalBytes: 2047 }).resolve()),
      ).toMatchObject({ code: 'TOO_LARGE', option: 'maxTotalBytes' });
    }
  });

  it('resolves a document the same whatever the order of its keys (fast-check)', () => {
    // Key kN may refer to keys with a smaller N (no cycles), in any written order.
    const part = (index: number) =>
      fc.oneof(
        fc.constantFrom('${env:E}', '${env:U,default=d${env:E}}', 'lit'),
        ...(index === 0 ? [] : [fc.nat(index - 1).map((target) => `\${k${target}}`)]),
      );
    const documents = fc.integer({ min: 1, max: 8 }).chain((count) =>
      fc.tuple(
        fc.tuple(
          ...Array.from({ length: count }, (_, index) =>
            fc.array(part(index), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
          ),
        ),
        fc.shuffledSubarray(
          Array.from({ length: count }, (_, index) => index),
          { minLength: count },
        ),
      ),
    );
    const outcome = (value: Record<string, string>, maxTotalBytes: number) => {
      try {
        const options = { env: { E: 'e'.repeat(30) }, maxTotalBytes };
        return { value: Config.fromObject(value, options).resolve() };
      } catch (error) {
        if (!(error instanceof ConfigTooLargeError)) throw error;
        return { tooLarge: error.option };
      }
    };
    fc.assert(
      fc.property(documents, fc.integer({ min: 0, max: 2000 }), ([values, order], limit) => {
        const written: Record<string, string> = {};
        values.forEach((text, index) => {
          written[`k${index}`] = text;
        });
        const shuffled: Record<string, string> = {};
        for (const index of order) shuffled[`k${index}`] = values[index]!;
        expect(outcome(shuffled, limit)).toEqual(outcome(written, limit));
      }),
      { numRuns: 300 },
    );
  });

  it('is a ConfigError, never a RangeError, at any depth', () => {
    for (const levels of [21, 26, 40, 64]) {
      expect(thrown(() => Config.fromObject(doubling(levels)).resolve())).toBeInstanceOf(
        ConfigError,
      );
    }
  });
});

describe('the size of a validation report', () => {
  const nested = Schema.fromObject({
    definitions: {
      l: { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#/definitions/l' } }] },
    },
    properties: {
      base: { $ref: '#/definitions/l' },
      copies: { items: { $ref: '#/definitions/l' } },
    },
  });

  it('lists every violation of aliased nested lists, one short line each', () => {
    // 8 KB of YAML: one nested list and 1,200 aliases of it, each copy one violation (SPEC §11:
    // `errors` lists every violation), not one per level of the recursive schema.
    const text = `base: &b ${'['.repeat(40)}x${']'.repeat(40)}\ncopies:\n${'  - *b\n'.repeat(1200)}`;
    const error = thrown(() => Config.fromYaml(text, { filename: 'c.yaml' }).validate(nested));
    expect(error).toBeInstanceOf(ConfigValidationError);
    const { errors, message } = error as ConfigValidationError;
    expect(errors).toHaveLength(1201);
    expect(errors[1200]).toMatchObject({ path: 'copies[1199]', keyword: 'anyOf', line: 1202 });
    const lines = message.split('\n');
    expect(lines).toHaveLength(1201);
    expect(lines[0]).toBe(
      `c.yaml:1:1: base: ${'['.repeat(17)}...${']'.repeat(17)} is not valid under any of the given schemas`,
    );
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(120);
  });

  it('prints a long value shortened in each line', () => {
    const schema = Schema.fromObject({ additionalProperties: { type: 'object' } });
    const list = Array.from({ length: 5000 }, (_, index) => `item-${index}`);
    const long = 'y'.repeat(100_000);
    const error = thrown(() => Config.fromObject({ l: list, s: long }).validate(schema));
    const [listed, text] = error.message.split('\n');
    expect(listed).toMatch(/^l: \["item-0", "item-1", .*, \.\.\.\] is not of type "object"$/);
    expect(listed!.length).toBeLessThan(300);
    expect(text).toMatch(/^s: "y+"\.\.\. is not of type "object"$/);
    expect(text!.length).toBeLessThan(300);
    expect((error as ConfigValidationError).errors[0]!.value).toEqual(list);
  });
});
