/**
 * `$schema` spellings: every way of naming a supported dialect (either scheme, with or without
 * the empty fragment) selects it, and any other `$schema` is a SchemaError, never Ajv's own
 * error (fast-check).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Schema, SchemaError } from '../../src/config/index.js';
import { thrown } from './helpers.js';

const DIALECTS = [
  ['json-schema.org/draft-06/schema', 'draft-06'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
] as const;

const spellings = DIALECTS.flatMap(([path, dialect]) =>
  ['http://', 'https://'].flatMap((scheme) =>
    ['', '#'].map((fragment) => [`${scheme}${path}${fragment}`, dialect] as const),
  ),
);

describe('$schema spellings', () => {
  it.each(spellings)('%s selects %s and validates', (uri, dialect) => {
    const schema = Schema.fromObject({ $schema: uri, type: 'integer' });
    expect(schema.dialect).toBe(dialect);
    expect(schema.validate('x').map((violation) => violation.message)).toEqual([
      '"x" is not of type "integer"',
    ]);
    // The schema as given is kept as it was written.
    expect(schema.definition).toEqual({ $schema: uri, type: 'integer' });
  });

  it.each(spellings)('%s still reports an invalid keyword where it is', (uri) => {
    const error = thrown(() => Schema.fromYaml(`$schema: "${uri}"\ntype: int\n`));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toMatch(/^2:1: invalid schema: /);
  });

  it('reads a referenced schema written with the other scheme', () => {
    const schema = Schema.fromObject(
      {
        $schema: 'https://json-schema.org/draft-07/schema#',
        properties: { port: { $ref: 'https://example.com/port.json' } },
      },
      {
        references: {
          'https://example.com/port.json': {
            $schema: 'https://json-schema.org/draft-07/schema',
            type: 'integer',
          },
        },
      },
    );
    expect(schema.validate({ port: 'x' }).map((violation) => violation.message)).toEqual([
      '"x" is not of type "integer"',
    ]);
  });

  it('any other $schema is an INVALID_SCHEMA error naming it', () => {
    const near = fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'ftp://', '', 'HTTP://', 'https:///'),
        fc.constantFrom(...DIALECTS.map(([path]) => path), 'json-schema.org/draft-04/schema'),
        fc.constantFrom('', '#', '##', '/', '#/definitions', '?x', ' '),
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 40 })), (uri) => {
        const known = spellings.find(([spelling]) => spelling === uri);
        if (known) {
          expect(Schema.fromObject({ $schema: uri }).dialect).toBe(known[1]);
          return;
        }
        const error = thrown(() => Schema.fromObject({ $schema: uri }));
        expect(error).toBeInstanceOf(SchemaError);
        expect(error.code).toBe('INVALID_SCHEMA');
        expect(error.message).toContain(JSON.stringify(uri));
      }),
      { numRuns: 300 },
    );
  });
});
