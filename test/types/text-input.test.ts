/**
 * Type tests: a query, header, path or form validator whose input text can never satisfy does
 * not compile (docs/application.md, "Validation"), lists and records included. The runtime
 * part checks that what compiles gets what its type says.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { TextInputMismatch } from '../../src/app/types.js';
import { RestApplication, silentLogger } from '../../src/index.js';

const QUERY = { source: 'queryParams' } as const;

describe('query lists', () => {
  it('refuses a list whose items text cannot be', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: queryParams arrive as text: make ids accept a string
    app.validates('a', z.object({ ids: z.array(z.number()) }), QUERY);
    // @ts-expect-error: queryParams arrive as text: make on accept a string
    app.validates('b', z.object({ on: z.array(z.boolean()).optional() }), QUERY);
    // @ts-expect-error: a list of lists: each value of a repeated key is one string
    app.validates('c', z.object({ grid: z.array(z.array(z.string())) }), QUERY);
    expectTypeOf<
      TextInputMismatch<z.ZodObject<{ ids: z.ZodArray<z.ZodNumber> }>, 'queryParams'>
    >().toEqualTypeOf<'ids'>();
  });

  it('takes a list of texts, coerced or not, and gives it every value', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'q',
      z.object({
        ids: z.array(z.coerce.number()),
        kinds: z.array(z.enum(['a', 'b'])).optional(),
        any: z.array(z.unknown()).optional(),
        either: z.union([z.string(), z.array(z.number())]).optional(),
      }),
      QUERY,
    );
    app.get('/q', ({ q }) => {
      expectTypeOf(q.ids).toEqualTypeOf<number[]>();
      return q;
    });
    const response = await app.request('/q?ids=1&ids=2&kinds=a&kinds=b');
    expect(JSON.parse(response.body as string)).toEqual({ ids: [1, 2], kinds: ['a', 'b'] });
  });
});

describe('records and catch-alls', () => {
  it('refuses values text cannot be: a key no property names gets its first value only', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: queryParams arrive as text: make [key: string] accept a string
    app.validates('a', z.record(z.string(), z.array(z.string())), QUERY);
    // @ts-expect-error: queryParams arrive as text: make [key: string] accept a string
    app.validates('b', z.object({}).catchall(z.array(z.string())), QUERY);
    // @ts-expect-error: queryParams arrive as text: make [key: string] accept a string
    app.validates('c', z.record(z.string(), z.number()), QUERY);
    // @ts-expect-error: headers arrive as text: make [key: string] accept a string
    app.validates('d', z.record(z.string(), z.number()), { source: 'headers' });
    expectTypeOf<
      TextInputMismatch<z.ZodRecord<z.ZodString, z.ZodArray<z.ZodString>>, 'queryParams'>
    >().toEqualTypeOf<'[key: string]'>();
  });

  it('takes records of texts and open objects, each key its first value', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('all', z.record(z.string(), z.string()), QUERY)
      .validates('rest', z.object({ tag: z.array(z.string()) }).catchall(z.string()), QUERY)
      .validates('open', z.looseObject({ q: z.string() }), QUERY)
      .validates('none', z.object({}), QUERY);
    app.get('/q', ({ all, rest }) => ({ all, rest }));
    const response = await app.request('/q?tag=a&tag=b&q=x&q=y');
    expect(JSON.parse(response.body as string)).toEqual({
      all: { tag: 'a', q: 'x' },
      rest: { tag: ['a', 'b'], q: 'x' },
    });
  });
});
