/**
 * `renderers: 'json'`, `etag: 'auto'` and per-route `bodyLimit()` (docs/application.md,
 * docs/http-semantics.md).
 */
import { describe, expect, it } from 'vitest';
import { Request, Response, RestApplication, SetupError, silentLogger } from '../../src/index.js';

describe("renderers: 'json'", () => {
  const jsonApp = () => {
    const app = new RestApplication({ logger: silentLogger, renderers: 'json' });
    app.get('/item', () => ({ id: 1 }));
    app.get('/greeting', () => 'hi');
    app.get('/page', () => ({ id: 1 })).provides('text/html', ({ result }) => `<p>${result}</p>`);
    return app;
  };

  it('answers JSON without Vary: Accept', async () => {
    const response = await jsonApp().request('/item', { headers: { Accept: 'text/html, */*' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('vary')).toBeUndefined();
    expect(response.body).toBe('{"id":1}');
  });

  it('has no HTML or text representation: asking only for one is 406, in JSON', async () => {
    const response = await jsonApp().request('/item', { headers: { Accept: 'text/plain' } });
    expect(response.statusCode).toBe(406);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(response.body as string)).toMatchObject({
      statusCode: 406,
      details: { available: ['application/json'] },
    });
  });

  it('sends a returned string as a JSON string', async () => {
    const response = await jsonApp().request('/greeting');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toBe('"hi"');
  });

  it('sends error bodies as JSON to clients that accept only text', async () => {
    const response = await jsonApp().request('/missing', { headers: { Accept: 'text/plain' } });
    expect(response.statusCode).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(response.body as string)).toEqual({
      error: 'Not Found',
      statusCode: 404,
      path: '/missing',
    });
  });

  it('keeps the representations a route provides, and varies on Accept there', async () => {
    const response = await jsonApp().request('/page', { headers: { Accept: 'text/html' } });
    expect(response.body).toBe('<p>[object Object]</p>');
    expect(response.headers.get('vary')).toBe('Accept');
  });

  it('by default still offers HTML and text, and varies on Accept', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/item', () => ({ id: 1 }));
    const response = await app.request('/item', { headers: { Accept: 'text/plain' } });
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Accept');
  });
});

describe("etag: 'auto'", () => {
  const autoApp = () => {
    const app = new RestApplication({ logger: silentLogger, etag: 'auto' });
    let count = 1;
    app.get('/count', () => ({ count }));
    app.post('/count', () => ({ count: ++count }));
    app.get('/bytes', () => new Uint8Array([1, 2, 3]));
    app.get('/own', () => new Response(200, 'x', { etag: '"v1"' }));
    app.get('/dated', () => new Response(200, 'x', { lastModified: new Date(0) }));
    app.get('/provided', () => 'x').etag(() => 'p1');
    app.get('/created', () => [{ id: 1 }, 201]);
    app.get('/stream', () => new ReadableStream({ start: (c) => c.close() }));
    return app;
  };

  it('gives a buffered GET answer a weak ETag, and answers If-None-Match with 304', async () => {
    const app = autoApp();
    const first = await app.request('/count');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^W\/"[0-9a-z]+-[0-9a-f]{16}"$/);
    const again = await app.request('/count', { headers: { 'If-None-Match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.body).toBeUndefined();
  });

  it('changes the ETag when the body changes', async () => {
    const app = autoApp();
    const before = (await app.request('/count')).headers.get('etag') as string;
    await app.request('/count', { method: 'POST' });
    const after = await app.request('/count', { headers: { 'If-None-Match': before } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before);
  });

  it('tags byte bodies and HEAD answers the same as GET', async () => {
    const app = autoApp();
    const get = await app.request('/bytes');
    const head = await app.request('/bytes', { method: 'HEAD' });
    expect(get.headers.get('etag')).toMatch(/^W\/"3-/);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
  });

  it('leaves answers with their own validators, other statuses and methods alone', async () => {
    const app = autoApp();
    expect((await app.request('/own')).headers.get('etag')).toBe('"v1"');
    expect((await app.request('/dated')).headers.get('etag')).toBeUndefined();
    expect((await app.request('/provided')).headers.get('etag')).toBe('"p1"');
    expect((await app.request('/created')).headers.get('etag')).toBeUndefined();
    expect((await app.request('/stream')).headers.get('etag')).toBeUndefined();
    expect((await app.request('/count', { method: 'POST' })).headers.get('etag')).toBeUndefined();
  });

  it('is off by default', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/count', () => ({ count: 1 }));
    expect((await app.request('/count')).headers.get('etag')).toBeUndefined();
  });
});

describe('route.bodyLimit()', () => {
  const limitedApp = () => {
    const app = new RestApplication({ logger: silentLogger, bodyLimit: 10 });
    app.post('/small', ({ body }) => body.length);
    app.post('/large', ({ body }) => body.length).bodyLimit(1000);
    app.post('/tiny', ({ body }) => body.length).bodyLimit(2);
    return app;
  };
  const post = (path: string, body: string, declare = true) =>
    new Request({
      method: 'POST',
      path,
      headers: declare ? { 'Content-Length': String(body.length) } : {},
      body,
    });

  it('raises the limit for one route', async () => {
    const app = limitedApp();
    expect((await app.execute(post('/small', 'x'.repeat(100)))).statusCode).toBe(413);
    const large = await app.execute(post('/large', 'x'.repeat(100)));
    expect(large.statusCode).toBe(200);
    expect(large.body).toBe('100');
    expect((await app.execute(post('/large', 'x'.repeat(1001)))).statusCode).toBe(413);
  });

  it('lowers the limit for one route, for declared and undeclared lengths', async () => {
    const app = limitedApp();
    const declared = await app.execute(post('/tiny', 'abc'));
    expect(declared.statusCode).toBe(413);
    expect(JSON.parse(declared.body as string).error).toBe(
      'Request body is larger than the limit of 2 bytes',
    );
    expect((await app.execute(post('/tiny', 'abc', false))).statusCode).toBe(413);
    expect((await app.execute(post('/small', 'abc', false))).statusCode).toBe(200);
  });

  it('refuses a limit that is not a number >= 0', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.post('/x', () => null).bodyLimit(-1)).toThrow(SetupError);
    expect(() => app.post('/y', () => null).bodyLimit(Number.NaN)).toThrow(/must be a number/);
  });
});

describe('option values', () => {
  it('refuses values it does not know', () => {
    expect(() => new RestApplication({ renderers: 'xml' as never })).toThrow(
      'renderers must be "builtin" or "json", got "xml"',
    );
    expect(() => new RestApplication({ etag: 'weak' as never })).toThrow(
      'etag must be "auto" or false, got "weak"',
    );
  });
});

describe('options that are misspelt or of the wrong type', () => {
  // Built from a variable, as options loaded from configuration are: TypeScript's excess
  // property check does not see them.
  const options = (value: object): never => value as never;

  it('are refused at construction, naming the options there are', () => {
    expect(() => new RestApplication(options({ authorisation: 'required' }))).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringMatching(
          /^new RestApplication\(\): unknown option "authorisation"; the options are bodyLimit, .*authorization/,
        ),
      }),
    );
    expect(() => new RestApplication(options({ requestTimout: 100 }))).toThrow(SetupError);
    expect(() => new RestApplication(options({ debug: 'yes' }))).toThrow(
      'debug must be true or false, got "yes"',
    );
    expect(() => new RestApplication(options({ accessLog: 1 }))).toThrow(SetupError);
  });

  it('are refused by authorized() and cors(), which would otherwise fail open', async () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.authorized('user', () => true, options({ globl: true }))).toThrow(
      'authorized "user": unknown option "globl"; the options are global, vary, wwwAuthenticate, openapi',
    );
    expect(() => app.authorized('user', () => true, options({ global: 'yes' }))).toThrow(
      'authorized "user": global must be true or false, got "yes"',
    );
    expect(() =>
      app.cors(options({ origins: ['https://app.example'], credentials: true })),
    ).toThrow('cors(): unknown option "origins"');
    expect(() => app.cors(options({ origin: 'https://app.example', credentials: 'true' }))).toThrow(
      'cors credentials must be true or false, got "true"',
    );
    // Nothing half-registered: the application answers as if none of these calls was made.
    app.get('/s', () => 'secret');
    const response = await app.request('/s', { headers: { Origin: 'https://evil.example' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeUndefined();
  });
});
