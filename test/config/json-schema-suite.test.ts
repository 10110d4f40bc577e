/**
 * The official JSON-Schema-Test-Suite, draft-07, run through `Schema.validate`. Debian's package
 * `json-schema-test-suite` provides it; CI installs it, so there its absence is a failure.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Schema } from '../../src/config/index.js';

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
        });
      }
    });
  }
  it('lists only exceptions that exist in the suite', () => {
    expect([...EXCEPTIONS.keys()].filter((id) => !seen.has(id))).toEqual([]);
  });
});
