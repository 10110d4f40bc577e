// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * Names that come from configuration input (variable names, keys, references) are data: the
 * names of Object.prototype's members are never looked up on a prototype (fast-check).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Config,
  ConfigNotFoundError,
  type ConfigValidationError,
  Schema,
} from '../../src/config/index.js';
import { thrown } from './helpers.js';

const prototypeNames = Object.getOwnPropertyNames(Object.prototype);

/** Object.prototype's member names, mixed with random names the grammar reads back as written. */
const memberName = fc.oneof(
  fc.constantFrom(...prototypeNames),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/),
);

/** Keys a YAML or JSON document may hold: prototype member names among random text. */
const documentKey = fc.oneof(fc.constantFrom(...prototypeNames), fc.string({ maxLength: 12 }));

function missingVariable(text: string, env: Record<string, string>) {
  return thrown(() => Config.fromObject({ value: text }, { env }).resolve());
}

describe('${env:NAME} looks only at the variables themselves', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    '${env:%s} that is not set is NOT_FOUND, alone and inside text',
    (name) => {
      for (const text of [`\${env:${name}}`, `x\${env:${name}}`]) {
        const error = missingVariable(text, {});
        expect(error).toBeInstanceOf(ConfigNotFoundError);
        expect(error.code).toBe('NOT_FOUND');
        expect(error.message).toContain(`environment variable ${JSON.stringify(name)} not found`);
      }
    },
  );

  it('is NOT_FOUND for any unset name, and the value for any set one', () => {
    fc.assert(
      fc.property(memberName, fc.boolean(), (name, set) => {
        const env: Record<string, string> = {};
        if (set) Object.defineProperty(env, name, { value: 'v', enumerable: true });
        for (const text of [`\${env:${name}}`, `x\${env:${name}}`]) {
          if (set) {
            expect(Config.fromObject({ value: text }, { env }).get('value')).toBe(
              text.startsWith('x') ? 'xv' : 'v',
            );
          } else {
            expect(missingVariable(text, env).code).toBe('NOT_FOUND');
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('uses the default for a prototype member name that is not set', () => {
    fc.assert(
      fc.property(fc.constantFrom(...prototypeNames), (name) => {
        const config = Config.fromObject(
          { value: `\${env:${name},default=fallback}` },
          { env: {} },
        );
        expect(config.get('value')).toBe('fallback');
      }),
    );
  });

  it('does not look up process.env members when no env is given', () => {
    const error = thrown(() => Config.fromObject({ value: '${env:constructor}' }).resolve());
    expect(error.code).toBe('NOT_FOUND');
  });
});

describe('references and paths see only keys that exist', () => {
  it('a reference or path to a prototype member name is NOT_FOUND', () => {
    fc.assert(
      fc.property(fc.constantFrom(...prototypeNames), (name) => {
        const config = Config.fromObject({ a: {}, text: 'abc' }, { env: {} });
        expect(thrown(() => config.get(name)).code).toBe('NOT_FOUND');
        expect(thrown(() => config.get(`a.${name}`)).code).toBe('NOT_FOUND');
        const reference = Config.fromObject({ a: {}, b: `\${a.${name}}` }, { env: {} });
        expect(thrown(() => reference.resolve()).code).toBe('NOT_FOUND');
        const inside = Config.fromObject({ a: {}, c: '${a}', b: `\${c.${name}}` }, { env: {} });
        expect(thrown(() => inside.resolve()).code).toBe('NOT_FOUND');
      }),
    );
  });
});

describe('keys of YAML and JSON documents are data', () => {
  it('keeps every key as an own property, whatever its name', () => {
    fc.assert(
      fc.property(fc.uniqueArray(documentKey, { maxLength: 6 }), (keys) => {
        const text = keys.map((key, index) => `${JSON.stringify(key)}: {n: ${index}}`).join('\n');
        const fromYaml = Config.fromYaml(text || '{}').resolve<Record<string, unknown>>();
        const parsed = JSON.parse(
          `{${keys.map((key, index) => `${JSON.stringify(key)}: {"n": ${index}}`).join(',')}}`,
        ) as Record<string, unknown>;
        const fromObject = Config.fromObject(parsed).resolve<Record<string, unknown>>();
        for (const resolved of [fromYaml, fromObject]) {
          expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
          // Integer-like keys come first in any object, so the order is not compared.
          expect(Object.keys(resolved).sort()).toEqual([...keys].sort());
          keys.forEach((key, index) => {
            expect(Object.getOwnPropertyDescriptor(resolved, key)?.value).toEqual({ n: index });
          });
        }
        expect(({} as Record<string, unknown>).n).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('references reach keys named like prototype members, and copies keep them as data', () => {
    fc.assert(
      fc.property(fc.constantFrom(...prototypeNames), (name) => {
        const key = JSON.stringify(name);
        const text = `source:\n  ${key}: {deep: 1}\ncopy: \${source}\nleaf: \${source[${key}].deep}\nmerged:\n  <<: {${key}: 2}`;
        const resolved = Config.fromYaml(text).resolve<Record<string, Record<string, unknown>>>();
        expect(Object.getOwnPropertyDescriptor(resolved.copy, name)?.value).toEqual({ deep: 1 });
        expect(Object.getPrototypeOf(resolved.copy)).toBe(Object.prototype);
        expect(resolved.leaf).toBe(1);
        expect(Object.getOwnPropertyDescriptor(resolved.merged, name)?.value).toBe(2);
      }),
    );
  });
});

describe('a "__proto__" key through coercion and redaction', () => {
  const schema = Schema.fromObject({
    type: 'object',
    properties: {
      a: { type: 'object', properties: { ['__proto__']: { type: 'integer', maximum: 5 } } },
    },
  });

  it('converts the value under it as data', () => {
    const settings = Config.fromYaml('a:\n  __proto__: ${env:P}', { env: { P: '3' } }).validate<{
      a: object;
    }>(schema);
    expect(Object.getOwnPropertyDescriptor(settings.a, '__proto__')?.value).toBe(3);
    expect(Object.getPrototypeOf(settings.a)).toBe(Object.prototype);
  });

  it('redacts the value under it without touching a prototype', () => {
    const error = thrown(() =>
      Config.fromYaml('a:\n  __proto__: ${env:P}', { env: { P: '9' } }).validate(schema),
    ) as ConfigValidationError;
    expect(error.message).toBe('2:14: a.__proto__: <from env:P> is greater than the maximum of 5');
    expect(error.errors[0]?.value).toBe('<from env:P>');
  });
});
