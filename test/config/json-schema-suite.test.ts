// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * The official JSON-Schema-Test-Suite, draft-07, run through `Schema.validate`. Debian's package
 * `json-schema-test-suite` provides it; CI installs it, so there its absence is a failure.
 *
 * The same cases also check `validateRaw`'s rewritten schemas: without placeholders they must
 * agree with `Schema.validate`, and a valid instance must stay valid with any one of its values
 * replaced by a placeholder.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Config, ConfigValidationError, Schema } from '../../src/config/index.js';

const SUITE = process.env.JSON_SCHEMA_TEST_SUITE ?? '/usr/share/json-schema-test-suite';
const DRAFT7 = join(SUITE, 'tests', 'draft7');
const present = existsSync(DRAFT7);

interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteGroup {
  description: string;
  schema: object | boolean;
  tests: SuiteCase[];
}

/**
 * Cases where this implementation knowingly disagrees with the suite, each with its reason. The
 * test asserts the disagreement, so a case that starts passing shows up as a failure here.
 */
const CONTENT =
  'draft-07 makes content validation optional; Ajv treats contentEncoding and contentMediaType as annotations, as 2019-09 and later require';
const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'optional/content.json / validation of string-encoded content based on media type / an invalid JSON document',
    CONTENT,
  ],
  [
    'optional/content.json / validation of binary string-encoding / an invalid base64 string (% is not a valid character)',
    CONTENT,
  ],
  [
    'optional/content.json / validation of binary-encoded media type documents / a validly-encoded invalid JSON document',
    CONTENT,
  ],
  [
    'optional/content.json / validation of binary-encoded media type documents / an invalid base64 string that is valid JSON',
    CONTENT,
  ],
  [
    'optional/format/idn-hostname.json / validation of internationalized host names / contains illegal char U+302E Hangul single dot tone mark',
    "idn-hostname is checked with UTS #46 (Node's domainToASCII), which allows U+302E inside a label; the IDNA2008 code point tables (RFC 5892) that forbid it are not implemented",
  ],
]);

/**
 * validateRaw on instances where one value is replaced by a placeholder: the documented limits
 * of treating a placeholder as matching everything (see src/config/schema/placeholders.ts).
 */
const RAW_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'definitions.json / valid definition / valid definition schema / definitions.foo.type',
    "checked against Ajv's built-in draft-07 meta-schema, which is not rewritten for placeholders",
  ],
  [
    'ref.json / remote ref, containing refs itself / remote ref valid / minLength',
    "checked against Ajv's built-in draft-07 meta-schema, which is not rewritten for placeholders",
  ],
  [
    'not.json / not more complex schema / other match / foo',
    'a placeholder matches the subschema inside "not", so "not" fails',
  ],
]);

type Segment = string | number;

/** Paths of the scalar values inside a value. */
function leaves(value: unknown, path: Segment[] = []): Segment[][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  }
  return [path];
}

function replaced(value: unknown, path: Segment[], replacement: unknown): unknown {
  const [first, ...rest] = path;
  if (first === undefined) return replacement;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    Segment,
    unknown
  >;
  copy[first] = replaced(copy[first], rest, replacement);
  return copy;
}

function passesRaw(schema: Schema, data: unknown): boolean {
  try {
    Config.fromObject(data).validateRaw(schema);
    return true;
  } catch (error) {
    if (error instanceof ConfigValidationError) return false;
    throw error;
  }
}

function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? files(join(folder, entry.name))
        : entry.name.endsWith('.json')
          ? [join(folder, entry.name)]
          : [],
    )
    .sort();
}

/** The suite's remote schemas, under the URLs its tests use. */
function remotes(): Record<string, unknown> {
  const folder = join(SUITE, 'remotes');
  const references: Record<string, unknown> = {};
  for (const file of files(folder)) {
    references[`http://localhost:1234/${relative(folder, file)}`] = JSON.parse(
      readFileSync(file, 'utf8'),
    );
  }
  return references;
}

if (!present) {
  if (process.env.CI === 'true') {
    describe('JSON-Schema-Test-Suite (draft-07)', () => {
      it('is installed (CI requires it)', () => {
        expect.fail(`${DRAFT7} is missing: install the Debian package json-schema-test-suite`);
      });
    });
  } else {
    console.warn(
      `JSON-Schema-Test-Suite skipped: ${DRAFT7} is missing (install the Debian package json-schema-test-suite)`,
    );
  }
}

describe.skipIf(!present)('JSON-Schema-Test-Suite (draft-07)', () => {
  const references = present ? remotes() : {};
  const seen = new Set<string>();
  const seenRaw = new Set<string>();
  for (const file of present ? files(DRAFT7) : []) {
    const name = relative(DRAFT7, file);
    const groups = JSON.parse(readFileSync(file, 'utf8')) as SuiteGroup[];
    describe(name, () => {
      for (const group of groups) {
        describe(group.description, () => {
          let compiled: Schema | undefined;
          const schemaOf = () => {
            compiled ??= Schema.fromObject(group.schema, { references });
            return compiled;
          };
          for (const test of group.tests) {
            const id = `${name} / ${group.description} / ${test.description}`;
            seen.add(id);
            const exception = EXCEPTIONS.get(id);
            it(
              exception ? `${test.description} (known exception: ${exception})` : test.description,
              () => {
                const valid = schemaOf().validate(test.data).length === 0;
                expect(valid).toBe(exception ? !test.valid : test.valid);
              },
            );
          }
          const literal = group.tests.filter((test) => !JSON.stringify(test.data).includes('${'));
          it('validateRaw agrees with Schema.validate when there are no placeholders', () => {
            for (const test of literal) {
              const plain = schemaOf().validate(test.data).length === 0;
              expect(passesRaw(schemaOf(), test.data), test.description).toBe(plain);
            }
          });
          it('validateRaw accepts a placeholder in place of any value of a valid instance', () => {
            for (const test of literal.filter((candidate) => candidate.valid)) {
              for (const leaf of leaves(test.data)) {
                const id = `${name} / ${group.description} / ${test.description} / ${leaf.join('.')}`;
                seenRaw.add(id);
                const data = replaced(test.data, leaf, '${env:VALUE}');
                expect(passesRaw(schemaOf(), data), id).toBe(!RAW_EXCEPTIONS.has(id));
              }
            }
          });
        });
      }
    });
  }
  it('lists only exceptions that exist in the suite', () => {
    expect([...EXCEPTIONS.keys()].filter((id) => !seen.has(id))).toEqual([]);
    expect([...RAW_EXCEPTIONS.keys()].filter((id) => !seenRaw.has(id))).toEqual([]);
  });
});
