/**
 * Whether a request on the Node adapter has a body, as RFC 9112 §6.3 frames it and as the Fetch
 * adapter answers it (docs/node.md): no Content-Length and no Transfer-Encoding is no body, and
 * neither is `Content-Length: 0`.
 */
import { connect, createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeAdapter, type ServeHandle } from '../../../src/adapters/node/index.js';
import { type Request, RestApplication } from '../../../src/index.js';
import { send, start } from './helpers.js';

let server: ServeHandle;

beforeAll(async () => {
  const app = new RestApplication();
  const describeBody = async ({ request }: { request: Request }) => ({
    hasBody: request.body !== undefined,
    text: request.body === undefined ? null : await request.text(),
  });
  app.get('/body', describeBody);
  app.post('/body', describeBody);
  server = await start(app);
});

afterAll(async () => {
  await server?.close();
});

async function bodyOf(options: Parameters<typeof send>[1]): Promise<unknown> {
  const answer = await send(server.port, { path: '/body', ...options });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body.toString());
}

describe('the request body on the Node adapter', () => {
  it('is undefined for a request with neither Content-Length nor Transfer-Encoding', async () => {
    expect(await bodyOf({})).toEqual({ hasBody: false, text: null });
    expect(await bodyOf({ method: 'POST' })).toEqual({ hasBody: false, text: null });
  });

  it('is undefined for Content-Length: 0, as on the Fetch adapter', async () => {
    expect(await bodyOf({ method: 'POST', headers: { 'content-length': '0' } })).toEqual({
      hasBody: false,
      text: null,
    });
  });

  it('is there with a Content-Length, on a GET too', async () => {
    expect(await bodyOf({ method: 'POST', body: 'hello' })).toEqual({
      hasBody: true,
      text: 'hello',
    });
    // Node's client frames a GET's body only when told its length.
    expect(await bodyOf({ headers: { 'content-length': '8' }, body: 'on a GET' })).toEqual({
      hasBody: true,
      text: 'on a GET',
    });
  });

  it('is there when chunked', async () => {
    expect(
      await bodyOf({ method: 'POST', headers: { 'transfer-encoding': 'chunked' }, body: 'chunks' }),
    ).toEqual({ hasBody: true, text: 'chunks' });
  });
});

describe('the request body on an HTTP/2 server', () => {
  it('is there without a Content-Length: HTTP/2 frames it, and the field is optional', async () => {
    const app = new RestApplication();
    app.post('/echo', async ({ request }) => ({
      hasBody: request.body !== undefined,
      text: request.body === undefined ? null : await request.text(),
    }));
    // Node's HTTP/2 compatibility API hands the listener objects shaped as HTTP/1's; its types
    // differ by two fields the adapter does not read.
    const listener = new NodeAdapter(app).listener as unknown as Parameters<typeof createServer>[0];
    const server = createServer(listener);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const stream = client.request({ ':method': 'POST', ':path': '/echo' });
        let out = '';
        stream.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        stream.on('end', () => resolve(out));
        stream.on('error', reject);
        stream.end('hello h2');
      });
      expect(JSON.parse(text)).toEqual({ hasBody: true, text: 'hello h2' });
    } finally {
      client.close();
      await new Promise((done) => server.close(done));
    }
  });
});
