/**
 * Request bodies beyond JSON: `accepts()` parsers at each level, the `Accept` of a 415
 * (RFC 9110 §15.5.16) and `Accept-Patch` on a PATCH (RFC 5789 §2.2), declared charsets.
 */
import { expect } from 'vitest';
import { RestApplication, Router, silentLogger } from '../../../src/index.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest } from './helpers.js';

const CAFE_LATIN1 = new Uint8Array([0x43, 0x61, 0x66, 0xe9]);

function buildApp() {
  const app = new RestApplication({ logger: silentLogger });
  app.accepts('text/csv', ({ body }) => body.split(',').map((cell) => cell.trim()));
  app.post('/rows', ({ parsedBody }) => ({ parsed: parsedBody }));
  app.patch('/notes', ({ jsonBody }) => jsonBody);
  app.post('/text', ({ body }) => ({ text: body }));
  app.post('/json', ({ jsonBody }) => jsonBody);
  app.post('/form', ({ formBody }) => formBody);
  app.patch('/sheets', ({ parsedBody }) => ({ parsed: parsedBody }));
  app.options('/sheets', () => undefined);
  const api = new Router().accepts('text/csv', ({ body }) => ({ router: body }));
  api.post('/rows', ({ parsedBody }) => ({ parsed: parsedBody }));
  api
    .post('/own', ({ parsedBody }) => ({ parsed: parsedBody }))
    .accepts('text/csv', ({ body }) => ({ route: body }));
  app.mount('/api', api);
  return app;
}

export const bodiesCases: CasesModule = {
  title: 'request bodies and charsets',
  app: buildApp,
  cases(context) {
    const test = (title: string, body: Parameters<typeof conformanceTest>[2]) =>
      conformanceTest(context, title, body);
    const post = (path: string, type: string, body: string | Uint8Array, method = 'POST') => ({
      method,
      path,
      headers: { 'content-type': type },
      body,
    });

    test('the application parser fills parsedBody', async (send) => {
      const response = await send(post('/rows', 'text/csv', 'a, b'));
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ parsed: ['a', 'b'] });
    });

    test('a router parser wins over the application one, a route parser over both', async (send) => {
      expect((await send(post('/api/rows', 'text/csv', 'x'))).json()).toEqual({
        parsed: { router: 'x' },
      });
      expect((await send(post('/api/own', 'text/csv', 'x'))).json()).toEqual({
        parsed: { route: 'x' },
      });
    });

    test('a body no parser takes is 415 with Accept', async (send) => {
      const response = await send(post('/rows', 'text/plain', 'x'));
      expect(response.status).toBe(415);
      expect(response.headers.get('accept')).toBe('text/csv');
    });

    test('a 415 from jsonBody lists application/json, and a PATCH gets Accept-Patch', async (send) => {
      const response = await send(post('/notes', 'text/plain', 'x', 'PATCH'));
      expect(response.status).toBe(415);
      expect(response.headers.get('accept')).toBe('application/json');
      expect(response.headers.get('accept-patch')).toBe('application/json');
    });

    test('OPTIONS on a path with a PATCH route says Accept-Patch (RFC 5789 §3.1)', async (send) => {
      const builtin = await send({ method: 'OPTIONS', path: '/notes' });
      expect(builtin.status).toBe(204);
      expect(builtin.headers.get('allow')).toBe('PATCH, OPTIONS');
      expect(builtin.headers.get('accept-patch')).toBe('application/json');
      // A route's own OPTIONS answer gets it too, as it gets Allow.
      const own = await send({ method: 'OPTIONS', path: '/sheets' });
      expect(own.status).toBe(204);
      expect(own.headers.get('allow')).toBe('PATCH, OPTIONS');
      expect(own.headers.get('accept-patch')).toBe('text/csv');
      // No PATCH route, no Accept-Patch.
      const rows = await send({ method: 'OPTIONS', path: '/rows' });
      expect(rows.headers.get('allow')).toBe('POST, OPTIONS');
      expect(rows.headers.has('accept-patch')).toBe(false);
    });

    test('an iso-8859-1 text body is decoded as declared', async (send) => {
      const response = await send(post('/text', 'text/plain; charset=iso-8859-1', CAFE_LATIN1));
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ text: 'Café' });
    });

    test('a utf-16le JSON body is decoded as declared', async (send) => {
      const bytes = new Uint8Array(Buffer.from('{"name":"Café ☕"}', 'utf16le'));
      const response = await send(post('/json', 'application/json; charset=utf-16le', bytes));
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ name: 'Café ☕' });
    });

    test('a windows-1252 form body is decoded as declared, escapes included', async (send) => {
      const bytes = new Uint8Array([...Buffer.from('name=Caf%E9&price=', 'latin1'), 0x80]);
      const response = await send(
        post('/form', 'application/x-www-form-urlencoded; charset=windows-1252', bytes),
      );
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ name: 'Café', price: '€' });
    });

    test('an unknown charset is 415', async (send) => {
      const response = await send(post('/text', 'text/plain; charset=x-no-such', CAFE_LATIN1));
      expect(response.status).toBe(415);
      expect(response.headers.get('accept')).toBe('*/*');
    });

    test('invalid UTF-8 without a charset is still 400', async (send) => {
      const response = await send(post('/text', 'text/plain', CAFE_LATIN1));
      expect(response.status).toBe(400);
    });
  },
};
