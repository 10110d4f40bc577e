/**
 * Type tests: a `[body, status, headers?]` tuple written without `as const` is typed as an array,
 * yet sent as a tuple (docs/openapi.md, "Typed clients"). The typed client's response type says
 * both readings, so a `201` is a status it may answer. `npm run typecheck` fails if an
 * `@ts-expect-error` below stops being an error; the calls run in-process to show the types say
 * what arrives.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ClientResponse, createClient, type ErrorStatus } from '../../src/client/index.js';
import { RestApplication, silentLogger } from '../../src/index.js';

type Bookmark = { id: string; url: string };

function bookmarksApi() {
  return new RestApplication({ logger: silentLogger }).withRoutes((r) => [
    r.post('/bookmarks', () => {
      const id = '1';
      return [{ id, url: 'https://example.com' }, 201, { Location: `/bookmarks/${id}` }];
    }),
    r.post('/created', () => [{ id: '1', url: 'https://example.com' }, 201] as const),
    r.get('/numbers', () => [1, 2, 3]),
    r.get('/names', () => ['a', 'b']),
    r.get('/loose', (): unknown[] => [{ id: '1' }, 202]),
  ]);
}

describe('a tuple written without as const', () => {
  it('may answer any status with any of its members as the body', async () => {
    const client = createClient({ app: bookmarksApi() });
    const created = await client.post('/bookmarks');
    expect(created.status).toBe(201);
    if (created.status === 201) {
      expectTypeOf(created.data).toEqualTypeOf<Bookmark | number | { Location: string }>();
      expect(created.data).toEqual({ id: '1', url: 'https://example.com' });
    }
    if (created.status === 200) {
      // The array reading stays: a list of three members with no status second is sent as one.
      expectTypeOf(created).toEqualTypeOf<
        | ClientResponse<200, (Bookmark | number | { Location: string })[]>
        | ClientResponse<number, Bookmark>
        | ClientResponse<number, number>
        | ClientResponse<number, { Location: string }>
      >();
    }
    const loose = await client.get('/loose');
    expect(loose.status).toBe(202);
    if (loose.status === 202) expectTypeOf(loose.data).toEqualTypeOf<unknown>();
  });

  it('keeps an array of numbers alone, other arrays and as const as they were', async () => {
    const client = createClient({ app: bookmarksApi() });
    const numbers = await client.get('/numbers');
    expect(numbers.status).toBe(200);
    // A list of numbers is typed as the list: its 200 narrows to number[].
    if (numbers.status === 200) expectTypeOf(numbers.data).toEqualTypeOf<number[]>();
    // @ts-expect-error: a list of numbers alone is not read as a tuple, so 203 is no status of it.
    expect(numbers.status === 203).toBe(false);
    const names = await client.get('/names');
    // @ts-expect-error: an array of strings is never a tuple, so 201 is no status it answers.
    expect(names.status === 201).toBe(false);
    const created = await client.post('/created');
    expect(created.status).toBe(201);
    expectTypeOf(created.status).toEqualTypeOf<201 | ErrorStatus>();
  });
});
