import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { serve } from '../../src/adapters/node/index.js';
import { type Logger, RestApplication, Router, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const Note = z.object({ id: z.string(), text: z.string(), pinned: z.boolean().default(false) });
const NewNote = z.object({ text: z.string().min(1), pinned: z.boolean().default(false) });
const notes = new Map<string, z.output<typeof Note>>([
  ['1', { id: '1', text: 'a', pinned: false }],
]);

function notesApp(logger: Logger = silentLogger) {
  const app = new RestApplication({ logger })
    .validates('newNote', NewNote)
    .validates('listQuery', z.object({ limit: z.coerce.number().int().optional() }), {
      source: 'queryParams',
    })
    .resourceExists('note', ({ pathParams }) => notes.get(pathParams.id ?? ''));
  app
    .get('/notes', ({ listQuery }) => [...notes.values()].slice(0, listQuery.limit))
    .describe({ summary: 'List notes', tags: ['notes'], operationId: 'listNotes' })
    .returns(200, z.array(Note));
  app
    .post('/notes', ({ newNote }) => [{ id: '2', ...newNote }, 201])
    .returns(201, Note, { description: 'The new note' });
  app.get('/internal', () => 'secret').describe({ hidden: true });
  const admin = new Router(app).authorized('user', ({ headers }) => headers.get('authorization'));
  admin
    .get('/notes/{id}', ({ note }) => note)
    .etag(({ note }) => note.id)
    .returns(200, Note);
  admin.delete('/notes/{id}', ({ note }) => {
    notes.delete(note.id);
    return null;
  });
  admin.get('/health', () => 'ok').public();
  app.mount('/admin', admin);
  return app;
}

describe('openapi()', () => {
  const document = openapi(notesApp(), {
    info: { title: 'Notes', version: '1.0.0' },
    servers: [{ url: 'https://notes.example' }],
  });

  it('documents the mounted routes under their full paths, hidden ones left out', () => {
    expect(document.openapi).toBe('3.1.1');
    expect(document.servers).toEqual([{ url: 'https://notes.example' }]);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/admin/health',
      '/admin/notes/{id}',
      '/notes',
    ]);
    expect(Object.keys(document.paths['/admin/notes/{id}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
    ]);
  });

  it('takes parameters and request bodies from the validators (input schemas)', () => {
    const list = document.paths['/notes']?.get;
    expect(list).toMatchObject({
      summary: 'List notes',
      tags: ['notes'],
      operationId: 'listNotes',
    });
    expect(list?.parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'integer' }),
      },
    ]);
    const create = document.paths['/notes']?.post;
    expect(create?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/newNote' } } },
    });
    // The input schema: `pinned` has a default, so the client may leave it out.
    expect(document.components?.schemas?.newNote).toMatchObject({ required: ['text'] });
    const get = document.paths['/admin/notes/{id}']?.get;
    expect(get?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      // Its ETag provider: the precondition headers (RFC 9110 §13.1).
      expect.objectContaining({ name: 'If-Match', in: 'header', required: false }),
      expect.objectContaining({ name: 'If-None-Match', in: 'header', required: false }),
    ]);
  });

  it('takes response bodies from returns() (output schemas)', () => {
    const created = document.paths['/notes']?.post?.responses['201'];
    expect(created).toMatchObject({
      description: 'The new note',
      content: { 'application/json': { schema: { required: ['id', 'text', 'pinned'] } } },
    });
    expect(document.paths['/notes']?.get?.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { type: 'array' } } },
    });
  });

  it('lists the responses the pipeline gives each route', () => {
    const statuses = (method: 'get' | 'post' | 'delete', path: string) =>
      Object.keys(document.paths[path]?.[method]?.responses ?? {});
    expect(statuses('get', '/notes')).toEqual(['200', '422']);
    expect(statuses('post', '/notes')).toEqual(['201', '400', '413', '415', '422']);
    expect(statuses('get', '/admin/notes/{id}')).toEqual([
      '200',
      '304',
      '400',
      '401',
      '404',
      '412',
    ]);
    expect(statuses('delete', '/admin/notes/{id}')).toEqual(['200', '400', '401', '404']);
    expect(statuses('get', '/admin/health')).toEqual(['200']);
    expect(document.paths['/admin/notes/{id}']?.get?.responses['404']).toEqual({
      $ref: '#/components/responses/NotFound',
    });
  });

  it('lists 400 where the pipeline answers it: a malformed body or path parameter', async () => {
    const app = new RestApplication({ logger: silentLogger, renderers: 'json' });
    app.post('/items', ({ jsonBody }) => jsonBody);
    app.get('/items/{id}', ({ id }) => ({ id }));
    app.get('/health', () => ({ ok: true }));
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    const badRequest = { $ref: '#/components/responses/BadRequest' };
    expect(doc.paths['/items']?.post?.responses['400']).toEqual(badRequest);
    expect(doc.paths['/items/{id}']?.get?.responses['400']).toEqual(badRequest);
    expect(doc.paths['/health']?.get?.responses['400']).toBeUndefined();
    expect(doc.components?.responses?.BadRequest).toEqual({
      description: 'Bad Request: the request is malformed',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    // What the document promises is what the application answers.
    const malformedJson = await app.request('/items', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    expect(malformedJson.statusCode).toBe(400);
    expect((await app.request('/items/%E0%A4%A')).statusCode).toBe(400);
    expect((await app.request('/items/42')).statusCode).toBe(200);
  });

  it('documents authorization hooks as security schemes, HTTP bearer by default', () => {
    expect(document.components?.securitySchemes).toEqual({
      user: { type: 'http', scheme: 'bearer' },
    });
    expect(document.paths['/admin/notes/{id}']?.get?.security).toEqual([{ user: [] }]);
    expect(document.paths['/admin/health']?.get?.security).toBeUndefined();
  });

  it('takes the scheme given with { openapi }, and 403 for forbidden hooks', () => {
    const app = new RestApplication({ logger: silentLogger })
      .authorized('apiKey', ({ headers }) => headers.get('x-api-key'), {
        openapi: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      })
      .forbidden('readOnly', ({ apiKey }) => apiKey === 'read');
    app.put('/settings', ({ readOnly, jsonBody }) => [readOnly, jsonBody]);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(doc.components?.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    const put = doc.paths['/settings']?.put;
    expect(put?.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(put?.responses ?? {})).toEqual(['200', '400', '401', '403', '413', '415']);
    expect(put?.requestBody?.content).toEqual({ 'application/json': { schema: {} } });
  });

  it("documents the validators and resourceExists a router's or a global hook reaches, as the handler's", async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('credentials', z.object({ 'x-api-key': z.string() }), { source: 'headers' })
      .validates('scope', z.object({ tenant: z.string() }), { source: 'queryParams' })
      .resourceExists('tenant', ({ scope }) => (scope.tenant === 't' ? { id: 't' } : undefined));
    const router = new Router(app)
      .authorized('user', ({ credentials }) => (credentials['x-api-key'] === 'k' ? 'u' : undefined))
      .forbidden('denied', ({ tenant }) => tenant.id !== 't');
    router.get('/thing', () => 'x');
    app.mount('/r', router);
    const global = new RestApplication({ logger: silentLogger })
      .validates('credentials', z.object({ 'x-api-key': z.string() }), { source: 'headers' })
      .authorized('user', ({ credentials }) => credentials['x-api-key'], { global: true });
    global.get('/other', () => 'x');
    const thing = openapi(app, { info: { title: 't', version: '1' } }).paths['/r/thing']?.get;
    expect(thing?.parameters?.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      'query:tenant:true',
      'header:x-api-key:true',
    ]);
    expect(Object.keys(thing?.responses ?? {})).toEqual(['200', '401', '403', '404', '422']);
    const other = openapi(global, { info: { title: 't', version: '1' } }).paths['/other']?.get;
    expect(other?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['header:x-api-key']);
    expect(other?.responses).toHaveProperty('422');
    // What the document says is what the route answers.
    expect((await app.request('/r/thing?tenant=t')).statusCode).toBe(422);
    const asked = { headers: { 'X-API-Key': 'k' } };
    expect((await app.request('/r/thing', asked)).statusCode).toBe(422);
    expect((await app.request('/r/thing?tenant=zz', asked)).statusCode).toBe(404);
    expect((await app.request('/r/thing?tenant=t', asked)).statusCode).toBe(200);
  });

  it("names each route's security scheme after the hook that guards it", () => {
    const app = new RestApplication({ logger: silentLogger });
    const admin = new Router(app).authorized('admin', ({ headers }) =>
      headers.get('authorization'),
    );
    admin.get('/x', () => 1);
    const users = new Router(app).authorized('user', ({ headers }) => headers.get('authorization'));
    users.get('/me', () => 1);
    const keys = new Router(app).authorized('user', ({ headers }) => headers.get('x-api-key'), {
      openapi: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    keys.get('/key', () => 1);
    app.mount('/admin', admin).mount('/users', users).mount('/keys', keys);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(doc.paths['/admin/x']?.get?.security).toEqual([{ admin: [] }]);
    expect(doc.paths['/users/me']?.get?.security).toEqual([{ user: [] }]);
    expect(doc.paths['/keys/key']?.get?.security).toEqual([{ user2: [] }]);
    expect(doc.components?.securitySchemes).toEqual({
      admin: { type: 'http', scheme: 'bearer' },
      user: { type: 'http', scheme: 'bearer' },
      user2: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
  });

  it('adds 406 where the route or the application registers renderers of its own', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/report', () => ({ a: 1 })).provides('text/csv', () => 'a\n1');
    app.get('/plain', () => ({ a: 1 }));
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(Object.keys(doc.paths['/report']?.get?.responses ?? {})).toEqual(['200', '406']);
    expect(Object.keys(doc.paths['/plain']?.get?.responses ?? {})).toEqual(['200']);
  });

  it('lists the types provides() renders beside a declared success body', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.provides('text/csv', () => 'a');
    app
      .get('/page', () => ({ title: 'x' }))
      .returns(200, z.object({ title: z.string() }))
      .returns(404)
      .provides('text/html; charset=utf-8', ({ result }) => `<h1>${String(result)}</h1>`);
    const responses = openapi(app, { info: { title: 't', version: '1' } }).paths['/page']?.get
      ?.responses as Record<string, { content?: Record<string, unknown> }>;
    expect(Object.keys(responses['200']?.content ?? {})).toEqual([
      'application/json',
      'text/html; charset=utf-8',
      'text/csv',
    ]);
    expect(responses['404']?.content).toBeUndefined();
  });

  it("documents no 406 for routes that do not negotiate (a static router's files)", async () => {
    const { StaticRouter } = await import('../../src/static/index.js');
    const app = new RestApplication({ logger: silentLogger });
    app.provides('text/csv', () => 'a');
    app.mount('/static', new StaticRouter(import.meta.dirname));
    app.get('/report', () => ({ a: 1 }));
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(Object.keys(doc.paths['/static/{path}']?.get?.responses ?? {})).not.toContain('406');
    expect(Object.keys(doc.paths['/report']?.get?.responses ?? {})).toContain('406');
    expect(
      (await app.request('/static/document.test.ts', { headers: { Accept: 'image/png' } }))
        .statusCode,
    ).toBe(200);
  });

  it("documents the 304 of etag: 'auto' on GET routes, and their conditional headers", async () => {
    const app = new RestApplication({ logger: silentLogger, etag: 'auto' });
    app.get('/notes', () => [{ id: 1 }]);
    app.post('/notes', () => [{ id: 2 }, 201]);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    const get = doc.paths['/notes']?.get;
    expect(Object.keys(get?.responses ?? {})).toEqual(['200', '304', '412']);
    expect(get?.parameters?.map((p) => p.name)).toEqual(['If-Match', 'If-None-Match']);
    expect(Object.keys(doc.paths['/notes']?.post?.responses ?? {})).not.toContain('304');
    // What the document says is what the server does.
    const first = await app.request('/notes');
    const tag = first.headers.get('etag') as string;
    const again = await app.request('/notes', { headers: { 'If-None-Match': tag } });
    expect(again.statusCode).toBe(304);
  });

  it("documents error bodies as JSON only with renderers: 'json'", async () => {
    const app = new RestApplication({ logger: silentLogger, renderers: 'json' }).resourceExists(
      'note',
      () => null,
    );
    app.get('/notes/{id}', ({ note }) => note);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    const notFound = doc.components?.responses?.NotFound as { content: object };
    expect(Object.keys(notFound.content)).toEqual(['application/json']);
    const plain = await app.request('/notes/1', { headers: { Accept: 'text/plain' } });
    expect(plain.headers.get('content-type')).toBe('application/json');
    const negotiated = new RestApplication({ logger: silentLogger }).resourceExists(
      'n',
      () => null,
    );
    negotiated.get('/n', ({ n }) => n);
    const other = openapi(negotiated, { info: { title: 't', version: '1' } });
    const both = other.components?.responses?.NotFound as { content: object };
    expect(Object.keys(both.content)).toEqual(['application/json', 'text/plain']);
  });

  it('documents a part that several validators check as needing all of them', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('identity', z.object({ id: z.string() }))
      .validates('contact', z.object({ email: z.string() }))
      .validates('paging', z.object({ page: z.string() }), { source: 'queryParams' })
      .validates(
        'sorting',
        z.object({ sort: z.string().optional(), page: z.string().optional() }),
        {
          source: 'queryParams',
        },
      );
    app.post('/users', ({ identity, contact, paging, sorting }) => ({
      identity,
      contact,
      paging,
      sorting,
    }));
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    const post = doc.paths['/users']?.post;
    expect(post?.requestBody?.content['application/json']?.schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/identity' }, { $ref: '#/components/schemas/contact' }],
    });
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(
      expect.arrayContaining(['identity', 'contact']),
    );
    // `page` once, required because one of the two requires it.
    expect(post?.parameters?.map(({ name, required }) => [name, required])).toEqual([
      ['page', true],
      ['sort', false],
    ]);
    // The server indeed wants both bodies' fields.
    const half = await app.request('/users?page=1', { method: 'POST', json: { id: 'x' } });
    expect(half.statusCode).toBe(422);
  });

  it('documents a catch-all as a plain parameter', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/files/{path*}', ({ path }) => path);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    expect(doc.paths['/files/{path}']?.get?.parameters).toEqual([
      { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('documents a catch-all in the path item of a one-segment parameter in its place', () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const app = new RestApplication({ logger });
    app.get('/files/{name}', ({ name }) => ({ one: name })).describe({ operationId: 'getFile' });
    app.get('/files/{name*}', ({ name }) => ({ rest: name })).describe({ operationId: 'getTree' });
    app.get('/docs/{id}', ({ id }) => id);
    app.delete('/docs/{path*}', ({ path }) => path);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    // OpenAPI 3.1: no two path items of the same hierarchy.
    expect(Object.keys(doc.paths)).toEqual(['/files/{name}', '/docs/{id}']);
    expect(doc.paths['/files/{name}']?.get?.operationId).toBe('getFile');
    expect(doc.paths['/docs/{id}']?.delete?.parameters?.[0]).toMatchObject({
      name: 'id',
      in: 'path',
    });
    // One GET per path item: the catch-all's is left out, and the log says so.
    expect(warnings).toEqual([
      'OpenAPI: GET /files/{name*} is left out: its path item /files/{name} already has a GET (OpenAPI has no catch-all templates)',
    ]);
  });

  it('documents one path item for templates that differ only in parameter names', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
    app.delete('/users/{userId}/posts/{post}', ({ userId, post }) => ({ userId, post }));
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    // OpenAPI 3.1, Paths Object: templates of the same hierarchy must not differ by names only.
    expect(Object.keys(doc.paths)).toEqual(['/users/{id}/posts/{postId}']);
    const item = doc.paths['/users/{id}/posts/{postId}'];
    expect(Object.keys(item ?? {})).toEqual(['get', 'delete']);
    expect(item?.delete?.parameters?.map(({ name, in: where }) => `${where}:${name}`)).toEqual([
      'path:id',
      'path:postId',
    ]);
  });

  it('keys path items by the path a request carries: static segments percent-encoded', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const templates = [
      '/100%/{id}',
      '/q?/{id}',
      '/c#/{id}',
      '/a b/café/{id}',
      '/$&+,;=:@/{id}',
    ] as const;
    for (const template of templates) app.get(template, ({ id }) => ({ template, id }));
    app.get('/files/50%/{path*}', ({ path }) => ({ template: '/files/50%/{path*}', id: path }));
    const server = await serve(app, { port: 0, host: '127.0.0.1' });
    try {
      const document = openapi(app, {
        info: { title: 't', version: '1' },
        servers: [{ url: server.url }],
      });
      // RFC 3986 §3.3: the router decodes each segment once (docs/application.md), and `?` or
      // `#` would end the path; what a segment may hold as written stays, parameters too.
      expect(Object.keys(document.paths)).toEqual([
        '/100%25/{id}',
        '/q%3F/{id}',
        '/c%23/{id}',
        '/a%20b/caf%C3%A9/{id}',
        '/$&+,;=:@/{id}',
        '/files/50%25/{path}',
      ]);
      // An OpenAPI consumer: the server's URL, the key, each parameter percent-encoded.
      const answers = [];
      for (const key of Object.keys(document.paths)) {
        const path = key.replace(/\{(\w+)\}/g, () => encodeURIComponent('1 ?'));
        const response = await fetch(`${document.servers?.[0]?.url}${path}`);
        answers.push([response.status, await response.json()]);
      }
      expect(answers).toEqual(
        [...templates, '/files/50%/{path*}'].map((template) => [200, { template, id: '1 ?' }]),
      );
    } finally {
      await server.close();
    }
    // A lone surrogate has no UTF-8, so no URL carries it: documented as written.
    const unreachable = new RestApplication({ logger: silentLogger });
    unreachable.get('/x\uD800/{id}', ({ id }) => id);
    expect(Object.keys(openapi(unreachable, { info: { title: 't', version: '1' } }).paths)).toEqual(
      ['/x\uD800/{id}'],
    );
  });

  it('documents a validator without Standard JSON Schema as {} and warns once', () => {
    const warn = vi.fn();
    const logger: Logger = { ...silentLogger, warn };
    const opaque = {
      '~standard': {
        version: 1 as const,
        vendor: 'custom',
        validate: (value: unknown) => ({ value }),
      },
    };
    const app = new RestApplication({ logger }).validates('thing', opaque);
    app.post('/things', ({ thing }) => thing);
    app.put('/things', ({ thing }) => thing);
    const doc = openapi(app, { info: { title: 't', version: '1' } });
    openapi(app, { info: { title: 't', version: '1' } });
    expect(doc.components?.schemas?.thing).toEqual({});
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/custom/);
  });

  it('refuses a status declared twice and an operationId used twice', () => {
    const app = new RestApplication({ logger: silentLogger });
    const route = app.get('/a', () => 1).returns(200);
    expect(() => route.returns(200)).toThrow(/already declared/);
    app.get('/b', () => 1).describe({ operationId: 'same' });
    app.get('/c', () => 1).describe({ operationId: 'same' });
    expect(() => openapi(app, { info: { title: 't', version: '1' } })).toThrow(/used twice/);
  });

  it('refuses an empty operationId, a mediaType that is not a media type and a schema that is no Standard Schema where they are given', () => {
    const info = { title: 't', version: '1' };
    const unnamed = new RestApplication({ logger: silentLogger });
    expect(() => unnamed.get('/a', () => 1).describe({ operationId: '' })).toThrow(
      expect.objectContaining({
        name: 'SetupError',
        message: 'describe() of GET /a: operationId must be a non-empty string, got ""',
      }),
    );
    for (const mediaType of ['json', '', 'text/', 'application/json ish']) {
      const app = new RestApplication({ logger: silentLogger });
      expect(
        () => app.get('/b', () => 1).returns(200, z.number(), { mediaType }),
        mediaType,
      ).toThrow(`returns() of GET /b: mediaType must be a media type such as "text/csv"`);
    }
    const plain = new RestApplication({ logger: silentLogger });
    // A plain JSON Schema, as JavaScript may pass it (TypeScript refuses it).
    const jsonSchema = { type: 'string' } as unknown as z.ZodString;
    expect(() => plain.get('/e', () => 'hi').returns(200, jsonSchema)).toThrow(
      expect.objectContaining({
        name: 'SetupError',
        message:
          'returns() of GET /e: the schema must be a Standard Schema validator (zod, valibot, arktype) or left out, got an object without "~standard"',
      }),
    );
    expect(() => openapi(plain, { info })).not.toThrow();
    const ranged = new RestApplication({ logger: silentLogger });
    ranged
      .get('/c', () => 1)
      .returns(200, z.number(), { mediaType: 'application/vnd.a+json; v=1' });
    ranged.get('/d', () => 1).returns(200, undefined, { mediaType: 'image/*' });
    expect(() => openapi(ranged, { info })).not.toThrow();
  });
});

describe('documents built again', () => {
  it('are equal, and changing one changes neither the next nor the validators', () => {
    const Shared = z.object({ name: z.string() });
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => ({ name: 'a' })).returns(200, Shared);
    app.get('/b', () => ({ name: 'b' })).returns(200, Shared);
    const info = { title: 'T', version: '1' };
    const first = openapi(app, { info });
    type Declared = { content: Record<string, { schema: { extra?: boolean } }> };
    const schema = (document: typeof first) =>
      (document.paths['/a']?.get?.responses['200'] as Declared | undefined)?.content[
        'application/json'
      ];
    const changed = schema(first);
    if (changed !== undefined) changed.schema.extra = true;
    const second = openapi(app, { info });
    expect(JSON.stringify(schema(second))).not.toContain('extra');
    expect(second.paths['/b']).toEqual(openapi(app, { info }).paths['/b']);
  });
});

describe('response schemas', () => {
  const info = { title: 't', version: '1' };
  type Declared = { content: Record<string, { schema: Record<string, unknown> }> };
  const declared = (document: ReturnType<typeof openapi>, path: string) =>
    (document.paths[path]?.get?.responses['200'] as Declared | undefined)?.content[
      'application/json'
    ]?.schema;

  it('forbid unknown keys only where the schema refuses them: strict, not z.object', () => {
    const app = new RestApplication({ logger: silentLogger });
    const id = z.string();
    app.get('/stripped', () => ({ id: 'a' })).returns(200, z.object({ id }));
    app.get('/strict', () => ({ id: 'a' })).returns(200, z.strictObject({ id }));
    app.get('/dot-strict', () => ({ id: 'a' })).returns(200, z.object({ id }).strict());
    app.get('/loose', () => ({ id: 'a' })).returns(200, z.looseObject({ id }));
    app.get('/catchall', () => ({ id: 'a' })).returns(200, z.object({ id }).catchall(z.number()));
    app
      .get('/nested', () => [{ inner: { id: 'a' }, closed: { id: 'b' } }])
      .returns(200, z.array(z.object({ inner: z.object({ id }), closed: z.strictObject({ id }) })));
    const document = openapi(app, { info });
    expect(declared(document, '/stripped')).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    expect(declared(document, '/strict')).toMatchObject({ additionalProperties: false });
    expect(declared(document, '/dot-strict')).toMatchObject({ additionalProperties: false });
    expect(declared(document, '/loose')).toMatchObject({ additionalProperties: {} });
    expect(declared(document, '/catchall')).toMatchObject({
      additionalProperties: { type: 'number' },
    });
    const item = declared(document, '/nested')?.items as Declared['content'][string]['schema'];
    const properties = item.properties as Record<string, Record<string, unknown>>;
    expect(item).not.toHaveProperty('additionalProperties');
    expect(properties.inner).not.toHaveProperty('additionalProperties');
    expect(properties.closed).toMatchObject({ additionalProperties: false });
    // Request schemas are unchanged: a z.object body takes unknown keys, and strips them.
    const body = new RestApplication({ logger: silentLogger })
      .validates('note', z.object({ id }))
      .validates('strictNote', z.strictObject({ id }));
    body.post('/a', ({ note }) => note);
    body.post('/b', ({ strictNote }) => strictNote);
    const schemas = openapi(body, { info }).components?.schemas;
    expect(schemas?.note).not.toHaveProperty('additionalProperties');
    expect(schemas?.strictNote).toMatchObject({ additionalProperties: false });
  });

  it('accept what the server sends for a z.object: a key the schema strips, checked with ajv', async () => {
    const Note = z.object({ id: z.string(), text: z.string(), meta: z.object({ n: z.number() }) });
    const app = new RestApplication({ logger: silentLogger, validateResponses: true });
    app
      .get('/i', () => ({ id: 'x', text: 'y', internalSecret: 'z', meta: { n: 1, extra: true } }))
      .returns(200, Note);
    const server = await serve(app, { port: 0, host: '127.0.0.1' });
    try {
      const response = await fetch(`${server.url}/i`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      // The server sends the handler's keys as they are (docs/openapi.md, "Checking responses").
      expect(body).toEqual({
        id: 'x',
        text: 'y',
        internalSecret: 'z',
        meta: { n: 1, extra: true },
      });
      const ajv = new Ajv2020({ strict: false });
      const schema = declared(openapi(app, { info }), '/i');
      expect(ajv.validate(schema as object, body), JSON.stringify(ajv.errors)).toBe(true);
      // The check still refuses what the schema does not allow.
      expect(ajv.validate(schema as object, { ...body, text: 1 })).toBe(false);
    } finally {
      await server.close();
    }
  });
});
