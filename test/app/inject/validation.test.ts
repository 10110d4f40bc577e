import { Ajv } from 'ajv';
import * as fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { dottedPath } from '../../../src/app/inject/validation.js';
import { createClient } from '../../../src/client/index.js';
import { formatPath, parsePath } from '../../../src/config/path.js';
import { HttpError, RestApplication, silentLogger, ValidationError } from '../../../src/index.js';
import { openapi } from '../../../src/openapi/index.js';

function json(body: unknown) {
  return JSON.parse(body as string);
}

/** A Standard Schema validator without a JSON Schema of its input, recording what it was given. */
function echoValidator(seen: unknown[]) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: (value: unknown) => {
        seen.push(value);
        return { value };
      },
    },
  };
}

describe('validates', () => {
  it('validates the JSON body with zod and injects the typed model', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'item',
      z.object({ name: z.string().min(2), qty: z.number().int().positive() }),
    );
    app.post('/items', ({ item }) => ({ upper: item.name.toUpperCase(), qty: item.qty }));
    const ok = await app.request('/items', { method: 'POST', json: { name: 'ab', qty: 2 } });
    expect(json(ok.body)).toEqual({ upper: 'AB', qty: 2 });
    const bad = await app.request('/items', { method: 'POST', json: { name: 'a', qty: -1 } });
    expect(bad.statusCode).toBe(422);
    const body = json(bad.body);
    expect(body.error).toBe('Validation failed');
    expect(body.details.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'name',
      'qty',
    ]);
  });

  it('validates query parameters, path parameters and headers with valibot', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('page', v.object({ page: v.pipe(v.string(), v.regex(/^\d+$/)) }), {
        source: 'queryParams',
      })
      .validates('ids', v.object({ id: v.pipe(v.string(), v.uuid()) }), { source: 'pathParams' })
      .validates('auth', v.object({ 'x-api-key': v.pipe(v.string(), v.minLength(8)) }), {
        source: 'headers',
      });
    app.get('/things/{id}', ({ page, ids, auth }) => ({
      page: page.page,
      id: ids.id,
      key: auth['x-api-key'],
    }));
    const id = '123e4567-e89b-12d3-a456-426614174000';
    const ok = await app.request(`/things/${id}?page=2`, {
      headers: { 'X-Api-Key': 'secret-key' },
    });
    expect(json(ok.body)).toEqual({ page: '2', id, key: 'secret-key' });
    const bad = await app.request('/things/nope?page=x', { headers: { 'X-Api-Key': 'short' } });
    expect(bad.statusCode).toBe(422);
  });

  it('reports nested paths dotted with [index]', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'order',
      z.object({ items: z.array(z.object({ name: z.string() })) }),
    );
    app.post('/orders', ({ order }) => order);
    const bad = await app.request('/orders', {
      method: 'POST',
      json: { items: [{ name: 'a' }, { name: 3 }] },
    });
    expect(json(bad.body).details).toEqual([
      { path: 'items[1].name', message: expect.any(String) },
    ]);
    const root = await app.request('/orders', { method: 'POST', json: 5 });
    expect(json(root.body).details[0].path).toBe('');
  });

  it('quotes keys with path punctuation, or empty, as configuration errors do', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'counts',
      z.object({ by: z.record(z.string(), z.number()) }),
    );
    app.post('/counts', ({ counts }) => counts);
    const bad = await app.request('/counts', {
      method: 'POST',
      json: { by: { 'a.b': 'x', '': 'y', 'x[0]': 'z', plain: 'w' } },
    });
    expect(
      json(bad.body)
        .details.map((issue: { path: string }) => issue.path)
        .sort(),
    ).toEqual(['by[""]', 'by["a.b"]', 'by["x[0]"]', 'by.plain'].sort());
  });

  it('gives a path that reads back as the key it names (property)', () => {
    // Digits are a key like any other (`by.1`), as configuration errors write them; only a
    // number is an array index (`by[1]`).
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^\d+$/), fc.nat()), (key) => {
        expect(parsePath(dottedPath(['by', key]))).toEqual(['by', key]);
        expect(dottedPath(['by', key])).toBe(formatPath(['by', key]));
      }),
    );
  });

  it('writes a record key made of digits as a key, an array index as an index', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'counts',
      z.object({ by: z.record(z.string(), z.number()), list: z.array(z.number()) }),
    );
    app.post('/counts', ({ counts }) => counts);
    const bad = await app.request('/counts', {
      method: 'POST',
      json: { by: { 1: 'x' }, list: [0, 'y'] },
    });
    expect(json(bad.body).details.map((issue: { path: string }) => issue.path)).toEqual([
      'by.1',
      'list[1]',
    ]);
  });

  it('accepts a function validator that throws ValidationError', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'range',
      ({ queryParams }) => {
        const from = Number(queryParams.from);
        const to = Number(queryParams.to);
        const issues = [];
        if (!Number.isInteger(from)) issues.push({ path: 'from', message: 'must be an integer' });
        if (!(to > from)) issues.push({ path: 'to', message: 'must be greater than from' });
        if (issues.length > 0) throw new ValidationError(issues);
        return { from, to };
      },
    );
    app.get('/range', ({ range }) => range.to - range.from);
    expect((await app.request('/range?from=1&to=4')).body).toBe('3');
    const bad = await app.request('/range?from=x&to=0');
    expect(bad.statusCode).toBe(422);
    expect(json(bad.body).details).toEqual([
      { path: 'from', message: 'must be an integer' },
      { path: 'to', message: 'must be greater than from' },
    ]);
  });

  it('keeps the status of an HttpError and turns other throws into 500', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('conflict', () => {
        throw new HttpError(409, 'Already exists');
      })
      .validates('broken', () => {
        throw new TypeError('bug');
      });
    app.post('/a', ({ conflict }) => conflict);
    app.post('/b', ({ broken }) => broken);
    expect((await app.request('/a', { method: 'POST' })).statusCode).toBe(409);
    expect((await app.request('/b', { method: 'POST' })).statusCode).toBe(500);
  });

  it('answers 415 and 400 for a Standard Schema on the JSON body before validating', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates('x', z.object({}));
    app.post('/', ({ x }) => x);
    expect((await app.request('/', { method: 'POST', body: '{}' })).statusCode).toBe(415);
    expect(
      (
        await app.request('/', {
          method: 'POST',
          body: '{',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(400);
  });

  it('lets a JSON body validator decide about a request without content', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('filters', z.object({ tag: z.string() }).optional())
      .validates('note', z.object({ text: z.string() }));
    app.post('/search', ({ filters }) => ({ tag: filters?.tag ?? null }));
    app.post('/notes', ({ note }) => note);
    app.post('/raw', ({ jsonBody }) => ({ got: jsonBody }));

    const none = await app.request('/search', { method: 'POST' });
    expect(none.statusCode).toBe(200);
    expect(json(none.body)).toEqual({ tag: null });
    const empty = await app.request('/search', { method: 'POST', body: new Uint8Array(0) });
    expect(json(empty.body)).toEqual({ tag: null });
    // Text goes with the type fetch() gives it, which is no JSON.
    const text = await app.request('/search', { method: 'POST', body: '' });
    expect(text.statusCode).toBe(415);
    const sent = await app.request('/search', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"tag":"a"}',
    });
    expect(json(sent.body)).toEqual({ tag: 'a' });

    // A required body that is missing is the validator's 422, saying what it expected.
    const missing = await app.request('/notes', { method: 'POST' });
    expect(missing.statusCode).toBe(422);
    expect(json(missing.body).details).toEqual([
      { path: '', message: 'Invalid input: expected object, received undefined' },
    ]);
    // Content without a Content-Type is still 415; so is a missing body with no validator.
    const untyped = await app.request('/search', { method: 'POST', body: '{"tag":"a"}' });
    expect(untyped.statusCode).toBe(415);
    expect((await app.request('/raw', { method: 'POST' })).statusCode).toBe(415);
    // A Content-Type announces a body: an empty one is malformed JSON.
    const announced = await app.request('/search', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(announced.statusCode).toBe(400);

    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(doc.paths['/search']?.post?.requestBody?.required).toBe(false);
    expect(doc.paths['/notes']?.post?.requestBody?.required).toBe(true);
    expect(doc.paths['/raw']?.post?.requestBody?.required).toBe(true);
  });

  it('refuses, at compile time, a schema that text can never satisfy for a text source', () => {
    // Query parameters, headers, path parameters and form fields arrive as text: a schema that
    // wants a number there would answer 422 to every request, the typed client included.
    const app = new RestApplication({ logger: silentLogger });
    app
      // @ts-expect-error: queryParams arrive as text: make limit accept a string
      .validates('page', z.object({ limit: z.number().int() }), { source: 'queryParams' })
      // @ts-expect-error: headers arrive as text with lower-case names: make X-Tenant ...
      .validates('tenant', z.object({ 'X-Tenant': z.string() }), { source: 'headers' })
      // @ts-expect-error: pathParams arrive as text: make id accept a string
      .validates('item', z.object({ id: z.number() }), { source: 'pathParams' });
    // What text can satisfy compiles: strings, literals, coercion, lists for the query.
    app
      .validates('paging', z.object({ limit: z.coerce.number().int() }), { source: 'queryParams' })
      .validates('tags', z.object({ tag: z.array(z.string()).optional() }), {
        source: 'queryParams',
      })
      .validates('kind', z.object({ kind: z.enum(['a', 'b']) }), { source: 'queryParams' })
      .validates('key', z.object({ 'x-api-key': z.string() }), { source: 'headers' })
      .validates('any', z.object({}), { source: 'headers' })
      .validates('order', z.object({ count: z.number() }));
    expect(app.bindings.size).toBeGreaterThan(0);
  });

  it('refuses, at compile time, a query list a validator without JSON Schema never gets', async () => {
    const app = new RestApplication({ logger: silentLogger });
    // valibot has no Standard JSON Schema: each query key gets its first value, never a list.
    // @ts-expect-error: queryParams arrive as text: make tag accept a string
    app.validates('tags', v.object({ tag: v.array(v.string()) }), { source: 'queryParams' });
    // One that takes the first value compiles, and gets it.
    const first = new RestApplication({ logger: silentLogger }).validates(
      'tags',
      v.object({ tag: v.union([v.string(), v.array(v.string())]) }),
      { source: 'queryParams' },
    );
    first.get('/items', ({ tags }) => tags);
    expect((await first.request('/items?tag=a&tag=b')).body).toBe('{"tag":"a"}');
  });

  it('refuses an unknown source', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.validates('x', z.object({}), { source: 'cookies' as 'headers' })).toThrow(
      /Unknown validation source/,
    );
  });

  it('refuses a source for a function validator, which injects what it validates', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.validates('x', ({ jsonBody }) => jsonBody, { source: 'queryParams' })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringMatching(/function/),
      }),
    );
  });
});

describe('a 422 with many issues', () => {
  function appWithArray() {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'model',
      z.object({ a: z.array(z.string()) }),
    );
    app.post('/things', ({ model }) => model.a.length);
    return app;
  }
  const zeros = (count: number) => ({ a: Array.from({ length: count }, () => 0) });

  it('lists the first 100 issues in details and counts the rest in detailsOmitted', async () => {
    const app = appWithArray();
    const many = await app.request('/things', { method: 'POST', json: zeros(1000) });
    expect(many.statusCode).toBe(422);
    const body = json(many.body);
    expect(body.details).toHaveLength(100);
    expect(body.details[0]).toEqual({ path: 'a[0]', message: expect.any(String) });
    expect(body.details[99].path).toBe('a[99]');
    expect(body.detailsOmitted).toBe(900);
    const few = json((await app.request('/things', { method: 'POST', json: zeros(3) })).body);
    expect(few.details.map((issue: { path: string }) => issue.path)).toEqual([
      'a[0]',
      'a[1]',
      'a[2]',
    ]);
    expect(few).not.toHaveProperty('detailsOmitted');
    // What the document promises for a 422 is what the application answers.
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    const ajv = new Ajv({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const answers422 = ajv.compile({
      $ref: 'doc#/components/responses/ValidationFailed/content/application~1json/schema',
    });
    expect(answers422(body)).toBe(true);
    expect(answers422(few)).toBe(true);
    expect(answers422({ ...body, details: [...body.details, body.details[0]] })).toBe(false);
  });

  it('keeps the first 100 issues a function validator throws, and error handlers see the count', async () => {
    const issues = Array.from({ length: 150 }, (_, i) => ({ path: `f${i}`, message: 'bad' }));
    const error = new ValidationError(issues);
    expect(error.issues).toHaveLength(100);
    expect(error.issuesOmitted).toBe(50);
    const app = new RestApplication({ logger: silentLogger }).validates('model', () => {
      throw new ValidationError(issues);
    });
    app.post('/things', ({ model }) => model);
    app.errorHandler(422, ({ error }) => ({
      listed: (error.details as unknown[]).length,
      omitted: error.detailsOmitted,
    }));
    const response = await app.request('/things', { method: 'POST', json: {} });
    expect(response.statusCode).toBe(422);
    expect(json(response.body)).toEqual({ listed: 100, omitted: 50 });
  });
});

describe('query validators and repeated keys', () => {
  it('gives a property that takes a list every value of its key, the others their first', async () => {
    const Search = z.object({
      tags: z.array(z.string()).optional(),
      ids: z
        .union([z.string(), z.array(z.coerce.number())])
        .nullable()
        .optional(),
      page: z.string().optional(),
    });
    const app = new RestApplication({ logger: silentLogger }).validates('search', Search, {
      source: 'queryParams',
    });
    app.get('/search', ({ search }) => search);
    const many = await app.request('/search?tags=a&page=1&tags=b&page=2&ids=3&ids=4');
    expect(json(many.body)).toEqual({ tags: ['a', 'b'], ids: [3, 4], page: '1' });
    const one = await app.request('/search?tags=a');
    expect(json(one.body)).toEqual({ tags: ['a'] });
    expect(json((await app.request('/search?page=7')).body)).toEqual({ page: '7' });
  });

  it('is what the typed client sends for an array, and what the document describes', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('q', z.object({ tags: z.array(z.string()) }), { source: 'queryParams' })
      .withRoutes((r) => [r.get('/s', ({ q }) => q).uses('q')]);
    const response = await createClient<typeof app>({ app }).get('/s', {
      query: { tags: ['x', 'y'] },
    });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ tags: ['x', 'y'] });
    const document = openapi(app, { info: { title: 't', version: '1' } });
    expect(document.paths['/s']?.get?.parameters?.[0]).toMatchObject({
      name: 'tags',
      in: 'query',
      schema: { type: 'array' },
    });
  });

  it('reads the list properties of a schema with an id, behind its reference, in the document too', async () => {
    const Search = z
      .object({ q: z.string(), tag: z.array(z.string()).optional() })
      .meta({ id: 'Search' });
    const ById = z.object({ id: z.uuid() }).meta({ id: 'ById' });
    const Tenant = z.object({ 'x-tenant': z.string() }).meta({ id: 'TenantHeaders' });
    const app = new RestApplication({ logger: silentLogger })
      .validates('search', Search, { source: 'queryParams' })
      .validates('byId', ById, { source: 'pathParams' })
      .validates('tenant', Tenant, { source: 'headers' });
    app.get('/items/{id}', ({ search, byId, tenant }) => ({ search, byId, tenant }));
    const id = '0b8e0a76-5a1b-4d7e-9a1e-2f0e4a7c9b11';
    const response = await app.request(`/items/${id}?q=x&tag=a&tag=b`, {
      headers: { 'X-Tenant': 't' },
    });
    expect(response.statusCode).toBe(200);
    expect(json(response.body)).toEqual({
      search: { q: 'x', tag: ['a', 'b'] },
      byId: { id },
      tenant: { 'x-tenant': 't' },
    });
    const document = openapi(app, { info: { title: 't', version: '1' } });
    const parameters = document.paths['/items/{id}']?.get?.parameters ?? [];
    expect(parameters.map(({ name, in: where, required }) => [name, where, required])).toEqual([
      ['id', 'path', true],
      ['q', 'query', true],
      ['tag', 'query', false],
      ['x-tenant', 'header', true],
    ]);
    expect(parameters[0]?.schema).toMatchObject({ type: 'string', format: 'uuid' });
    expect(parameters[2]?.schema).toMatchObject({ type: 'array' });
  });

  it('gives every value to a key that takes a list in any member of a union or intersection', async () => {
    const ByTags = z.object({ kind: z.literal('tags'), tag: z.array(z.string()) });
    const ByText = z.object({ kind: z.literal('text'), q: z.string() });
    const Paging = z.object({ ids: z.array(z.string()).optional() });
    const app = new RestApplication({ logger: silentLogger })
      .validates('search', z.discriminatedUnion('kind', [ByTags, ByText]), {
        source: 'queryParams',
      })
      .validates('pick', z.union([Paging, z.object({ all: z.literal('yes') })]), {
        source: 'queryParams',
      })
      .validates('both', z.intersection(ByText, Paging), { source: 'queryParams' })
      .withRoutes((r) => [
        r.get('/search', ({ search }) => search).uses('search'),
        r.get('/pick', ({ pick }) => pick).uses('pick'),
        r.get('/both', ({ both }) => both).uses('both'),
      ]);
    const client = createClient<typeof app>({ app });
    const search = await client.get('/search', { query: { kind: 'tags', tag: ['x', 'y'] } });
    expect([search.status, search.data]).toEqual([200, { kind: 'tags', tag: ['x', 'y'] }]);
    const one = await app.request('/search?kind=tags&tag=x');
    expect(json(one.body)).toEqual({ kind: 'tags', tag: ['x'] });
    // A key no member takes as a list still gets its first value.
    const text = await app.request('/search?kind=text&q=a&q=b');
    expect(json(text.body)).toEqual({ kind: 'text', q: 'a' });
    expect(json((await app.request('/pick?ids=1&ids=2')).body)).toEqual({ ids: ['1', '2'] });
    const both = await app.request('/both?kind=text&q=a&ids=1&ids=2');
    expect(json(both.body)).toEqual({ kind: 'text', q: 'a', ids: ['1', '2'] });
  });

  it('gives a list every value beside a property JSON Schema cannot express', async () => {
    // z.coerce.date() and z.coerce.bigint() have no JSON Schema: zod throws for the whole object
    // unless told to write them as {}, and then no property was a list.
    const Search = z.object({
      tag: z.array(z.string()),
      since: z.coerce.date().optional(),
      cursor: z.coerce.bigint().optional(),
    });
    const app = new RestApplication({ logger: silentLogger })
      .validates('search', Search, { source: 'queryParams' })
      .withRoutes((r) => [
        r
          .get('/s', ({ search }) => ({ ...search, cursor: search.cursor?.toString() }))
          .uses('search'),
      ]);
    const response = await app.request('/s?tag=a&tag=b&since=1970-01-01&cursor=7');
    expect([response.statusCode, json(response.body)]).toEqual([
      200,
      { tag: ['a', 'b'], since: '1970-01-01T00:00:00.000Z', cursor: '7' },
    ]);
    const client = await createClient<typeof app>({ app }).get('/s', { query: { tag: ['x'] } });
    expect([client.status, client.data]).toEqual([200, { tag: ['x'] }]);
    // A vendor that refuses zod's option is asked again without it.
    const strict = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: (options: { libraryOptions?: unknown }) => {
            if (options.libraryOptions !== undefined) throw new Error('unknown option');
            return { type: 'object', properties: { tag: { type: 'array' } } };
          },
        },
      },
    };
    const other = new RestApplication({ logger: silentLogger }).validates('q', strict, {
      source: 'queryParams',
    });
    other.get('/q', ({ q }) => q);
    expect(json((await other.request('/q?tag=a&tag=b')).body)).toEqual({ tag: ['a', 'b'] });
  });

  it('gives first values to a validator without a JSON Schema of its input', async () => {
    const seen: unknown[] = [];
    const echo = echoValidator(seen);
    const app = new RestApplication({ logger: silentLogger }).validates('q', echo, {
      source: 'queryParams',
    });
    app.get('/q', ({ q }) => q);
    await app.request('/q?tags=a&tags=b');
    expect(seen).toEqual([{ tags: 'a' }]);
  });

  it('keeps every key the client chose as its own entry, lists only where the schema says (property)', async () => {
    const inputs: Record<string, unknown>[] = [];
    const listing = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => {
          inputs.push(value as Record<string, unknown>);
          return { value: { ok: true } };
        },
        jsonSchema: {
          input: () => ({
            type: 'object',
            // A property named __proto__ is an own key of the schema as of the input.
            properties: { tags: { $ref: '#/$defs/Tags' }, ['__proto__']: { type: 'array' } },
            $defs: { Tags: { type: 'array', items: { type: 'string' } } },
          }),
        },
      },
    };
    const app = new RestApplication({ logger: silentLogger }).validates('q', listing, {
      source: 'queryParams',
    });
    app.get('/q', ({ q }) => q);
    const key = fc.oneof(
      fc.constantFrom('tags', '__proto__', 'constructor', 'toString', 'hasOwnProperty'),
      fc.string({ minLength: 1, maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(key, fc.string({ maxLength: 4 })), { maxLength: 8 }),
        async (pairs) => {
          inputs.length = 0;
          const response = await app.request(`/q?${new URLSearchParams(pairs)}`);
          expect(response.statusCode).toBe(200);
          const input = inputs[0] as Record<string, unknown>;
          const expected = new Map<string, string[]>();
          for (const [name, value] of pairs)
            expected.set(name, [...(expected.get(name) ?? []), value]);
          expect(Object.keys(input).sort()).toEqual([...expected.keys()].sort());
          for (const [name, values] of expected) {
            const own = Object.getOwnPropertyDescriptor(input, name)?.value;
            expect(own).toEqual(name === 'tags' || name === '__proto__' ? values : values[0]);
          }
          expect(({} as Record<string, unknown>).tags).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('header validators and repeated field lines', () => {
  it('sees the lines of a repeated header as one list, joined with ", "', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'h',
      z.object({ 'x-role': z.string(), cookie: z.string().optional() }),
      { source: 'headers' },
    );
    app.get('/h', ({ h }) => h);
    const response = await app.request('/h', {
      headers: [
        ['X-Role', 'user'],
        ['x-role', 'admin'],
        ['cookie', 'a=1'],
        ['Cookie', 'b=2'],
      ],
    });
    // RFC 9110 §5.3: repeated lines are one comma-separated list; Cookie lines are rejoined with
    // "; ", as `cookies` reads them (RFC 9113 §8.2.3).
    expect(json(response.body)).toEqual({ 'x-role': 'user, admin', cookie: 'a=1; b=2' });
  });

  it('gives each header sent by its lower-case name, its lines joined in order (property)', async () => {
    const seen: unknown[] = [];
    const echo = echoValidator(seen);
    const app = new RestApplication({ logger: silentLogger }).validates('h', echo, {
      source: 'headers',
    });
    app.get('/h', ({ h }) => (h === undefined ? null : 'ok'));
    const name = fc.constantFrom('X-A', 'x-a', 'X-b', 'cookie', 'Cookie', 'accept');
    const value = fc.stringMatching(/^[a-z0-9=;,]{0,5}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 8 }), async (lines) => {
        seen.length = 0;
        await app.request('/h', { headers: lines });
        const expected = new Map<string, string[]>();
        for (const [line, text] of lines) {
          const key = line.toLowerCase();
          expected.set(key, [...(expected.get(key) ?? []), text]);
        }
        const input = seen[0] as Record<string, string>;
        for (const [key, values] of expected) {
          expect(input[key]).toBe(values.join(key === 'cookie' ? '; ' : ', '));
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('input nested deeper than a validator can follow', () => {
  it('is a 422, not a 500 and an error line', async () => {
    type Tree = Tree[];
    const tree: z.ZodType<Tree> = z.lazy(() => z.array(tree));
    const errors: string[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message) => void errors.push(message) },
    }).validates('tree', tree);
    app.post('/trees', ({ tree }) => ({ depth: tree.length }));
    const depth = 200_000;
    const response = await app.request('/trees', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${'['.repeat(depth)}${']'.repeat(depth)}`,
    });
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body as string).details).toEqual([
      { path: '', message: 'The input is nested too deeply to validate' },
    ]);
    expect(errors).toEqual([]);
    const shallow = await app.request('/trees', { method: 'POST', json: [[], [[]]] });
    expect(shallow.body).toBe('{"depth":2}');
  });

  it('is a 422 from a function validator too, synchronous or not', async () => {
    // A hand-written recursive walk runs out of stack as a recursive schema does.
    const depthOf = (value: unknown): number => (Array.isArray(value) ? 1 + depthOf(value[0]) : 0);
    const errors: string[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message) => void errors.push(message) },
    })
      .validates('walked', ({ jsonBody }) => ({ depth: depthOf(jsonBody) }))
      .validates('awaited', async ({ jsonBody }) => ({ depth: depthOf(await jsonBody) }));
    app.post('/walked', ({ walked }) => walked);
    app.post('/awaited', ({ awaited }) => awaited);
    const depth = 200_000;
    for (const path of ['/walked', '/awaited']) {
      const response = await app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `${'['.repeat(depth)}${']'.repeat(depth)}`,
      });
      expect([path, response.statusCode, JSON.parse(response.body as string).details]).toEqual([
        path,
        422,
        [{ path: '', message: 'The input is nested too deeply to validate' }],
      ]);
      const shallow = await app.request(path, { method: 'POST', json: [[[]]] });
      expect(shallow.body).toBe('{"depth":3}');
    }
    expect(errors).toEqual([]);
  });
});
