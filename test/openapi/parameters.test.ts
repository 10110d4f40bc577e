/**
 * Query and header parameters from validators whose schema is not a plain object (unions,
 * intersections, records), and the warnings of validators JSON Schema cannot (fully) express.
 */
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { type Logger, RestApplication, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const info = { title: 't', version: '1' };

function recording() {
  const warn = vi.fn();
  const logger: Logger = { ...silentLogger, warn };
  return { warn, logger };
}

describe('query parameters of a union validator', () => {
  it("are its members' properties, required only where every member requires them", () => {
    const { warn, logger } = recording();
    const app = new RestApplication({ logger }).validates(
      'lookup',
      z.union([
        z.object({ id: z.string(), expand: z.enum(['tags']).optional() }),
        z.object({ slug: z.string(), expand: z.enum(['tags']).optional() }),
        z.object({ id: z.coerce.number(), version: z.string() }),
      ]),
      { source: 'queryParams' },
    );
    app.get('/articles', ({ lookup }) => lookup);
    const doc = openapi(app, { info });
    expect(doc.paths['/articles']?.get?.parameters).toEqual([
      {
        name: 'id',
        in: 'query',
        required: false,
        schema: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
      {
        name: 'expand',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['tags'] },
      },
      { name: 'slug', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'version', in: 'query', required: false, schema: { type: 'string' } },
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('keep a property every member requires required (a discriminated union)', () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'search',
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('tag'), tag: z.string() }),
        z.object({ kind: z.literal('text'), q: z.string() }),
      ]),
      { source: 'queryParams' },
    );
    app.get('/search', ({ search }) => search);
    const parameters = openapi(app, { info }).paths['/search']?.get?.parameters;
    expect(parameters?.map(({ name, required }) => [name, required])).toEqual([
      ['kind', true],
      ['tag', false],
      ['q', false],
    ]);
    expect(parameters?.[0]?.schema).toEqual({
      anyOf: [
        { type: 'string', const: 'tag' },
        { type: 'string', const: 'text' },
      ],
    });
  });

  it("are an intersection's properties, required where any member requires them", () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'page',
      z.intersection(
        z.object({ limit: z.string().optional() }),
        z.union([z.object({ cursor: z.string() }), z.object({ offset: z.string() })]),
      ),
      { source: 'queryParams' },
    );
    app.get('/feed', ({ page }) => page);
    const parameters = openapi(app, { info }).paths['/feed']?.get?.parameters;
    expect(parameters?.map(({ name, required }) => [name, required])).toEqual([
      ['limit', false],
      ['cursor', false],
      ['offset', false],
    ]);
  });

  it('warns once when a schema names no properties at all', () => {
    const { warn, logger } = recording();
    const app = new RestApplication({ logger }).validates(
      'anything',
      z.record(z.string(), z.string()),
      { source: 'queryParams' },
    );
    app.get('/a', ({ anything }) => anything);
    app.get('/b', ({ anything }) => anything);
    const doc = openapi(app, { info });
    openapi(app, { info });
    expect(doc.paths['/a']?.get?.parameters).toBeUndefined();
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'OpenAPI: GET /a anything: its schema names no properties, so no parameters are documented for it',
    ]);
  });
});

describe('a function validator', () => {
  it('is documented as {} with one warning, as any validator without JSON Schema', () => {
    const { warn, logger } = recording();
    const app = new RestApplication({ logger })
      .validates('range', ({ queryParams }) => {
        if (queryParams.from === undefined) throw new Error('from is required');
        return { from: queryParams.from };
      })
      .validates('payload', ({ jsonBody }) => jsonBody as { a: number });
    app.get('/range', ({ range }) => range);
    app.get('/range/again', ({ range }) => range);
    app.post('/payload', ({ payload }) => payload);
    const doc = openapi(app, { info });
    openapi(app, { info });
    expect(Object.keys(doc.paths['/range']?.get?.responses ?? {})).toContain('422');
    expect(doc.paths['/payload']?.post?.requestBody?.content).toEqual({
      'application/json': { schema: {} },
    });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'OpenAPI: GET /range: the validator "range" is a function, with no JSON Schema; what it checks is not described (a body it reads is documented as {})',
      'OpenAPI: POST /payload: the validator "payload" is a function, with no JSON Schema; what it checks is not described (a body it reads is documented as {})',
    ]);
  });
});

describe('a validator with a member JSON Schema cannot express', () => {
  it('documents the other members, that one as {}, with one warning', () => {
    const { warn, logger } = recording();
    const app = new RestApplication({ logger }).validates(
      'q',
      z.object({ tag: z.array(z.string()), since: z.coerce.date().optional() }),
      { source: 'queryParams' },
    );
    app
      .get('/items', ({ q }) => ({ tags: q.tag, at: q.since ?? null }))
      .returns(200, z.object({ tags: z.array(z.string()), at: z.date().nullable() }));
    const doc = openapi(app, { info });
    openapi(app, { info });
    const operation = doc.paths['/items']?.get;
    expect(operation?.parameters).toEqual([
      {
        name: 'tag',
        in: 'query',
        required: true,
        schema: { type: 'array', items: { type: 'string' } },
      },
      { name: 'since', in: 'query', required: false, schema: {} },
    ]);
    expect(operation?.responses['200']).toMatchObject({
      content: {
        'application/json': {
          schema: {
            properties: { tags: { type: 'array' }, at: { anyOf: [{}, { type: 'null' }] } },
          },
        },
      },
    });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'OpenAPI: GET /items q: zod cannot express part of it as JSON Schema; that part is documented as {}',
      'OpenAPI: GET /items returns(200): zod cannot express part of it as JSON Schema; that part is documented as {}',
    ]);
  });
});
