/**
 * Values of the Fetch API returned by a handler (docs/application.md, "Handler results"): a
 * WHATWG Response (built, or relayed from `fetch()`), a Blob, and ArrayBuffer views other than
 * Uint8Array. In process, through the Fetch adapter, and through a real Node server relaying a
 * real upstream server's compressed answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../src/adapters/fetch/index.js';
import type { ServeHandle } from '../../src/adapters/node/index.js';
import {
  MultiValueHeaders,
  Request,
  type Response,
  RestApplication,
  Response as RestResponse,
} from '../../src/index.js';
import { bodyBytes } from '../../src/response.js';
import { memoryLogger, send, start } from '../adapters/node/helpers.js';

const log = memoryLogger();
const PRECOMPRESSED = gzipSync('already compressed');

function buildApp(): RestApplication {
  const app = new RestApplication({ logger: log.logger });
  app.get(
    '/built',
    () =>
      new globalThis.Response('created upstream', {
        status: 201,
        headers: { 'x-up': '1', 'content-type': 'text/csv' },
      }),
  );
  app.get('/cookies', () => {
    const headers = new Headers({ 'content-type': 'text/plain' });
    headers.append('set-cookie', 'a=1; Path=/');
    headers.append('set-cookie', 'b=2, with a comma; HttpOnly');
    return new globalThis.Response('ok', { headers });
  });
  app.get(
    '/hop-by-hop',
    () =>
      new globalThis.Response('ok', {
        headers: { connection: 'x-private', 'x-private': 'secret', 'keep-alive': 'timeout=5' },
      }),
  );
  app.get('/validated', () => new globalThis.Response('versioned', { headers: { etag: '"v1"' } }));
  app.get(
    '/precompressed',
    () =>
      new globalThis.Response(PRECOMPRESSED, {
        headers: { 'content-encoding': 'gzip', 'content-length': String(PRECOMPRESSED.length) },
      }),
  );
  app.get('/tuple-response', () => [new globalThis.Response('own', { status: 202 }), 201]);
  app.get('/read-already', async () => {
    const response = new globalThis.Response('once');
    await response.text();
    return response;
  });
  app.get('/blob', () => new Blob(['hello'], { type: 'text/plain' }));
  app.get('/untyped-blob', () => new Blob([new Uint8Array([1, 2, 3])]));
  app.post('/blob-tuple', () => [new Blob(['{"id":1}']), 201, { 'Content-Type': 'x/y' }]);
  app.get('/data-view', () => new DataView(new Uint8Array([0, 65, 66, 67]).buffer, 1, 2));
  app.get('/int16', () => new Int16Array([1, 258]));
  app.get('/map', () => new Map([['a', 1]]) as unknown);
  return app;
}

const app = buildApp();

async function run(path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const response: Response = await app.execute(
    new Request({ method: init.method ?? 'GET', path, headers: init.headers }),
  );
  const bytes = await bodyBytes(response);
  return { response, text: new TextDecoder().decode(bytes), bytes };
}

describe('a WHATWG Response returned by a handler, in process', () => {
  it('is relayed with its status, headers and body', async () => {
    const { response, text } = await run('/built');
    expect(response.statusCode).toBe(201);
    expect(response.headers.get('content-type')).toBe('text/csv');
    expect(response.headers.get('x-up')).toBe('1');
    expect(text).toBe('created upstream');
  });

  it('keeps every Set-Cookie apart', async () => {
    const { response } = await run('/cookies');
    expect(response.headers.getAll('set-cookie')).toEqual([
      'a=1; Path=/',
      'b=2, with a comma; HttpOnly',
    ]);
  });

  it('drops hop-by-hop fields, those Connection names included', async () => {
    const { response, text } = await run('/hop-by-hop');
    expect(text).toBe('ok');
    expect(response.headers.has('connection')).toBe(false);
    expect(response.headers.has('x-private')).toBe(false);
    expect(response.headers.has('keep-alive')).toBe(false);
  });

  it('answers a matching If-None-Match with 304 and a HEAD without a body', async () => {
    const notModified = await run('/validated', { headers: { 'If-None-Match': '"v1"' } });
    expect(notModified.response.statusCode).toBe(304);
    expect(notModified.bytes.length).toBe(0);
    const head = await run('/validated', { method: 'HEAD' });
    expect(head.response.statusCode).toBe(200);
    expect(head.response.headers.get('etag')).toBe('"v1"');
    expect(head.response.body).toBeUndefined();
  });

  it('keeps the Content-Encoding of one the handler built: its bytes are as it says', async () => {
    const { response, bytes } = await run('/precompressed');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('content-length')).toBe(String(PRECOMPRESSED.length));
    expect(gunzipSync(bytes).toString()).toBe('already compressed');
  });

  it('keeps its own status in a tuple, as a Response of ours does', async () => {
    const { response, text } = await run('/tuple-response');
    expect(response.statusCode).toBe(202);
    expect(text).toBe('own');
  });

  it('is a 500 saying why when its body was already read', async () => {
    const before = log.lines.length;
    const { response } = await run('/read-already');
    expect(response.statusCode).toBe(500);
    const errors = log.lines.slice(before).map((line) => String(line.fields?.error));
    expect(errors.join('\n')).toContain('body was already read');
  });
});

describe('a Blob or an ArrayBuffer view returned by a handler, in process', () => {
  it('sends a Blob as its bytes, typed by blob.type, with its length', async () => {
    const { response, text } = await run('/blob');
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('content-length')).toBe('5');
    expect(text).toBe('hello');
  });

  it('sends an untyped Blob as application/octet-stream, and ranges of it', async () => {
    const whole = await run('/untyped-blob');
    expect(whole.response.headers.get('content-type')).toBe('application/octet-stream');
    expect([...whole.bytes]).toEqual([1, 2, 3]);
    const ranged = await run('/untyped-blob', { headers: { Range: 'bytes=1-' } });
    expect(ranged.response.statusCode).toBe(206);
    expect([...ranged.bytes]).toEqual([2, 3]);
  });

  it('takes a tuple status and headers for a Blob', async () => {
    const { response, text } = await run('/blob-tuple', { method: 'POST' });
    expect(response.statusCode).toBe(201);
    expect(response.headers.get('content-type')).toBe('x/y');
    expect(text).toBe('{"id":1}');
  });

  it('takes as headers only a plain object, MultiValueHeaders or Headers: other arrays are data', async () => {
    class Meta {
      source = 'db';
    }
    const app = new RestApplication({ logger: log.logger });
    app.get('/date', () => ['alice', 200, new Date(0)]);
    app.get('/instance', () => ['alice', 201, new Meta()]);
    app.get('/plain', () => ['alice', 201, { 'X-Source': 'db' }]);
    app.get('/null-prototype', () => [
      'alice',
      201,
      Object.assign(Object.create(null), { 'X-A': '1' }),
    ]);
    app.get('/multi', () => ['alice', 201, new MultiValueHeaders({ 'X-A': '1' })]);
    app.get('/whatwg', () => ['alice', 201, new Headers({ 'X-A': '1' })]);
    app.get('/record', () => ['alice', 201, new MultiValueHeaders({ 'X-A': '1' }).toDict()]);
    app.get('/headers-like', () => {
      const like = { forEach: (fn: (value: string, name: string) => void) => fn('1', 'X-A') };
      return ['alice', 201, Object.assign(Object.create(like), { get: () => '1' })];
    });
    for (const path of ['/date', '/instance']) {
      const response = await app.request(path);
      expect(response.statusCode, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('application/json');
      expect(response.headers.has('source'), path).toBe(false);
    }
    expect((await app.request('/date')).body).toBe('["alice",200,"1970-01-01T00:00:00.000Z"]');
    expect((await app.request('/plain')).headers.get('x-source')).toBe('db');
    for (const path of ['/null-prototype', '/multi', '/whatwg', '/record', '/headers-like']) {
      const response = await app.request(path);
      expect([response.statusCode, response.headers.get('x-a')], path).toEqual([201, '1']);
    }
  });

  it('sends a DataView or an Int16Array as the bytes it spans', async () => {
    const view = await run('/data-view');
    expect(view.response.headers.get('content-type')).toBe('application/octet-stream');
    expect(view.text).toBe('AB');
    const int16 = await run('/int16');
    const expected = new Uint8Array(new Int16Array([1, 258]).buffer);
    expect([...int16.bytes]).toEqual([...expected]);
    expect(int16.response.headers.get('content-length')).toBe('4');
  });

  it('sends a Blob or a view given to new Response() as its bytes, not as JSON', async () => {
    const app = new RestApplication({ logger: log.logger });
    app.get('/csv', () => new RestResponse(200, new Blob(['a,b\n'], { type: 'text/csv' })));
    app.get('/typed', () => new RestResponse(200, new Blob(['x']), { contentType: 'text/x' }));
    app.get(
      '/view',
      () => new RestResponse(200, new DataView(new TextEncoder().encode('AB').buffer)),
    );
    const csv = await app.request('/csv');
    expect(csv.headers.get('content-type')).toBe('text/csv');
    expect(csv.headers.get('content-length')).toBe('4');
    expect(new TextDecoder().decode(await bodyBytes(csv))).toBe('a,b\n');
    const ranged = await app.request('/csv', { headers: { Range: 'bytes=2-' } });
    expect(ranged.statusCode).toBe(206);
    expect(new TextDecoder().decode(await bodyBytes(ranged))).toBe('b\n');
    const typed = await app.request('/typed');
    expect(typed.headers.get('content-type')).toBe('text/x');
    const view = await app.request('/view');
    expect(view.headers.get('content-type')).toBe('application/octet-stream');
    expect(new TextDecoder().decode(await bodyBytes(view))).toBe('AB');
  });

  it('still refuses a Map', async () => {
    const { response } = await run('/map');
    expect(response.statusCode).toBe(500);
  });
});

describe('through the Fetch adapter', () => {
  it('relays a WHATWG Response, a Blob and a DataView', async () => {
    const fetchHandler = new FetchAdapter(app).fetch;
    const built = await fetchHandler(new globalThis.Request('http://h/built'));
    expect(built.status).toBe(201);
    expect(built.headers.get('content-type')).toBe('text/csv');
    expect(await built.text()).toBe('created upstream');
    const cookies = await fetchHandler(new globalThis.Request('http://h/cookies'));
    expect(cookies.headers.getSetCookie()).toHaveLength(2);
    const blob = await fetchHandler(new globalThis.Request('http://h/blob'));
    expect(blob.headers.get('content-type')).toBe('text/plain');
    expect(await blob.text()).toBe('hello');
    const view = await fetchHandler(new globalThis.Request('http://h/data-view'));
    expect(await view.text()).toBe('AB');
  });
});

describe('a fetch() response relayed through a Node server', () => {
  const DOCUMENT = JSON.stringify({
    hello: 'world',
    items: Array.from({ length: 50 }, (_, i) => i),
  });
  const GZIPPED = gzipSync(DOCUMENT);
  let upstream: Server;
  let upstreamUrl: string;
  let handle: ServeHandle;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.url === '/compressed') {
        res.writeHead(200, [
          'Content-Type',
          'application/json',
          'Content-Encoding',
          'gzip',
          'Content-Length',
          String(GZIPPED.length),
          'ETag',
          '"doc-1"',
          'Set-Cookie',
          'session=abc; HttpOnly',
          'Set-Cookie',
          'theme=dark',
          'X-Upstream',
          'yes',
        ]);
        res.end(GZIPPED);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': '4' });
      res.end(Buffer.from([137, 80, 78, 71]));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const proxy = new RestApplication({ logger: log.logger });
    proxy.get('/proxy', () => fetch(`${upstreamUrl}/compressed`));
    proxy.get('/image', () => fetch(`${upstreamUrl}/image`));
    proxy.get('/image-blob', async () => (await fetch(`${upstreamUrl}/image`)).blob());
    handle = await start(proxy);
  });

  afterAll(async () => {
    await handle.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('sends the decoded body without the upstream Content-Encoding and Content-Length', async () => {
    const before = log.lines.length;
    const answer = await send(handle.port, {
      path: '/proxy',
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(answer.headers['set-cookie']).toEqual(['session=abc; HttpOnly', 'theme=dark']);
    expect(answer.body.toString('utf8')).toBe(DOCUMENT);
    expect(log.lines.slice(before)).toEqual([]);
  });

  it('answers If-None-Match and HEAD from the relayed headers', async () => {
    const notModified = await send(handle.port, {
      path: '/proxy',
      headers: { 'If-None-Match': '"doc-1"' },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    const head = await send(handle.port, { method: 'HEAD', path: '/proxy' });
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe('"doc-1"');
    expect(head.body.length).toBe(0);
  });

  it('keeps the Content-Length of a body fetch() did not decode', async () => {
    const answer = await send(handle.port, { path: '/image' });
    expect(answer.headers['content-length']).toBe('4');
    expect(answer.headers['content-type']).toBe('image/png');
    expect([...answer.body]).toEqual([137, 80, 78, 71]);
  });

  it('sends a fetched Blob as its bytes and type', async () => {
    const answer = await send(handle.port, { path: '/image-blob' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.headers['content-length']).toBe('4');
    expect([...answer.body]).toEqual([137, 80, 78, 71]);
  });
});
