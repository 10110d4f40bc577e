// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/** Property-based tests of the interpolation parser and resolver (fast-check). */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Config, ConfigError, ConfigMalformedError } from '../../src/config/index.js';
import { escapeTemplate, parseTemplate } from '../../src/config/interpolation/parser.js';

/** Text built mostly from the characters the grammar cares about, so that it often nearly parses. */
const grammarish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '${',
        '}',
        '\\${',
        '\\',
        '$',
        '{',
        ',',
        'default=',
        'env:',
        'file:',
        '.',
        '..',
        '[0]',
        '[',
        ']',
        ':',
        '"',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 24 },
  )
  .map((pieces) => pieces.join(''));

const anyText = fc.oneof(
  grammarish,
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
);

/** A variable name the grammar reads back as written. */
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);

describe('parseTemplate', () => {
  it('either parses or throws ConfigMalformedError with a column inside the text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        try {
          parseTemplate(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigMalformedError);
          const { offset } = error as ConfigMalformedError;
          expect(offset).toBeGreaterThanOrEqual(1);
          expect(offset).toBeLessThanOrEqual(text.length + 1);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('survives defaults nested far deeper than it allows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), (depth) => {
        const text = `${'${env:A,default='.repeat(depth)}x${'}'.repeat(depth)}`;
        try {
          parseTemplate(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigMalformedError);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('reads escaped text back exactly, as one literal', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const template = parseTemplate(escapeTemplate(text));
        expect(template.parts.every((part) => typeof part === 'string')).toBe(true);
        expect(template.parts.join('')).toBe(text);
      }),
      { numRuns: 5000 },
    );
  });

  it('resolves escaped text to itself through a Config', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(Config.fromObject({ value: escapeTemplate(text) }).get('value')).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('renders literal text and variables in order', () => {
    const piece = fc.oneof(
      fc.record({ literal: anyText }),
      fc.record({ variable: name, value: fc.string({ maxLength: 8 }) }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const env: Record<string, string> = {};
        let source = '';
        let expected = '';
        let pending = '';
        const flushLiteral = (beforeVariable: boolean) => {
          // Backslashes right before an interpolation are written twice.
          const escaped = escapeTemplate(pending);
          source += beforeVariable ? escaped.replace(/\\+$/, (run) => run + run) : escaped;
          expected += pending;
          pending = '';
        };
        for (const item of pieces) {
          if ('literal' in item) {
            pending += item.literal;
          } else {
            flushLiteral(true);
            env[item.variable] ??= item.value;
            source += `\${env:${item.variable}}`;
            expected += env[item.variable];
          }
        }
        flushLiteral(false);
        expect(Config.fromObject({ value: source }, { env }).get('value')).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any default back exactly, escaped, and braces that pair up unescaped', () => {
    // Escaping for a default: an odd backslash run before "${", "{" or "}", doubled before the end.
    const escapeDefault = (text: string) =>
      text.replace(/(\\*)(\$\{|\{|\}|$)/g, (_match, run: string, token: string) =>
        token === '' ? `${run}${run}` : `${run}${run}\\${token}`,
      );
    const balanced: fc.Arbitrary<string> = fc.letrec<{ text: string }>((tie) => ({
      text: fc
        .array(
          fc.oneof(
            fc.constantFrom('a', '"k":', ',', ' ', '[1]', ':'),
            tie('text').map((inner) => `{${inner}}`),
          ),
          { maxLength: 4 },
        )
        .map((pieces) => pieces.join('')),
    })).text;
    fc.assert(
      fc.property(anyText, balanced, (text, pairs) => {
        const escaped = Config.fromObject({ v: `\${env:A,default=${escapeDefault(text)}}!` });
        expect(escaped.get('v')).toBe(`${text}!`);
        const written = Config.fromObject({ v: `\${env:A,default=${pairs}}!` });
        expect(written.get('v')).toBe(`${pairs}!`);
        expect(
          Config.fromObject({ v: `\${env:A,default=${pairs}}!` }, { env: { A: 'v' } }).get('v'),
        ).toBe('v!');
      }),
      { numRuns: 1000 },
    );
  });

  it('writes a backslash before an interpolation by doubling it', () => {
    const config = Config.fromObject(
      { a: 'C:\\\\${env:DIR}', b: 'C:\\${env:DIR}', c: '\\\\\\${x}', d: '${env:X,default=a\\}b}' },
      { env: { DIR: 'tmp' } },
    );
    expect(config.resolve()).toEqual({ a: 'C:\\tmp', b: 'C:${env:DIR}', c: '\\${x}', d: 'a}b' });
  });
});

describe('resolution of arbitrary text', () => {
  it('throws nothing but ConfigError', () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, (first, second, third) => {
        const config = Config.fromObject(
          { a: first, b: { c: second, d: [third, first] } },
          { env: { A: second }, baseDir: '/nonexistent' },
        );
        try {
          config.resolve();
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
