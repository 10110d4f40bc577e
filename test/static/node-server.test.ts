/**
 * StaticRouter behind a real Node server (serve() on loopback) and a real client (`fetch`): files
 * streamed from disk, byte ranges sent as only those bytes, HEAD without a body, 304 and 301.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { createFixture, type Fixture, LARGE, MEDIUM, quietApp } from './helpers.js';

let fixture: Fixture;
let server: ServeHandle;

beforeAll(async () => {
  fixture = createFixture();
  const app = quietApp();
  app.mount('/static', new StaticRouter(fixture.root, { precompressed: true }));
  server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
});

afterAll(async () => {
  await server?.close();
  fixture?.remove();
});

const url = (path: string) => `${server.url}${path}`;

describe('StaticRouter on a Node server', () => {
  it('streams a large file whole, and a cached one', async () => {
    const large = await fetch(url('/static/large.bin'));
    expect(large.status).toBe(200);
    expect(large.headers.get('content-length')).toBe(String(LARGE.length));
    expect(Buffer.from(await large.arrayBuffer()).equals(LARGE)).toBe(true);
    const medium = await fetch(url('/static/medium.bin'));
    expect(Buffer.from(await medium.arrayBuffer()).equals(MEDIUM)).toBe(true);
  });

  it('sends only the requested bytes of a range, from disk and from the cache', async () => {
    const fromDisk = await fetch(url('/static/large.bin'), {
      headers: { Range: 'bytes=1048570-1048589' },
    });
    expect(fromDisk.status).toBe(206);
    expect(fromDisk.headers.get('content-range')).toBe(`bytes 1048570-1048589/${LARGE.length}`);
    expect(Buffer.from(await fromDisk.arrayBuffer()).equals(LARGE.subarray(1048570, 1048590))).toBe(
      true,
    );
    const cached = await fetch(url('/static/alphabet.txt'), { headers: { Range: 'bytes=-4' } });
    expect(cached.status).toBe(206);
    expect(await cached.text()).toBe('wxyz');
    const unsatisfiable = await fetch(url('/static/alphabet.txt'), {
      headers: { Range: 'bytes=99-' },
    });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe('bytes */26');
  });

  it('HEAD has the length and no body; 304 has no body; 301 keeps the query', async () => {
    const head = await fetch(url('/static/large.bin'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(LARGE.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const etag = (await fetch(url('/static/hello.txt'))).headers.get('etag') as string;
    const notModified = await fetch(url('/static/hello.txt'), {
      headers: { 'If-None-Match': etag },
    });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    const redirect = await fetch(url('/static/docs?x=1'), { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('./docs/?x=1');
    const followed = await fetch(url('/static/docs?x=1'));
    expect(await followed.text()).toBe('<h1>docs</h1>');
  });

  it('a browser-like client gets the gzip sibling and decodes it', async () => {
    // fetch sends `Accept-Encoding: gzip, deflate` (undici) and decodes the body.
    const response = await fetch(url('/static/zipped.js'), {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(await response.text()).toBe('console.log("plain variant");');
  });
});
