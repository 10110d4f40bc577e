/**
 * Core HTTP behaviours: routing, methods, HEAD/OPTIONS, results, negotiation, bodies, errors.
 */
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import * as z from 'zod';
import {
  HttpError,
  MultiValueHeaders,
  Response,
  RestApplication,
  silentLogger,
} from '../../../src/index.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

function buildApp() {
  const app = new RestApplication({ logger: silentLogger, bodyLimit: 1024 })
    .dependency('store', () => new Map([['1', { id: '1', title: 'First' }]]), { scope: 'session' })
    .resourceExists('item', ({ store, pathParams }) => store.get(pathParams.id as string))
    .validates(
      'newItem',
      z.object({ title: z.string().min(1), tags: z.array(z.string()).optional() }),
    )
    .validates('filters', z.object({ tag: z.string() }).optional())
    .validates('multi', z.object({ 'x-multi': z.string().optional() }), { source: 'headers' });
  app.get('/', () => ({ hello: 'world' }));
  app.get('/items/{id}', ({ item }) => item);
  app.post('/items', ({ newItem }) => [{ id: '2', ...newItem }, 201, { Location: '/items/2' }]);
  app.delete('/items/{id}', ({ item }) => {
    void item;
    return null;
  });
  app.get('/params/{a}/{b}', ({ a, b, pathParams }) => ({ a, b, pathParams }));
  app.get('/files/{path*}', ({ path }) => ({ path }));
  app.get('/files/special', () => ({ special: true }));
  app.get('/text', () => 'hello text');
  app.get('/number', () => 42);
  app.get('/tuple', () => [{ made: true }, 202, { 'X-Custom': 'yes' }]);
  app.get('/tuple-headers', () => {
    const headers = new MultiValueHeaders([
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X-Custom', 'yes'],
    ]);
    return ['made', 202, headers];
  });
  app.get('/data-array', () => ['a', 'b']);
  app.get('/nothing', () => undefined);
  app.get('/query', ({ queryParams, request }) => ({
    first: queryParams,
    all: request.queryParamsAll,
  }));
  app.get('/headers', ({ headers }) => ({ values: headers.getAll('x-multi') }));
  app.get('/headers/validated', ({ multi }) => multi);
  app.post('/echo', ({ jsonBody }) => jsonBody);
  app.post('/search', ({ filters }) => ({ tag: filters?.tag ?? null }));
  app.post('/text-echo', ({ body }) => body);
  app.post('/form', ({ formBody }) => formBody);
  app.post('/bytes', async ({ request }) => {
    const bytes = await request.bytes();
    return new Response(200, bytes, { contentType: 'application/octet-stream' });
  });
  app.get(
    '/binary',
    () =>
      new Response(200, new Uint8Array([0, 1, 2, 253, 254, 255]), {
        contentType: 'application/octet-stream',
      }),
  );
  app.get('/cookies', () =>
    new Response(200, { ok: true })
      .setCookie('a', '1', { path: '/' })
      .setCookie('b', '2', { expires: new Date(Date.UTC(2030, 0, 1)), httpOnly: true }),
  );
  app.get('/boom', () => {
    throw new Error('database password is hunter2');
  });
  // Framing a handler got wrong: the bytes sent decide the length (RFC 9112 §6).
  app.get(
    '/framing/short',
    () =>
      new Response(200, 'hello world', {
        contentType: 'text/plain',
        headers: { 'Content-Length': '3' },
      }),
  );
  app.get(
    '/framing/long',
    () =>
      new Response(200, 'hello', {
        contentType: 'text/plain',
        headers: { 'Content-Length': '50' },
      }),
  );
  app.get(
    '/framing/chunked',
    () =>
      new Response(200, 'hello', {
        contentType: 'text/plain',
        headers: { 'Transfer-Encoding': 'chunked' },
      }),
  );
  app.get('/teapot', () => {
    throw new HttpError(418, 'I am a teapot', { brewing: false });
  });
  app.get('/async', async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { awaited: true };
  });
  app.get('/request-id', ({ requestId }) => ({ requestId }));
  app.post('/reset', () => [{ reset: true }, 205]);
  app.get('/interim', () => [null, 103]);
  app.get('/status/{status}', ({ status }) => {
    // A status assigned after the constructor checked the one it was given.
    const response = new Response(200, 'x');
    response.statusCode = Number(status);
    return response;
  });
  app.put('/multi', () => ({ method: 'PUT' }));
  app.patch('/multi', () => ({ method: 'PATCH' }));
  app.get('/typed/page', () => [
    '<h1>Hi</h1>',
    200,
    { 'Content-Type': 'text/html; charset=utf-8' },
  ]);
  app.get('/typed/problem', () => [
    { title: 'Gone' },
    410,
    { 'content-type': 'application/problem+json' },
  ]);
  // It serves a type no renderer makes, and says so: a request for it reaches the handler.
  app
    .get('/own/image', () => new Response(200, PNG, { contentType: 'image/png' }))
    .provides('image/png');
  app.provides('text/csv', ({ result }) => `csv:${JSON.stringify(result)}`);
  return app;
}

export const coreCases: CasesModule = {
  title: 'core',
  app: buildApp,
  cases(context) {
    const test = (title: string, body: Parameters<typeof conformanceTest>[2]) =>
      conformanceTest(context, title, body);

    test('GET returns JSON with 200, Content-Type and Content-Length', async (send) => {
      const response = await send(get('/'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.json()).toEqual({ hello: 'world' });
      expect(response.headers.get('content-length')).toBe(String(response.body.length));
    });

    test('path parameters are delivered by name and in pathParams', async (send) => {
      const response = await send(get('/params/x/y'));
      expect(response.json()).toEqual({ a: 'x', b: 'y', pathParams: { a: 'x', b: 'y' } });
    });

    test('path parameters are percent-decoded once and %2F stays inside one', async (send) => {
      const response = await send(get('/params/a%2Fb/%2541'));
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ a: 'a/b', b: '%41' });
    });

    test('repeated and trailing slashes do not change the route', async (send) => {
      expect((await send(get('//params//x//y/'))).json()).toMatchObject({ a: 'x', b: 'y' });
    });

    test('a catch-all takes the rest of the path, possibly empty', async (send) => {
      expect((await send(get('/files/a/b/c.txt'))).json()).toEqual({ path: 'a/b/c.txt' });
      expect((await send(get('/files'))).json()).toEqual({ path: '' });
    });

    test('a static segment wins over a catch-all', async (send) => {
      expect((await send(get('/files/special'))).json()).toEqual({ special: true });
    });

    test('dot-segments are removed before routing: no parameter receives a ..', async (send) => {
      expect((await send(get('/files/../params/x/y'))).json()).toMatchObject({ a: 'x', b: 'y' });
      expect((await send(get('/files/a/%2e%2e/./b/.%2E/c'))).json()).toEqual({ path: 'c' });
      expect((await send(get('/files/../../../files/special'))).json()).toEqual({ special: true });
    });

    test('a catch-all never matches an encoded separator', async (send) => {
      expect((await send(get('/files/a%2F..%2Fb'))).status).toBe(404);
    });

    test('unknown path is 404 with the error body', async (send) => {
      const response = await send(get('/nowhere'));
      expect(response.status).toBe(404);
      expect(response.json()).toEqual({ error: 'Not Found', statusCode: 404, path: '/nowhere' });
    });

    test('wrong method is 405 with Allow in canonical order', async (send) => {
      const response = await send({ method: 'POST', path: '/multi' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('PUT, PATCH, OPTIONS');
      const get405 = await send({ method: 'DELETE', path: '/' });
      expect(get405.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    test('OPTIONS without a handler answers 204 with Allow', async (send) => {
      const response = await send({ method: 'OPTIONS', path: '/items/1' });
      expect(response.status).toBe(204);
      expect(response.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
      expect(response.body.length).toBe(0);
    });

    test('HEAD runs the GET route and sends its headers without a body', async (send) => {
      const getResponse = await send(get('/items/1'));
      const head = await send({ method: 'HEAD', path: '/items/1' });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers.get('content-length')).toBe(getResponse.headers.get('content-length'));
      expect(head.headers.get('content-type')).toBe('application/json');
    });

    test('an unknown method is 501', async (send) => {
      const response = await send({ method: 'BREW', path: '/' });
      expect(response.status).toBe(501);
      expect((response.json() as { error: string }).error).toBe('Method "BREW" is not implemented');
    });

    test('malformed percent-encoding in the path is 400', async (send) => {
      const response = await send(get('/items/%E0%A4%A'));
      expect(response.status).toBe(400);
      expect((response.json() as { error: string }).error).toBe(
        'Malformed percent-encoding in request path',
      );
    });

    test('a tuple sets body, status and headers', async (send) => {
      const response = await send(get('/tuple'));
      expect(response.status).toBe(202);
      expect(response.headers.get('x-custom')).toBe('yes');
      expect(response.json()).toEqual({ made: true });
    });

    test('tuple headers may be a MultiValueHeaders, every value kept', async (send) => {
      const response = await send(get('/tuple-headers'));
      expect(response.status).toBe(202);
      expect(response.headers.get('x-custom')).toBe('yes');
      expect(response.headers.getAll('set-cookie')).toEqual(['a=1', 'b=2']);
    });

    test('a tuple that names its Content-Type is sent as that type, whatever Accept prefers', async (send) => {
      // RFC 9110 §8.3: Content-Type describes the content sent, so no renderer re-renders it.
      for (const accept of [undefined, 'text/html,*/*;q=0.8', 'application/json', 'text/plain']) {
        const headers = accept === undefined ? undefined : { Accept: accept };
        const page = await send(get('/typed/page', headers));
        expect(page.status, accept).toBe(200);
        expect(page.headers.get('content-type'), accept).toBe('text/html; charset=utf-8');
        expect(page.text(), accept).toBe('<h1>Hi</h1>');
      }
      // Data under a JSON type (RFC 6839 +json) is sent as JSON, also to a client preferring HTML.
      const problem = await send(get('/typed/problem', { Accept: 'text/html, */*;q=0.1' }));
      expect(problem.status).toBe(410);
      expect(problem.headers.get('content-type')).toBe('application/problem+json');
      expect(problem.json()).toEqual({ title: 'Gone' });
    });

    test('a route that provides a type without a renderer answers it from its handler', async (send) => {
      for (const accept of ['image/png', 'image/*', 'image/png, application/json;q=0.5']) {
        const response = await send(get('/own/image', { Accept: accept }));
        expect(response.status, accept).toBe(200);
        expect(response.headers.get('content-type'), accept).toBe('image/png');
        expect([...response.body], accept).toEqual([...PNG]);
        // JSON, HTML, text and CSV were possible too.
        expect(response.headers.get('vary'), accept).toBe('Accept');
      }
      // Any other type is still refused before the handler runs (SPEC §5.7 step 3).
      const gif = await send(get('/own/image', { Accept: 'image/gif' }));
      expect(gif.status).toBe(406);
      expect((gif.json() as { details: { available: string[] } }).details.available).toContain(
        'image/png',
      );
    });

    test('POST can answer 201 with a Location', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/items',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'New' }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe('/items/2');
      expect(response.json()).toEqual({ id: '2', title: 'New' });
    });

    test('an array that is not a tuple is data', async (send) => {
      expect((await send(get('/data-array'))).json()).toEqual(['a', 'b']);
    });

    test('undefined is 204 with no body', async (send) => {
      const response = await send(get('/nothing'));
      expect(response.status).toBe(204);
      expect(response.body.length).toBe(0);
    });

    test('null from DELETE is 204', async (send) => {
      expect((await send({ method: 'DELETE', path: '/items/1' })).status).toBe(204);
    });

    test('205 sends no content, with Content-Length: 0 (RFC 9110 §15.3.6)', async (send) => {
      const response = await send({ method: 'POST', path: '/reset' });
      expect(response.status).toBe(205);
      expect(response.body.length).toBe(0);
      expect(response.headers.get('content-length')).toBe('0');
    });

    test('a 1xx result is a 500, never an interim answer the client would wait on', async (send) => {
      const response = await send(get('/interim'));
      expect(response.status).toBe(500);
      expect(response.json()).toMatchObject({ statusCode: 500 });
    });

    test('a statusCode assigned outside 200-599, or a fraction, is a 500', async (send) => {
      for (const status of ['1000', '600', '200.5', '99', '101']) {
        const response = await send(get(`/status/${status}`));
        expect(response.status).toBe(500);
        expect(response.json()).toMatchObject({ statusCode: 500 });
      }
      expect((await send(get('/status/201'))).status).toBe(201);
    });

    test('async handlers are awaited', async (send) => {
      expect((await send(get('/async'))).json()).toEqual({ awaited: true });
    });

    test('a string result is text/plain by default and JSON when only JSON is accepted', async (send) => {
      const plain = await send(get('/text'));
      expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(plain.text()).toBe('hello text');
      const json = await send(get('/text', { accept: 'application/json' }));
      expect(json.json()).toBe('hello text');
    });

    test('a number is rendered as JSON', async (send) => {
      expect((await send(get('/number'))).text()).toBe('42');
    });

    test('negotiation honours q-values, wildcards and specificity', async (send) => {
      const html = await send(get('/', { accept: 'application/json;q=0.5, text/html' }));
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const text = await send(get('/', { accept: 'text/*, application/json;q=0.1' }));
      expect(text.headers.get('content-type')).toMatch(/^text\/html/);
      const noJson = await send(get('/', { accept: '*/*, application/json;q=0' }));
      expect(noJson.headers.get('content-type')).toMatch(/^text\/html/);
      const csv = await send(get('/', { accept: 'TEXT/CSV' }));
      expect(csv.text()).toBe('csv:{"hello":"world"}');
      expect(html.headers.getAll('vary').join(',')).toMatch(/Accept/);
    });

    test('a charset in Accept matches the charset each representation is sent in', async (send) => {
      const typeFor = async (accept: string) => {
        const response = await send(get('/', { accept }));
        return response.status === 200 ? response.headers.get('content-type') : response.status;
      };
      expect(await typeFor('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
      expect(await typeFor('text/html; charset="UTF-8"')).toBe('text/html; charset=utf-8');
      // JSON is always UTF-8 (RFC 8259 §8.1), though it defines no charset parameter.
      expect(await typeFor('application/json; charset=utf-8')).toBe('application/json');
      expect(await typeFor('text/plain; charset=iso-8859-1')).toBe(406);
      expect(await typeFor('application/json; charset=utf-16')).toBe(406);
    });

    test('HTML rendering escapes values', async (send) => {
      const response = await send(get('/items/1', { accept: 'text/html' }));
      expect(response.text()).toContain('&quot;title&quot;');
      expect(response.text()).not.toContain('"title"');
    });

    test('nothing acceptable is 406 listing the available types in a stable order', async (send) => {
      const response = await send(get('/', { accept: 'image/png' }));
      expect(response.status).toBe(406);
      expect(response.json()).toMatchObject({
        statusCode: 406,
        details: { available: ['application/json', 'text/html', 'text/plain', 'text/csv'] },
      });
    });

    test('JSON bodies are parsed', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: '{"a":[1,2]}',
      });
      expect(response.json()).toEqual({ a: [1, 2] });
    });

    test('malformed JSON is 400 saying so', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json' },
        body: '{"a":',
      });
      expect(response.status).toBe(400);
      expect((response.json() as { error: string }).error).toMatch(/Malformed JSON/);
    });

    test('a request without content is undefined to a JSON body validator, which decides', async (send) => {
      const optional = await send({ method: 'POST', path: '/search' });
      expect(optional.status).toBe(200);
      expect(optional.json()).toEqual({ tag: null });
      const filtered = await send({
        method: 'POST',
        path: '/search',
        headers: { 'content-type': 'application/json' },
        body: '{"tag":"a"}',
      });
      expect(filtered.json()).toEqual({ tag: 'a' });
      const required = await send({ method: 'POST', path: '/items' });
      expect(required.status).toBe(422);
      const untyped = await send({ method: 'POST', path: '/search', body: '{"tag":"a"}' });
      expect(untyped.status).toBe(415);
      expect((await send({ method: 'POST', path: '/echo' })).status).toBe(415);
    });

    test('a non-JSON content type on a JSON route is 415', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'text/plain' },
        body: 'hi',
      });
      expect(response.status).toBe(415);
      expect((response.json() as { error: string }).error).toBe(
        'Unsupported Content-Type "text/plain"; expected application/json',
      );
    });

    test('a body in a content coding is 415 with Accept-Encoding: identity (RFC 9110 §15.5.16)', async (send) => {
      const gzipped = await send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: new Uint8Array(gzipSync('{"a":1}')),
      });
      expect(gzipped.status).toBe(415);
      expect(gzipped.headers.get('accept-encoding')).toBe('identity');
      expect((gzipped.json() as { error: string }).error).toBe(
        'Unsupported Content-Encoding "gzip"; send the body unencoded',
      );
      const form = await send({
        method: 'POST',
        path: '/form',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-encoding': 'x-custom',
        },
        body: 'a=1',
      });
      expect(form.status).toBe(415);
      const text = await send({
        method: 'POST',
        path: '/text-echo',
        headers: { 'content-type': 'text/plain', 'content-encoding': 'br' },
        body: 'not really brotli',
      });
      expect(text.status).toBe(415);
      const identity = await send({
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
        body: '{"a":1}',
      });
      expect(identity.json()).toEqual({ a: 1 });
    });

    test('a body over the limit is 413', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/text-echo',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(4096),
      });
      expect(response.status).toBe(413);
      expect((response.json() as { error: string }).error).toBe(
        'Request body is larger than the limit of 1024 bytes',
      );
    });

    test('text and form bodies are read', async (send) => {
      const text = await send({
        method: 'POST',
        path: '/text-echo',
        headers: { 'content-type': 'text/plain' },
        body: 'héllo',
      });
      expect(text.text()).toBe('héllo');
      const form = await send({
        method: 'POST',
        path: '/form',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1&b=two+words&c=%C3%A9',
      });
      expect(form.json()).toEqual({ a: '1', b: 'two words', c: 'é' });
    });

    test('validation failures are 422 listing every issue with its path', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/items',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: '', tags: ['ok', 3] }),
      });
      expect(response.status).toBe(422);
      const body = response.json() as { details: Array<{ path: string }> };
      expect(body.details.map((issue) => issue.path).sort()).toEqual(['tags[1]', 'title']);
    });

    test('resourceExists returning nothing is 404 before the handler', async (send) => {
      expect((await send(get('/items/9'))).status).toBe(404);
      expect((await send({ method: 'DELETE', path: '/items/9' })).status).toBe(404);
    });

    test('a thrown error is 500 without its text', async (send) => {
      const response = await send(get('/boom'));
      expect(response.status).toBe(500);
      expect(response.text()).not.toContain('hunter2');
      expect(response.json()).toEqual({
        error: 'Internal Server Error',
        statusCode: 500,
        path: '/boom',
      });
    });

    test('an HttpError keeps its status, message and details', async (send) => {
      const response = await send(get('/teapot'));
      expect(response.status).toBe(418);
      expect(response.json()).toEqual({
        error: 'I am a teapot',
        statusCode: 418,
        path: '/teapot',
        details: { brewing: false },
      });
    });

    test('errors are plain text for clients that accept only text/plain', async (send) => {
      for (const accept of [
        'text/plain',
        'text/plain; charset=utf-8',
        'text/plain;charset=UTF-8',
      ]) {
        const response = await send(get('/nowhere', { accept }));
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(response.text()).toBe('Not Found');
      }
      // Another charset is not what is sent: the JSON body, acceptable or not, as for any 404.
      const latin = await send(get('/nowhere', { accept: 'text/plain; charset=iso-8859-1' }));
      expect(latin.headers.get('content-type')).toBe('application/json');
    });

    test('errors stay JSON, details and all, for clients that merely prefer text', async (send) => {
      for (const accept of ['text/plain, application/json;q=0.5', 'text/plain, */*;q=0.1']) {
        const response = await send(get('/nowhere', { accept }));
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.json()).toMatchObject({ error: 'Not Found', statusCode: 404 });
      }
      for (const accept of ['text/plain, application/json;q=0', 'text/*']) {
        const refused = await send(get('/nowhere', { accept }));
        expect(refused.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      }
    });

    test('repeated Accept lines are one list (RFC 9110 §5.3)', async (send) => {
      const response = await send(
        get('/nowhere', { accept: ['application/json;q=0', 'text/plain'] }),
      );
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.text()).toBe('Not Found');
    });

    test('the body decides Content-Length, whatever the handler wrote (RFC 9112 §6)', async (send) => {
      for (const [path, text] of [
        ['/framing/short', 'hello world'],
        ['/framing/long', 'hello'],
        ['/framing/chunked', 'hello'],
      ] as const) {
        const response = await send(get(path));
        expect(response.status).toBe(200);
        expect(response.text()).toBe(text);
        expect(response.headers.get('content-length')).toBe(String(text.length));
        expect(response.headers.get('transfer-encoding')).toBeUndefined();
      }
    });

    test('built-in errors vary on Accept, whichever form they took (RFC 9110 §12.5.5)', async (send) => {
      const plain = await send(get('/nowhere', { accept: 'text/plain' }));
      const json = await send(get('/nowhere'));
      const refused = await send(get('/', { accept: 'image/png' }));
      for (const response of [plain, json, refused]) {
        expect(response.headers.getAll('vary').join(',').toLowerCase()).toContain('accept');
      }
    });

    test('repeated query keys keep every value', async (send) => {
      const response = await send(get('/query?a=1&b=x%20y&a=2&c=a+b'));
      expect(response.json()).toEqual({
        first: { a: '1', b: 'x y', c: 'a b' },
        all: { a: ['1', '2'], b: ['x y'], c: ['a b'] },
      });
    });

    test('repeated request headers keep every value', async (send) => {
      const response = await send(get('/headers', { 'x-multi': ['one', 'two'] }));
      expect((response.json() as { values: string[] }).values.join(',').split(/,\s*/)).toEqual([
        'one',
        'two',
      ]);
    });

    test('a headers validator sees repeated lines as one comma-separated list', async (send) => {
      // RFC 9110 §5.3: one list whether the runtime joined the lines or kept them apart. An HTTP
      // API or a function URL joins them with "," before the function sees them, the library
      // with ", " (§5.6.1: the same list).
      const response = await send(get('/headers/validated', { 'x-multi': ['one', 'two'] }));
      const { 'x-multi': seen } = response.json() as { 'x-multi': string };
      expect(seen.split(/,\s*/)).toEqual(['one', 'two']);
    });

    test('every Set-Cookie survives as its own header', async (send) => {
      const response = await send(get('/cookies'));
      const cookies = response.headers.getAll('set-cookie');
      expect(cookies).toHaveLength(2);
      expect(cookies[0]).toBe('a=1; Path=/');
      expect(cookies[1]).toBe('b=2; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly');
    });

    test('binary bodies pass both ways unchanged', async (send) => {
      const bytes = new Uint8Array([0, 1, 2, 128, 254, 255]);
      const response = await send({
        method: 'POST',
        path: '/bytes',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(Array.from(response.body)).toEqual(Array.from(bytes));
      const binary = await send(get('/binary'));
      expect(Array.from(binary.body)).toEqual([0, 1, 2, 253, 254, 255]);
    });

    test('a well-formed X-Request-ID is echoed and a bad one replaced', async (send) => {
      const good = await send(get('/request-id', { 'x-request-id': 'abc-123.x_y' }));
      expect(good.headers.get('x-request-id')).toBe('abc-123.x_y');
      expect(good.json()).toEqual({ requestId: 'abc-123.x_y' });
      const bad = await send(get('/request-id', { 'x-request-id': 'bad id<script>' }));
      expect(bad.headers.get('x-request-id')).not.toBe('bad id<script>');
      expect(bad.headers.get('x-request-id')).toMatch(/^[\w.-]{1,128}$/);
    });
  },
};
