/**
 * The pipeline answers synchronously when nothing on the way is asynchronous, and goes
 * asynchronous from the first promise on. Both ways must give the same responses.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { dispatch as dispatchRequest } from '../../../src/app/kernel.js';
import { isPending, isThenable } from '../../../src/app/thenable.js';
import { Request, Response, RestApplication, silentLogger } from '../../../src/index.js';

function app() {
  const application = new RestApplication({ logger: silentLogger }).dependency(
    'slow',
    async () => 'slow value',
  );
  application.get('/sync/{id}', ({ id }) => ({ id }));
  application.get('/async/{id}', async ({ id }) => ({ id }));
  application.get('/provider', ({ slow }) => ({ slow }));
  application.get('/throws', () => {
    throw new Error('boom');
  });
  application.get('/etag', () => new Response(200, 'tagged', { etag: 'v1' }));
  application.post('/echo', ({ jsonBody }) => jsonBody);
  return application;
}

function request(path: string, init: Partial<ConstructorParameters<typeof Request>[0]> = {}) {
  return new Request({ method: 'GET', path, ...init });
}

async function settled(value: Response | Promise<Response>) {
  const response = await value;
  return {
    status: response.statusCode,
    body: response.body,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
  };
}

describe('synchronous pipeline', () => {
  it('hands back the response itself for a route with nothing asynchronous', async () => {
    const application = app();
    await application.startup();
    const response = dispatchRequest(application, request('/sync/7'));
    expect(isThenable(response)).toBe(false);
    expect(response).toBeInstanceOf(Response);
    expect(await settled(response)).toEqual({
      status: 200,
      body: '{"id":"7"}',
      type: 'application/json',
      length: '10',
    });
  });

  it('tells a promise from a value alike for user values and its own step results', () => {
    const cases: Array<[unknown, boolean]> = [
      [Promise.resolve(1), true],
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise, on purpose.
      [{ then: (resolve: (value: number) => void) => resolve(1) }, true],
      // biome-ignore lint/suspicious/noThenProperty: a function with a then method, on purpose.
      [Object.assign(() => undefined, { then: () => undefined }), true],
      // biome-ignore lint/suspicious/noThenProperty: a then that is not a method, on purpose.
      [{ then: 'not a function' }, false],
      [new Response(200, 'ok'), false],
      [{ id: 7 }, false],
      [() => undefined, false],
      ['then', false],
      [null, false],
      [undefined, false],
    ];
    for (const [value, expected] of cases) {
      expect([isThenable(value), isPending(value)]).toEqual([expected, expected]);
    }
  });

  it('gives the same response through a promise when the handler or a provider is async', async () => {
    const application = app();
    await application.startup();
    const viaHandler = dispatchRequest(application, request('/async/7'));
    const viaProvider = dispatchRequest(application, request('/provider'));
    expect(isThenable(viaHandler)).toBe(true);
    expect(isThenable(viaProvider)).toBe(true);
    expect(await settled(viaHandler)).toEqual(
      await settled(dispatchRequest(application, request('/sync/7'))),
    );
    expect((await viaProvider).body).toBe('{"slow":"slow value"}');
  });

  it('waits for startup first when it has not run', async () => {
    const application = app();
    const response = dispatchRequest(application, request('/sync/1'));
    expect(isThenable(response)).toBe(true);
    expect((await response).statusCode).toBe(200);
    expect(isThenable(dispatchRequest(application, request('/sync/1')))).toBe(false);
  });

  it('turns a synchronous throw into the error response', async () => {
    const application = app();
    await application.startup();
    const response = await dispatchRequest(application, request('/throws'));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string)).toMatchObject({ error: 'Internal Server Error' });
  });

  it('turns a precondition that fails on the way out into a 412, synchronously or not', async () => {
    const application = app();
    await application.startup();
    const headers = { 'If-Match': '"other"' };
    const response = await dispatchRequest(application, request('/etag', { headers }));
    expect(response.statusCode).toBe(412);
    const notModified = dispatchRequest(
      application,
      request('/etag', { headers: { 'If-None-Match': '"v1"' } }),
    );
    expect(isThenable(notModified)).toBe(false);
    expect((notModified as Response).statusCode).toBe(304);
  });

  it('parses a JSON body that is already in memory without a promise, with the same errors', async () => {
    const application = app();
    await application.startup();
    const json = { 'Content-Type': 'application/json' };
    const echo = dispatchRequest(
      application,
      request('/echo', { method: 'POST', headers: json, body: '{"a":[1,2]}' }),
    );
    expect(isThenable(echo)).toBe(false);
    expect((echo as Response).body).toBe('{"a":[1,2]}');
    const bytes = dispatchRequest(
      application,
      request('/echo', {
        method: 'POST',
        headers: json,
        body: new TextEncoder().encode('{"b":1}'),
      }),
    );
    expect(isThenable(bytes)).toBe(false);
    expect((bytes as Response).body).toBe('{"b":1}');

    const malformed = await dispatchRequest(
      application,
      request('/echo', { method: 'POST', headers: json, body: '{"a":' }),
    );
    expect(malformed.statusCode).toBe(400);
    expect(JSON.parse(malformed.body as string).error).toMatch(/^Malformed JSON in request body/);
    const badUtf8 = await dispatchRequest(
      application,
      request('/echo', { method: 'POST', headers: json, body: new Uint8Array([0x7b, 0xff, 0x7d]) }),
    );
    expect(badUtf8.statusCode).toBe(400);
    expect(JSON.parse(badUtf8.body as string).error).toBe('Request body is not valid UTF-8');
    const unsupported = await dispatchRequest(
      application,
      request('/echo', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' }),
    );
    expect(unsupported.statusCode).toBe(415);
  });

  it('refuses a body over the limit whether it is text or bytes', async () => {
    const application = new RestApplication({ logger: silentLogger, bodyLimit: 8 });
    application.post('/echo', ({ jsonBody }) => jsonBody);
    await application.startup();
    const json = { 'Content-Type': 'application/json' };
    for (const body of ['{"long":"text"}', new TextEncoder().encode('{"long":"bytes"}')]) {
      const response = await dispatchRequest(
        application,
        request('/echo', { method: 'POST', headers: json, body }),
      );
      expect(response.statusCode).toBe(413);
    }
  });

  it('reads a streamed JSON body whole before the providers run, then parses it at once', async () => {
    let pulled = false;
    let ended = false;
    const streamed = (...chunks: string[]) => {
      pulled = false;
      ended = false;
      return (async function* () {
        pulled = true;
        for (const chunk of chunks) yield new TextEncoder().encode(chunk);
        ended = true;
      })();
    };
    const application = new RestApplication({ logger: silentLogger, bodyLimit: 64 })
      .dependency('bodyEnded', () => ended)
      .validates('point', z.object({ x: z.number(), y: z.number() }));
    // bodyEnded comes first: it runs once the body has arrived, not while it is on its way.
    application.post('/points', ({ bodyEnded, point }) => ({ bodyEnded, point }));
    application.post('/raw', () => 'not read');
    await application.startup();
    const post = (path: string, type: string, ...chunks: string[]) =>
      dispatchRequest(
        application,
        request(path, {
          method: 'POST',
          headers: { 'Content-Type': type },
          body: streamed(...chunks),
        }),
      );

    const created = await post('/points', 'application/json', '{"x":1,', '"y":2}');
    expect(created.statusCode).toBe(200);
    expect(JSON.parse(created.body as string)).toEqual({ bodyEnded: true, point: { x: 1, y: 2 } });
    // With a charset parameter the body takes the general way, with the same result.
    const withCharset = await post('/points', 'application/json; charset=utf-8', '{"x":3,"y":4}');
    expect(JSON.parse(withCharset.body as string).point).toEqual({ x: 3, y: 4 });

    const invalid = await post('/points', 'application/json', '{"x":"1",', '"y":2}');
    expect(invalid.statusCode).toBe(422);
    expect(JSON.parse(invalid.body as string).details).toEqual([
      { path: 'x', message: expect.any(String) },
    ]);
    const malformed = await post('/points', 'application/json', '{"x":');
    expect(malformed.statusCode).toBe(400);
    expect(JSON.parse(malformed.body as string).error).toMatch(/^Malformed JSON in request body/);
    const tooLarge = await post('/points', 'application/json', '{"x":1,', `"y":${'9'.repeat(80)}}`);
    expect(tooLarge.statusCode).toBe(413);

    // A body the route does not take as JSON is not read on its behalf.
    const refused = await post('/points', 'text/plain', '{"x":1,"y":2}');
    expect(refused.statusCode).toBe(415);
    expect(pulled).toBe(false);
    const raw = await post('/raw', 'application/json', '{}');
    expect(raw.statusCode).toBe(200);
    expect(pulled).toBe(false);
  });
});
