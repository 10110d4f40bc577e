/**
 * The pipeline answers synchronously when nothing on the way is asynchronous, and goes
 * asynchronous from the first promise on. Both ways must give the same responses.
 */
import { describe, expect, it } from 'vitest';
import { dispatch as dispatchRequest } from '../../../src/app/kernel.js';
import { isThenable } from '../../../src/app/thenable.js';
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
});
