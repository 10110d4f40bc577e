/**
 * The generated document against the official OpenAPI 3.1 schema (with its JSON Schema
 * dialect), checked by a maintained validator; its internal references must all resolve.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RestApplication, Router, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

function fullApp() {
  const Bookmark = z.object({ id: z.uuid(), url: z.url(), tags: z.array(z.string()).default([]) });
  const app = new RestApplication({ logger: silentLogger })
    .validates('bookmark', Bookmark.omit({ id: true }))
    .validates(
      'search',
      z.object({ q: z.string().optional(), page: z.coerce.number().optional() }),
      {
        source: 'queryParams',
      },
    )
    .validates('client', z.object({ 'x-client': z.string(), authorization: z.string() }), {
      source: 'headers',
    })
    .validates('form', z.object({ email: z.email() }), { source: 'formBody' })
    .resourceExists('found', ({ pathParams }) =>
      pathParams.id === '1' ? { id: pathParams.id } : undefined,
    )
    .provides('text/csv', () => '');
  app
    .get('/bookmarks', ({ search, client }) => [search, client])
    .describe({ summary: 'Search', description: 'Finds bookmarks', tags: ['bookmarks'] })
    .returns(200, z.array(Bookmark), { description: 'Matches' });
  app.post('/bookmarks', ({ bookmark }) => [bookmark, 201]).returns(201, Bookmark);
  app.post('/subscribe', ({ form }) => form).returns(204);
  app
    .get('/bookmarks/{id}', ({ found }) => found)
    .etag(({ found }) => found.id)
    .lastModified(() => new Date(0))
    .returns(200, Bookmark)
    .describe({ deprecated: true, operationId: 'getBookmark' });
  const admin = new Router(app)
    .authorized('admin', ({ headers }) => headers.get('authorization'))
    .forbidden('notOwner', () => false);
  admin
    .delete('/bookmarks/{id}', ({ found }) => [found, 204])
    .returns(204, undefined, {
      description: 'Deleted',
    });
  app.mount('/admin', admin);
  app.get('/files/{path*}', ({ path }) => path);
  // Recursive and shared (`meta({ id })`) schemas come with `$defs` and `$ref: '#'`.
  const Tag = z.object({ label: z.string() }).meta({ id: 'Tag' });
  const Category = z.object({
    name: z.string(),
    tag: Tag,
    get children() {
      return z.array(Category);
    },
  });
  app.get('/categories', () => []).returns(200, z.array(Category));
  app.get('/category', () => ({})).returns(200, Category);
  return app;
}

describe('the generated document', () => {
  it('is valid OpenAPI 3.1 and its references resolve', async () => {
    const document = openapi(fullApp(), {
      info: { title: 'Bookmarks', version: '1.0.0', license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: 'http://localhost:3000' }],
    });
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    // The validator does refuse a broken document: an Info Object needs its version.
    const broken = { ...document, info: { title: 'Bookmarks' } };
    expect((await new Validator().validate(JSON.parse(JSON.stringify(broken)))).valid).toBe(false);
    expect(document.paths['/category']?.get?.responses['200']).toEqual({
      description: 'OK',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Schema' } },
        // The application's provides() renders the same success for a client asking for it.
        'text/csv': {},
      },
    });
    expect(JSON.stringify(document)).not.toMatch(/"#\/\$defs|"\$ref":"#"/);
    // Accept, Content-Type and Authorization headers are not parameters (the OpenAPI 3.1 Parameter Object).
    expect(document.paths['/bookmarks']?.get?.parameters?.map((p) => p.name)).toEqual([
      'q',
      'page',
      'x-client',
    ]);
  });
});
