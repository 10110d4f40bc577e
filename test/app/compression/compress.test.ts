/**
 * `compress()` in process: what is compressed and what is not, the headers that go with it
 * (Content-Encoding, Vary, weak ETags, Content-Length), HEAD, 206 and 304, scoping on the
 * application, routers and routes, and the order against `onResponse` hooks and the access log.
 */
import * as zlib from 'node:zlib';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type Logger,
  Response,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

const BIG = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}` })) };
const BIG_JSON = JSON.stringify(BIG);

function bytesOf(body: unknown): Buffer {
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (typeof body === 'string') return Buffer.from(body);
  throw new Error(`not a buffered body: ${typeof body}`);
}

async function drain(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array || typeof body === 'string') return bytesOf(body);
  const parts: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>)
    parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** Every `Vary` member, whatever field lines carry them. */
function varyOf(response: Response): string[] {
  return response.headers
    .getAll('vary')
    .flatMap((line) => line.split(','))
    .map((member) => member.trim());
}

function appWith(setup: (app: RestApplication) => void): RestApplication {
  const app = new RestApplication({ logger: silentLogger });
  setup(app);
  return app;
}

describe('compress() on buffered bodies', () => {
  const app = appWith((app) => {
    app.compress();
    app.get('/big', () => BIG);
    app.get('/small', () => ({ ok: true }));
    app.get('/png', () => new Response(200, new Uint8Array(4096), { contentType: 'image/png' }));
    app.get('/text', () => 'x'.repeat(5000));
    app.get(
      '/svg',
      () => new Response(200, `<svg>${' '.repeat(2000)}</svg>`, { contentType: 'image/svg+xml' }),
    );
    app.get(
      '/tagged',
      () => new Response(200, BIG_JSON, { contentType: 'application/json', etag: 'v1' }),
    );
    app.get(
      '/encoded',
      () => new Response(200, 'x'.repeat(5000), { headers: { 'Content-Encoding': 'gzip' } }),
    );
    app.get('/problem', () => {
      throw new Error('boom');
    });
  });

  it('gzips JSON for a client that accepts gzip, with the compressed Content-Length', async () => {
    const response = await app.request('/big', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(varyOf(response)).toContain('Accept-Encoding');
    const body = bytesOf(response.body);
    expect(response.headers.get('content-length')).toBe(String(body.length));
    expect(body.length).toBeLessThan(BIG_JSON.length / 3);
    expect(JSON.parse(gunzipSync(body).toString())).toEqual(BIG);
  });

  it('prefers br on a tie and follows the client weights otherwise', async () => {
    const tie = await app.request('/big', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    expect(tie.headers.get('content-encoding')).toBe('br');
    expect(JSON.parse(brotliDecompressSync(bytesOf(tie.body)).toString())).toEqual(BIG);
    const weighted = await app.request('/big', {
      headers: { 'Accept-Encoding': 'br;q=0.4, gzip;q=0.8' },
    });
    expect(weighted.headers.get('content-encoding')).toBe('gzip');
  });

  it('sends the body as it is without Accept-Encoding, with identity preferred, or q=0', async () => {
    for (const header of [
      undefined,
      '',
      'identity',
      'gzip;q=0, br;q=0',
      'gzip;q=0.5, identity',
      'deflate',
    ]) {
      const response = await app.request('/big', {
        headers: header === undefined ? {} : { 'Accept-Encoding': header },
      });
      expect(response.headers.get('content-encoding'), String(header)).toBeUndefined();
      expect(response.body).toBe(BIG_JSON);
      expect(response.headers.get('content-length')).toBe(String(BIG_JSON.length));
      // The response still depends on the header: caches must keep the variants apart.
      expect(varyOf(response)).toContain('Accept-Encoding');
    }
  });

  it('compresses through the wildcard, never a coding the wildcard refuses', async () => {
    const any = await app.request('/big', { headers: { 'Accept-Encoding': '*' } });
    expect(any.headers.get('content-encoding')).toBe('br');
    const notBr = await app.request('/big', { headers: { 'Accept-Encoding': '*, br;q=0' } });
    expect(notBr.headers.get('content-encoding')).toBe('gzip');
  });

  it('leaves small bodies, incompressible types and encoded bodies alone, varying on Accept-Encoding as a 304 must', async () => {
    for (const path of ['/small', '/png', '/encoded']) {
      const response = await app.request(path, { headers: { 'Accept-Encoding': 'gzip' } });
      // A 304 of the route cannot tell whether its 200 was compressed, and carries Vary: so
      // does every 200, compressed or not (RFC 9110 §15.4.5).
      expect(varyOf(response), path).toContain('Accept-Encoding');
      if (path !== '/encoded')
        expect(response.headers.get('content-encoding'), path).toBeUndefined();
    }
    const encoded = await app.request('/encoded', { headers: { 'Accept-Encoding': 'br' } });
    expect(encoded.headers.get('content-encoding')).toBe('gzip');
    expect(encoded.body).toBe('x'.repeat(5000));
  });

  it('compresses text and SVG (a +xml type)', async () => {
    for (const path of ['/text', '/svg']) {
      const response = await app.request(path, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(response.headers.get('content-encoding'), path).toBe('gzip');
    }
  });

  it('keeps a 206 strong ETag, so a download resumes with If-Range', async () => {
    const headers = { 'Accept-Encoding': 'gzip, br', Range: 'bytes=0-99' };
    const first = await app.request('/tagged', { headers });
    expect(first.statusCode).toBe(206);
    expect(first.headers.get('etag')).toBe('"v1"');
    // RFC 9110 §13.1.5: If-Range compares strongly; a weak tag would send everything again.
    const resumed = await app.request('/tagged', {
      headers: { ...headers, Range: 'bytes=100-199', 'If-Range': '"v1"' },
    });
    expect(resumed.statusCode).toBe(206);
    expect(bytesOf(resumed.body).toString()).toBe(BIG_JSON.slice(100, 200));
  });

  it('leaves a response marked Cache-Control: no-transform as it is (RFC 9111 §5.2.2.6)', async () => {
    const marked = appWith((app) => {
      app.compress();
      app.get(
        '/marked/{value}',
        ({ value }) =>
          new Response(200, BIG_JSON, {
            contentType: 'application/json',
            headers: { 'Cache-Control': value },
          }),
      );
    });
    for (const value of ['no-transform', 'public, No-Transform', 'max-age=60,no-transform']) {
      const response = await marked.request(`/marked/${encodeURIComponent(value)}`, {
        headers: { 'Accept-Encoding': 'gzip' },
      });
      expect(response.headers.get('content-encoding'), value).toBeUndefined();
      expect(response.body, value).toBe(BIG_JSON);
    }
    const other = await marked.request('/marked/no-transformer', {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(other.headers.get('content-encoding')).toBe('gzip');
  });

  it('makes a strong ETag weak, and a matching If-None-Match still answers 304', async () => {
    const first = await app.request('/tagged', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(first.headers.get('etag')).toBe('W/"v1"');
    const again = await app.request('/tagged', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': 'W/"v1"' },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers.get('etag')).toBe('W/"v1"');
    expect(varyOf(again)).toContain('Accept-Encoding');
    const identity = await app.request('/tagged');
    expect(identity.headers.get('etag')).toBe('"v1"');
  });

  it('leaves If-Match to the strong tag: what docs/streams.md tells an editing client to do', async () => {
    // RFC 9110 §13.1.1: If-Match compares strongly, so the weak tag a browser received fails.
    const edits = new RestApplication({ logger: silentLogger }).compress();
    let version = 3;
    const bump = () => {
      version++;
      return { version };
    };
    edits.get('/notes/7', () => ({ version })).etag(() => String(version));
    edits.put('/notes/7', bump).etag(() => String(version));
    edits
      .get('/plain/7', () => ({ version }))
      .etag(() => String(version))
      .compress(false);
    edits
      .put('/plain/7', bump)
      .etag(() => String(version))
      .compress(false);
    const browser = { 'Accept-Encoding': 'gzip, deflate, br, zstd' };
    const put = (path: string, tag: string) =>
      edits.request(path, { method: 'PUT', headers: { ...browser, 'If-Match': tag } });
    const weak = (await edits.request('/notes/7', { headers: browser })).headers.get('etag');
    expect(weak).toBe('W/"3"');
    expect((await put('/notes/7', weak as string)).statusCode).toBe(412);
    // The tag without W/ is the one the PUT route's etag() provider computes, before compression.
    expect((await put('/notes/7', '"3"')).statusCode).toBe(200);
    expect((await put('/notes/7', '"3"')).statusCode).toBe(412);
    // With compress(false) on the routes the strong tag goes out, and comes back as it is.
    const strong = (await edits.request('/plain/7', { headers: browser })).headers.get('etag');
    expect(strong).toBe('"4"');
    expect((await put('/plain/7', strong as string)).statusCode).toBe(200);
  });

  it('gives a 304 the Vary of its 200 when the client accepts no encoding', async () => {
    for (const headers of [{}, { 'Accept-Encoding': 'identity' }]) {
      const ok = await app.request('/tagged', { headers });
      expect(varyOf(ok)).toContain('Accept-Encoding');
      const notModified = await app.request('/tagged', {
        headers: { ...headers, 'If-None-Match': '"v1"' },
      });
      expect(notModified.statusCode).toBe(304);
      expect(varyOf(notModified)).toContain('Accept-Encoding');
      // Strong as the identity 200's is.
      expect(notModified.headers.get('etag')).toBe('"v1"');
    }
  });

  it('compresses error responses of the application too (a large one)', async () => {
    const response = await app.request(`/nowhere/${'x'.repeat(2000)}`, {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(bytesOf(response.body)).toString())).toMatchObject({
      statusCode: 404,
    });
    const small = await app.request('/problem', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.statusCode).toBe(500);
    expect(small.headers.get('content-encoding')).toBeUndefined();
  });
});

describe('compress() with HEAD and ranges', () => {
  const app = appWith((app) => {
    app.compress();
    app.get('/big', () => BIG);
    app.get(
      '/stream',
      () =>
        new Response(
          200,
          (async function* () {
            yield BIG_JSON;
          })(),
          { contentType: 'application/json' },
        ),
    );
  });

  it('HEAD carries the headers GET gets, compressed Content-Length included, and no body', async () => {
    const headers = { 'Accept-Encoding': 'gzip' };
    const get = await app.request('/big', { headers });
    const head = await app.request('/big', { method: 'HEAD', headers });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBeUndefined();
    for (const name of ['content-encoding', 'content-length', 'vary', 'content-type', 'etag']) {
      expect(head.headers.getAll(name), name).toEqual(get.headers.getAll(name));
    }
    expect(head.headers.get('content-length')).toBe(String(bytesOf(get.body).length));
  });

  it('HEAD of a stream carries Content-Encoding and no Content-Length', async () => {
    const head = await app.request('/stream', {
      method: 'HEAD',
      headers: { 'Accept-Encoding': 'br' },
    });
    expect(head.headers.get('content-encoding')).toBe('br');
    expect(head.headers.get('content-length')).toBeUndefined();
    expect(head.body).toBeUndefined();
  });

  it('offers ranges only on the unencoded 200: the encoded one has no Accept-Ranges', async () => {
    const encoded = await app.request('/big', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(encoded.headers.get('content-encoding')).toBe('gzip');
    expect(encoded.headers.has('accept-ranges')).toBe(false);
    const head = await app.request('/big', {
      method: 'HEAD',
      headers: { 'Accept-Encoding': 'br' },
    });
    expect(head.headers.get('content-encoding')).toBe('br');
    expect(head.headers.has('accept-ranges')).toBe(false);
    const plain = await app.request('/big', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeUndefined();
    expect(plain.headers.get('accept-ranges')).toBe('bytes');
  });

  it('never compresses a 206: the range is of the unencoded bytes', async () => {
    const response = await app.request('/big', {
      headers: { 'Accept-Encoding': 'gzip', Range: 'bytes=0-99' },
    });
    expect(response.statusCode).toBe(206);
    expect(response.headers.get('content-encoding')).toBeUndefined();
    expect(bytesOf(response.body).toString()).toBe(BIG_JSON.slice(0, 100));
  });
});

describe('compress() on streams', () => {
  it('compresses a stream of unknown length whatever its size, chunk by chunk', async () => {
    const app = appWith((app) => {
      app.compress();
      app.get(
        '/tiny',
        () =>
          new Response(
            200,
            (async function* () {
              yield 'a';
              yield 'b';
            })(),
            { contentType: 'text/plain' },
          ),
      );
    });
    const response = await app.request('/tiny', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('content-length')).toBeUndefined();
    expect(gunzipSync(await drain(response.body)).toString()).toBe('ab');
  });

  it('stops the producer when the compressed stream is abandoned', async () => {
    let stopped = false;
    const app = appWith((app) => {
      app.compress();
      app.get(
        '/endless',
        () =>
          new Response(
            200,
            (async function* () {
              try {
                for (;;) yield 'tick\n';
              } finally {
                stopped = true;
              }
            })(),
            { contentType: 'text/plain' },
          ),
      );
    });
    const response = await app.request('/endless', { headers: { 'Accept-Encoding': 'gzip' } });
    const iterator = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();
    expect(stopped).toBe(true);
  });

  it('an error from the producer ends the compressed stream with that error', async () => {
    const app = appWith((app) => {
      app.compress();
      app.get(
        '/broken',
        () =>
          new Response(
            200,
            (async function* () {
              yield 'first';
              throw new Error('producer failed');
            })(),
            { contentType: 'text/plain' },
          ),
      );
    });
    const response = await app.request('/broken', { headers: { 'Accept-Encoding': 'gzip' } });
    await expect(drain(response.body)).rejects.toThrow('producer failed');
  });
});

describe('compress() on files', () => {
  it('streams a file of a compressible type compressed, and leaves its HEAD without a body', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const directory = await mkdtemp(join(tmpdir(), 'restmachine-compress-'));
    const path = join(directory, 'data.json');
    await writeFile(path, BIG_JSON);
    const app = appWith((app) => {
      app.compress();
      app.get('/data.json', () => Response.file(path));
    });
    const headers = { 'Accept-Encoding': 'gzip' };
    const response = await app.request('/data.json', { headers });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('content-length')).toBeUndefined();
    expect(JSON.parse(gunzipSync(await drain(response.body)).toString())).toEqual(BIG);
    const head = await app.request('/data.json', { method: 'HEAD', headers });
    expect(head.headers.get('content-encoding')).toBe('gzip');
    expect(head.body).toBeUndefined();
  });

  it('keeps to the file as it was looked up: missing is a 404, grown is cut, shrunk fails', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const directory = await mkdtemp(join(tmpdir(), 'restmachine-compress-'));
    // Looked up at 5,000 bytes (as a static router's lookup gives the size and date), then
    // changed before it is read.
    const lookedUp = (path: string) => {
      const response = Response.file(path);
      (response.body as { size?: number }).size = 5_000;
      response.setLastModified(new Date(Date.now() - 60_000));
      return response;
    };
    await writeFile(join(directory, 'grown.txt'), 'g'.repeat(9_000));
    await writeFile(join(directory, 'shrunk.txt'), 's'.repeat(100));
    const app = appWith((app) => {
      app.compress();
      app.get('/{name}', ({ name }) => lookedUp(join(directory, name)));
    });
    const headers = { 'Accept-Encoding': 'gzip' };
    const missing = await app.request('/removed.txt', { headers });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.get('content-encoding')).toBeUndefined();
    const grown = await app.request('/grown.txt', { headers });
    expect(grown.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(await drain(grown.body)).toString()).toBe('g'.repeat(5_000));
    const shrunk = await app.request('/shrunk.txt', { headers });
    expect(shrunk.statusCode).toBe(200);
    await expect(drain(shrunk.body)).rejects.toThrow(/shrunk|ended|bytes/);
  });
});

describe('compress() scope', () => {
  it('a router and a route set their own, or false; the innermost wins', async () => {
    const app = new RestApplication({ logger: silentLogger }).compress({ encodings: ['gzip'] });
    const plain = new Router().compress(false);
    plain.get('/big', () => BIG);
    plain.get('/again', () => BIG).compress({ encodings: ['br'] });
    app.mount('/plain', plain);
    app.get('/big', () => BIG);
    app.get('/off', () => BIG).compress(false);
    const headers = { 'Accept-Encoding': 'gzip, br' };
    const encodingOf = async (path: string) =>
      (await app.request(path, { headers })).headers.get('content-encoding');
    expect(await encodingOf('/big')).toBe('gzip');
    expect(await encodingOf('/off')).toBeUndefined();
    expect(await encodingOf('/plain/big')).toBeUndefined();
    expect(await encodingOf('/plain/again')).toBe('br');
  });

  it('threshold and types replace the defaults', async () => {
    const app = appWith((app) => {
      app.get('/small', () => ({ ok: true })).compress({ threshold: 0 });
      app
        .get('/csv', () => new Response(200, 'a,b\n'.repeat(1000), { contentType: 'text/csv' }))
        .compress({ types: ['application/json'] });
      app
        .get(
          '/custom',
          () => new Response(200, 'x'.repeat(4000), { contentType: 'application/vnd.acme.report' }),
        )
        .compress({ types: ['text/*', 'application/vnd.acme.report'] });
    });
    const headers = { 'Accept-Encoding': 'gzip' };
    expect((await app.request('/small', { headers })).headers.get('content-encoding')).toBe('gzip');
    expect(
      (await app.request('/csv', { headers })).headers.get('content-encoding'),
    ).toBeUndefined();
    expect((await app.request('/custom', { headers })).headers.get('content-encoding')).toBe(
      'gzip',
    );
  });

  it('refuses misspelt options at registration', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.compress({ threshold: -1 })).toThrow(SetupError);
    expect(() => app.compress({ encodings: ['deflate' as 'gzip'] })).toThrow(/encodings/);
    expect(() => app.compress({ encodings: [] })).toThrow(/encodings/);
    expect(() => app.compress({ types: ['json'] })).toThrow(/types/);
    expect(() => app.compress({ levels: { gzip: 1.5 } })).toThrow(/levels/);
    expect(() => app.get('/x', () => 1).compress({ levels: { lz4: 1 } as never })).toThrow(
      /levels/,
    );
  });
});

describe('compress() before onResponse hooks and the access log', () => {
  it('hooks see the encoded headers, and the access log counts the bytes sent', async () => {
    const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const logger: Logger = {
      ...silentLogger,
      info: (message: string, fields?: Record<string, unknown>) => {
        lines.push({ message, fields: fields ?? {} });
      },
    };
    const app = new RestApplication({ logger, accessLog: true }).compress();
    const seen: Array<string | undefined> = [];
    app.onResponse(({ response }) => {
      seen.push(response.headers.get('content-encoding'));
    });
    app.get('/big', () => BIG);
    const response = await app.request('/big', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(seen).toEqual(['gzip']);
    const sent = bytesOf(response.body).length;
    const access = lines.find((line) => line.message.startsWith('GET /big'));
    expect(access?.fields.bytes).toBe(sent);
    expect(sent).toBeLessThan(BIG_JSON.length);
  });
});

describe('compress() and the 304 that stands for a 200', () => {
  const app = new RestApplication({ logger: silentLogger }).compress();
  app.get('/small', () => new Response(200, { a: 1 }, { etag: '"v1"' }));
  app.get(
    '/logo.png',
    () => new Response(200, new Uint8Array(5000), { contentType: 'image/png', etag: '"v3"' }),
  );
  app.get(
    '/big',
    () => new Response(200, 'x'.repeat(5000), { contentType: 'text/plain', etag: '"v2"' }),
  );
  const zstdHere =
    typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === 'function';

  it('carries the ETag and Vary of its 200, whether that 200 was compressed or not (RFC 9110 §15.4.5)', async () => {
    const cases: Array<[string, string]> = [
      ['/small', 'gzip'],
      ['/logo.png', 'gzip, br'],
      ['/big', 'gzip'],
      ['/big', 'identity'],
      ['/big', 'zstd'],
    ];
    for (const [path, accept] of cases) {
      const ok = await app.request(path, { headers: { 'Accept-Encoding': accept } });
      const notModified = await app.request(path, {
        headers: { 'Accept-Encoding': accept, 'If-None-Match': 'W/"v1", W/"v2", W/"v3"' },
      });
      expect(notModified.statusCode, `${path} ${accept}`).toBe(304);
      expect(notModified.headers.get('etag'), `${path} ${accept}`).toBe(ok.headers.get('etag'));
      expect(varyOf(notModified), `${path} ${accept}`).toEqual(varyOf(ok));
    }
    // A coding this runtime lacks is no coding: the 200 goes out as it is, with its strong tag.
    const zstd = await app.request('/big', { headers: { 'Accept-Encoding': 'zstd' } });
    expect(zstd.headers.get('etag')).toBe(zstdHere ? 'W/"v2"' : '"v2"');
    expect(
      (await app.request('/big', { headers: { 'Accept-Encoding': 'identity' } })).headers.get(
        'etag',
      ),
    ).toBe('"v2"');
  });
});
