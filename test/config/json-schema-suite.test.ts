// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * The official JSON-Schema-Test-Suite, draft-07, run through `Schema.validate`: every case of
 * `draft7/`, required and optional. The suite is read from `../shared/json-schema-test-suite`
 * beside the repository (upstream's layout, `tests/draft7/`, works too), or from
 * `JSON_SCHEMA_TEST_SUITE`. In CI its absence is a failure.
 *
 * Every required case must agree with the suite. Optional cases (`draft7/optional/`) agree too,
 * except the groups listed in OPTIONAL_GAPS, each with its reason and how many of its cases
 * disagree. A line at the end gives the counts.
 *
 * The same cases also check `validateRaw`'s rewritten schemas: without placeholders they must
 * agree with `Schema.validate`, and a valid instance must stay valid with any one of its values
 * replaced by a placeholder.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Config, ConfigValidationError, Schema, SchemaError } from '../../src/config/index.js';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const SUITE =
  process.env.JSON_SCHEMA_TEST_SUITE ??
  resolve(REPOSITORY, '..', 'shared', 'json-schema-test-suite');
const DRAFT7 =
  [join(SUITE, 'draft7'), join(SUITE, 'tests', 'draft7')].find((folder) => existsSync(folder)) ??
  join(SUITE, 'draft7');
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
 * Required cases where this implementation knowingly disagrees with the suite, each with its
 * reason. The test asserts the disagreement, so a case that starts passing shows up as a
 * failure here. There are none: where Ajv 8 reads draft-07 differently, the schema is rewritten
 * before Ajv sees it (src/config/schema/draft07.ts).
 */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map();

const CONTENT =
  'draft-07 makes content validation optional; Ajv treats contentEncoding and contentMediaType as annotations, as 2019-09 and later require';
const IDNA =
  "internationalised host names are checked with UTS #46 (Node's domainToASCII) and A-labels (xn--) are not decoded; the IDNA2008 code point tables, contextual and Bidi rules (RFC 5891, RFC 5892, RFC 5893) are not implemented";
const URI =
  'URIs are checked with a pattern looser than RFC 3986 in some places (ports, IPv6 literals, brackets, quotes)';

/**
 * Optional groups (`file / group`) where some cases disagree with the suite: the reason, and how
 * many of the group's cases disagree. The count is asserted, so a fix or a regression shows up.
 */
const OPTIONAL_GAPS: ReadonlyMap<string, { reason: string; disagreeing: number }> = new Map([
  [
    'optional/content.json / validation of string-encoded content based on media type',
    { reason: CONTENT, disagreeing: 1 },
  ],
  [
    'optional/content.json / validation of binary string-encoding',
    { reason: CONTENT, disagreeing: 1 },
  ],
  [
    'optional/content.json / validation of binary-encoded media type documents',
    { reason: CONTENT, disagreeing: 2 },
  ],
  [
    'optional/cross-draft.json / refs to future drafts are processed as future drafts',
    {
      reason:
        'a schema and the documents it references are read as one dialect; the 2019-09 document is not loaded',
      disagreeing: 2,
    },
  ],
  [
    'optional/format/date-time.json / validation of date-time strings',
    {
      reason:
        'the date-time check (RFC 3339 §5.6) accepts "+01" as an offset and hour 24 with a leap second, and rejects a fraction of fifteen digits',
      disagreeing: 3,
    },
  ],
  [
    'optional/format/ecmascript-regex.json / \\a is not an ECMA 262 control escape',
    {
      reason:
        'the regex format compiles the pattern without the u flag, where ECMA-262 Annex B reads \\a as an identity escape',
      disagreeing: 1,
    },
  ],
  [
    'optional/format/hostname.json / validation of host names',
    { reason: 'a trailing dot (the DNS root) is accepted in a host name', disagreeing: 1 },
  ],
  [
    'optional/format/hostname.json / validation of A-label (punycode) host names',
    { reason: IDNA, disagreeing: 23 },
  ],
  [
    'optional/format/idn-email.json / validation of an internationalized e-mail addresses',
    {
      reason: "quoted local parts (RFC 5321 §4.1.2) are not accepted by ajv-formats' email pattern",
      disagreeing: 1,
    },
  ],
  [
    'optional/format/idn-hostname.json / validation of internationalized host names',
    { reason: IDNA, disagreeing: 21 },
  ],
  [
    'optional/format/idn-hostname.json / validation of separators in internationalized host names',
    {
      reason: 'a trailing dot or full stop (the DNS root) is accepted in a host name',
      disagreeing: 4,
    },
  ],
  ['optional/format/iri.json / validation of IRIs', { reason: URI, disagreeing: 1 }],
  [
    'optional/format/uri-reference.json / validation of URI References',
    { reason: URI, disagreeing: 6 },
  ],
  [
    'optional/format/uri-template.json / format: uri-template',
    {
      reason:
        'the uri-template check follows an older reading of RFC 6570 for literals and variable names',
      disagreeing: 3,
    },
  ],
  ['optional/format/uri.json / validation of URIs', { reason: URI, disagreeing: 3 }],
  [
    'optional/unknownKeyword.json / $id inside an unknown keyword is not a real identifier',
    {
      reason:
        'Ajv collects $id from every object in a schema, unknown keywords included, so the identifier is defined twice and the schema does not compile',
      disagreeing: 3,
    },
  ],
]);

/**
 * validateRaw on instances where one value is replaced by a placeholder: the documented limits
 * of treating a placeholder as matching everything (see src/config/schema/placeholders.ts).
 */
const RAW_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'definitions.json / validate definition against metaschema / valid definition schema / definitions.foo.type',
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

/** Groups whose schema validateRaw cannot compile, with the reason. */
const RAW_GROUP_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'optional/id.json / id inside an enum is not a real identifier',
    'validateRaw renames "enum" and "const" to keywords of its own, and Ajv collects $id from the values of keywords it does not know, so the identifier is defined twice',
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

/** `value` with the value at `path` replaced; a `__proto__` key stays an own property. */
function replaced(value: unknown, path: Segment[], replacement: unknown): unknown {
  const [first, ...rest] = path;
  if (first === undefined) return replacement;
  if (Array.isArray(value)) {
    return value.map((item, index) => (index === first ? replaced(item, rest, replacement) : item));
  }
  return Object.fromEntries(
    Object.entries(value as object).map(([key, item]) => [
      key,
      key === first ? replaced(item, rest, replacement) : item,
    ]),
  );
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

/**
 * The suite's remote schemas, under the URLs its tests use (its `remotes/` folder, as its
 * server at localhost:1234 would serve it). Documents that declare another dialect are left
 * out: a schema and the documents it references are read as one dialect.
 */
function remotes(): Record<string, unknown> {
  const folder = join(SUITE, 'remotes');
  const references: Record<string, unknown> = {};
  for (const file of files(folder)) {
    const document = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const declared =
      typeof document === 'object' && document !== null && '$schema' in document
        ? String(document.$schema)
        : undefined;
    if (declared !== undefined && !declared.includes('json-schema.org/draft-07/')) continue;
    references[`http://localhost:1234/${relative(folder, file).split(sep).join('/')}`] = document;
  }
  return references;
}

const MISSING = `${DRAFT7} is missing: put the JSON-Schema-Test-Suite at ../shared/json-schema-test-suite beside the repository, or set JSON_SCHEMA_TEST_SUITE`;

if (!present) {
  if (process.env.CI === 'true') {
    describe('JSON-Schema-Test-Suite (draft-07)', () => {
      it('is present (CI requires it)', () => {
        expect.fail(MISSING);
      });
    });
  } else {
    console.warn(`JSON-Schema-Test-Suite skipped: ${MISSING}`);
  }
}

describe.skipIf(!present)('JSON-Schema-Test-Suite (draft-07)', () => {
  const references = present ? remotes() : {};
  const seen = new Set<string>();
  const seenGroups = new Set<string>();
  const seenRaw = new Set<string>();
  const tally = { required: { agree: 0, all: 0 }, optional: { agree: 0, all: 0 } };
  afterAll(() => {
    const { required, optional } = tally;
    console.info(
      `JSON-Schema-Test-Suite draft-07 (${SUITE}): required ${required.agree}/${required.all} agree, optional ${optional.agree}/${optional.all} agree`,
    );
  });
  for (const file of present ? files(DRAFT7) : []) {
    const name = relative(DRAFT7, file).split(sep).join('/');
    const kind = name.startsWith('optional/') ? 'optional' : 'required';
    const groups = JSON.parse(readFileSync(file, 'utf8')) as SuiteGroup[];
    describe(name, () => {
      for (const group of groups) {
        describe(group.description, () => {
          let compiled: Schema | undefined;
          const schemaOf = () => {
            compiled ??= Schema.fromObject(group.schema, { references });
            return compiled;
          };
          /** Whether the schema's answer is the suite's (a schema that does not compile never is). */
          const agrees = (test: SuiteCase) => {
            tally[kind].all++;
            let valid: boolean;
            try {
              valid = schemaOf().validate(test.data).length === 0;
            } catch {
              return false;
            }
            if (valid === test.valid) tally[kind].agree++;
            return valid === test.valid;
          };
          const groupId = `${name} / ${group.description}`;
          seenGroups.add(groupId);
          const gap = OPTIONAL_GAPS.get(groupId);
          if (gap) {
            it(`${gap.disagreeing} of ${group.tests.length} cases disagree (known gap: ${gap.reason})`, () => {
              const disagreeing = group.tests.filter((test) => !agrees(test));
              expect(disagreeing.map((test) => test.description)).toHaveLength(gap.disagreeing);
            });
          } else {
            for (const test of group.tests) {
              const id = `${groupId} / ${test.description}`;
              seen.add(id);
              const exception = EXCEPTIONS.get(id);
              it(
                exception
                  ? `${test.description} (known exception: ${exception})`
                  : test.description,
                () => {
                  expect(agrees(test)).toBe(!exception);
                },
              );
            }
          }
          const rawException = RAW_GROUP_EXCEPTIONS.get(groupId);
          if (rawException) {
            it(`validateRaw cannot compile the schema (known exception: ${rawException})`, () => {
              expect(() => passesRaw(schemaOf(), group.tests[0]?.data)).toThrow(SchemaError);
            });
            return;
          }
          /** The compiled schema, or undefined for a known gap whose schema does not compile. */
          const compiledForRaw = () => {
            try {
              return schemaOf();
            } catch (error) {
              if (gap && error instanceof SchemaError) return undefined;
              throw error;
            }
          };
          const literal = group.tests.filter((test) => !JSON.stringify(test.data).includes('${'));
          it('validateRaw agrees with Schema.validate when there are no placeholders', () => {
            const schema = compiledForRaw();
            if (!schema) return;
            for (const test of literal) {
              const plain = schema.validate(test.data).length === 0;
              expect(passesRaw(schema, test.data), test.description).toBe(plain);
            }
          });
          it('validateRaw accepts a placeholder in place of any value of a valid instance', () => {
            const schema = compiledForRaw();
            if (!schema) return;
            for (const test of literal.filter((candidate) => candidate.valid)) {
              for (const leaf of leaves(test.data)) {
                const id = `${groupId} / ${test.description} / ${leaf.join('.')}`;
                seenRaw.add(id);
                const data = replaced(test.data, leaf, '${env:VALUE}');
                expect(passesRaw(schema, data), id).toBe(!RAW_EXCEPTIONS.has(id));
              }
            }
          });
        });
      }
    });
  }
  it('lists only exceptions and gaps that exist in the suite', () => {
    expect([...EXCEPTIONS.keys()].filter((id) => !seen.has(id))).toEqual([]);
    expect([...OPTIONAL_GAPS.keys()].filter((id) => !seenGroups.has(id))).toEqual([]);
    expect([...RAW_EXCEPTIONS.keys()].filter((id) => !seenRaw.has(id))).toEqual([]);
    expect([...RAW_GROUP_EXCEPTIONS.keys()].filter((id) => !seenGroups.has(id))).toEqual([]);
  });
});
