/**
 * `validateResponses: true`: handler results checked against `returns()` before rendering; a
 * mismatch is a 500 with its issues in debug mode, logged always. Off, no route has a check.
 */

import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Response, RestApplication, silentLogger } from '../../src/index.js';

const Note = z.object({ id: z.string(), text: z.string() });

function notesApp(
  options: { debug?: boolean; validateResponses?: boolean },
  logged: unknown[] = [],
) {
  const app = new RestApplication({
    ...options,
    logger: { ...silentLogger, error: (message, fields) => logged.push({ message, fields }) },
  });
  app.get('/good', () => ({ id: '1', text: 'a' })).returns(200, Note);
  app.get('/bad', () => ({ id: 1 })).returns(200, Note);
  app.get('/async-bad', async () => ({ id: '1' })).returns(200, Note);
  app.post('/created', () => [{ id: '1' }, 201]).returns(201, Note);
  app.get('/undeclared', () => ['x', 202]).returns(200, Note);
  app.get('/response', () => new Response(200, { id: 2 })).returns(200, Note);
  app.get('/bytes', () => new Uint8Array([1])).returns(200, Note);
  app.get('/errors-only', () => ({ anything: true })).returns(404);
  app.get('/no-schema', () => 'text').returns(200);
  app.get('/valibot', () => ({ n: 'x' })).returns(200, v.object({ n: v.number() }));
  app.get('/plain', () => ({ whatever: 1 }));
  return app;
}

describe('validateResponses', () => {
  it('answers a result that matches as usual', async () => {
    const response = await notesApp({ validateResponses: true }).request('/good');
    expect(response.statusCode).toBe(200);
  });

  it('lists the first 100 issues in the log line and the debug body, and counts them all', async () => {
    const logged: { message: string; fields: { issues: unknown[] } }[] = [];
    const app = notesApp({ validateResponses: true, debug: true }, logged);
    app.get('/many', () => Array.from({ length: 1000 }, () => 0)).returns(200, z.array(z.string()));
    const response = await app.request('/many');
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string).details.issues).toHaveLength(100);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toMatch(/: 1000 issue\(s\)$/);
    expect(logged[0]?.fields.issues).toHaveLength(100);
  });

  it('answers 500 with the issues in debug mode, and logs them', async () => {
    const logged: unknown[] = [];
    const app = notesApp({ validateResponses: true, debug: true }, logged);
    const response = await app.request('/bad');
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(response.body as string);
    expect(body.error).toBe('The response does not match its declaration');
    expect(body.details.status).toBe(200);
    expect(body.details.issues.map((issue: { path: string }) => issue.path)).toEqual([
      'id',
      'text',
    ]);
    expect(logged).toHaveLength(1);
    expect(String((logged[0] as { message: string }).message)).toMatch(
      /Route GET \/bad: the response does not match returns\(200\)/,
    );
  });

  it('without debug, a 500 without details; the log still has them', async () => {
    const logged: unknown[] = [];
    const response = await notesApp({ validateResponses: true }, logged).request('/bad');
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string)).not.toHaveProperty('details');
    expect((logged[0] as { fields: { issues: unknown[] } }).fields.issues).toHaveLength(2);
  });

  it('checks tuples by their status, Response objects by their body, async handlers too', async () => {
    const app = notesApp({ validateResponses: true, debug: true });
    for (const path of ['/async-bad', '/response', '/valibot']) {
      expect((await app.request(path)).statusCode, path).toBe(500);
    }
    expect((await app.request('/created', { method: 'POST' })).statusCode).toBe(500);
  });

  it('refuses a status the route does not declare when it declares a successful one', async () => {
    const app = notesApp({ validateResponses: true, debug: true });
    const response = await app.request('/undeclared');
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string).details.message).toBe('status 202 is not declared');
  });

  it('leaves alone what it cannot check: bytes, no schema, undeclared success, no returns()', async () => {
    const app = notesApp({ validateResponses: true, debug: true });
    for (const path of ['/bytes', '/errors-only', '/no-schema', '/plain']) {
      expect((await app.request(path)).statusCode, path).toBe(200);
    }
  });

  it('checks the value a JSON Response spells, not its text', async () => {
    const app = new RestApplication({ logger: silentLogger, validateResponses: true });
    app.get('/json', () => Response.json({ id: '1', text: 'a' })).returns(200, Note);
    app.get('/pair', () => Response.json(['a', 1])).returns(200, z.tuple([z.string(), z.number()]));
    app
      .get(
        '/typed',
        () =>
          new Response(200, '{"id":"1","text":"a"}', { contentType: 'application/problem+json' }),
      )
      .returns(200, Note);
    app.get('/json-bad', () => Response.json({ id: 1 })).returns(200, Note);
    app
      .get('/not-json', () => new Response(200, '{oops', { contentType: 'application/json' }))
      .returns(200, Note);
    for (const path of ['/json', '/pair', '/typed']) {
      expect([path, (await app.request(path)).statusCode]).toEqual([path, 200]);
    }
    for (const path of ['/json-bad', '/not-json']) {
      expect([path, (await app.request(path)).statusCode]).toEqual([path, 500]);
    }
  });

  it("refuses a valid input that is not the schema's output: a default left out, a transform not applied", async () => {
    const logged: unknown[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message, fields) => logged.push({ message, fields }) },
      validateResponses: true,
      debug: true,
    });
    const Pinned = z.object({ id: z.string(), pinned: z.boolean().default(false) });
    const Sized = z.object({ size: z.string().transform((text) => text.length) });
    app.get('/default-missing', () => ({ id: '1' })).returns(200, Pinned);
    app.get('/default-given', () => ({ id: '1', pinned: true })).returns(200, Pinned);
    app.get('/extra-key', () => ({ id: '1', pinned: false, other: 1 })).returns(200, Pinned);
    app
      .get('/optional', () => ({ id: '1' }))
      .returns(200, z.object({ id: z.string(), note: z.string().optional() }));
    app.get('/untransformed', () => ({ size: 'abc' })).returns(200, Sized);
    app
      .get('/nested', () => [{ id: '1', pinned: true }, { id: '2' }])
      .returns(200, z.array(Pinned));
    // Class instances (an ORM row) are the plain objects they are sent as.
    class Row {
      constructor(
        readonly id: string,
        readonly pinned: boolean,
      ) {}
    }
    const Page = z.object({ items: z.array(Pinned) });
    app.get('/rows', () => ({ items: [new Row('1', true)] })).returns(200, Page);
    app.get('/row-default', () => ({ items: [{ id: '1' }] })).returns(200, Page);
    const missing = await app.request('/default-missing');
    expect(missing.statusCode).toBe(500);
    expect(JSON.parse(String(missing.body)).details.issues).toEqual([
      { path: 'pinned', message: expect.stringMatching(/is missing/) },
    ]);
    const nested = await app.request('/nested');
    expect(JSON.parse(String(nested.body)).details.issues[0].path).toBe('[1].pinned');
    expect((await app.request('/untransformed')).statusCode).toBe(500);
    expect((await app.request('/row-default')).statusCode).toBe(500);
    for (const path of ['/default-given', '/extra-key', '/optional', '/rows']) {
      expect([path, (await app.request(path)).statusCode]).toEqual([path, 200]);
    }
    expect(logged.length).toBe(4);
  });

  it('is off by default: no route carries a check, and a wrong result goes out', async () => {
    const app = notesApp({});
    expect((await app.request('/bad')).statusCode).toBe(200);
    expect(
      app.routingTable().scoped.every((route) => route.compiled.resultCheck === undefined),
    ).toBe(true);
    const on = notesApp({ validateResponses: true });
    const checked = on.routingTable().scoped.filter((route) => route.compiled.resultCheck);
    // Every route that declares responses: all but /plain.
    expect(checked).toHaveLength(10);
  });
});
