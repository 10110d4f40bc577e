/**
 * Results in the shape each integration accepts: every Set-Cookie kept where the shape allows
 * it, no key an integration rejects, bodies as text or base64, HEAD and Content-Length right.
 */
import { Buffer } from 'node:buffer';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { FileBody, Response, RestApplication, silentLogger } from '../../../src/index.js';
import {
  albEvent,
  captureLogger,
  lambdaContext,
  readAlbResult,
  readV1Result,
  readV2Result,
  restEvent,
  v2Event,
  type WireRequest,
  type WireResponse,
} from './fixtures.js';

const EXPIRES = new Date(Date.UTC(2030, 0, 1));
const COOKIE_A = 'a=1; Path=/';
const COOKIE_B = 'b=2; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly';
const BINARY = new Uint8Array([0, 1, 2, 128, 200, 254, 255, 0x89, 0x50, 0x4e, 0x47]);

function buildApp(logger = silentLogger) {
  const app = new RestApplication({ logger });
  app.get('/cookies', () =>
    new Response(200, { ok: true })
      .setCookie('a', '1', { path: '/' })
      .setCookie('b', '2', { expires: EXPIRES, httpOnly: true }),
  );
  app.get(
    '/vary',
    () =>
      new Response(200, 'v', {
        headers: [
          ['Vary', 'Accept'],
          ['Vary', 'Accept-Encoding'],
        ],
      }),
  );
  app.post(
    '/echo-bytes',
    async ({ request }) =>
      new Response(200, await request.bytes(), { contentType: 'application/octet-stream' }),
  );
  app.get('/doc', () => ({ title: 'Größe', items: [1, 2, 3] }));
  app.get(
    '/wrong-length',
    () => new Response(200, 'four', { headers: { 'Content-Length': '999' } }),
  );
  app.get(
    '/stream',
    () =>
      new Response(200, Readable.from([Buffer.from('chunk one, '), 'chunk two']), {
        contentType: 'text/plain',
      }),
  );
  app.get(
    '/gzip',
    () =>
      new Response(200, 'pretend-compressed', {
        headers: { 'Content-Encoding': 'gzip' },
        contentType: 'text/plain',
      }),
  );
  app.get(
    '/utf8-octets',
    () =>
      new Response(200, new TextEncoder().encode('plain'), {
        contentType: 'application/octet-stream',
      }),
  );
  app.get(
    '/text-bytes',
    () =>
      new Response(200, new TextEncoder().encode('héllo'), {
        contentType: 'text/plain; charset=utf-8',
      }),
  );
  app.get(
    '/bad-text',
    () => new Response(200, new Uint8Array([0x68, 0xff, 0x69]), { contentType: 'text/plain' }),
  );
  app.delete('/thing', () => null);
  return app;
}

interface Kind {
  name: string;
  send(
    adapter: CloudGatewayAdapter,
    request: WireRequest,
  ): Promise<{ raw: Record<string, unknown>; wire: WireResponse }>;
}

const KINDS: Kind[] = [
  {
    name: 'REST payload 1.0',
    async send(adapter, request) {
      const raw = await adapter.handleEvent(restEvent(request), lambdaContext());
      return { raw: raw as unknown as Record<string, unknown>, wire: readV1Result(raw) };
    },
  },
  {
    name: 'HTTP API payload 2.0',
    async send(adapter, request) {
      const raw = await adapter.handleEvent(v2Event(request), lambdaContext());
      return { raw: raw as unknown as Record<string, unknown>, wire: readV2Result(raw) };
    },
  },
  {
    name: 'ALB multi-value',
    async send(adapter, request) {
      const raw = await adapter.handleEvent(
        albEvent(request, { multiValue: true }),
        lambdaContext(),
      );
      return { raw: raw as unknown as Record<string, unknown>, wire: readAlbResult(raw, true) };
    },
  },
];

describe.each(KINDS)('$name results', (kind) => {
  const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });

  it('keep both Set-Cookie headers, the one with a comma in its Expires date intact', async () => {
    const { wire } = await kind.send(adapter, { method: 'GET', path: '/cookies' });
    expect(wire.headers.getAll('set-cookie')).toEqual([COOKIE_A, COOKIE_B]);
  });

  it('carry a binary body both ways unchanged, as base64', async () => {
    const { raw, wire } = await kind.send(adapter, {
      method: 'POST',
      path: '/echo-bytes',
      headers: { 'content-type': 'application/octet-stream' },
      body: BINARY,
    });
    expect(raw.isBase64Encoded).toBe(true);
    expect(Array.from(wire.body)).toEqual(Array.from(BINARY));
    expect(wire.headers.get('content-length')).toBe(String(BINARY.length));
  });

  it('answer HEAD with the GET headers, Content-Length included, and an empty body', async () => {
    const get = await kind.send(adapter, { method: 'GET', path: '/doc' });
    const head = await kind.send(adapter, { method: 'HEAD', path: '/doc' });
    expect(head.wire.status).toBe(200);
    expect(head.raw.body).toBe('');
    expect(head.raw.isBase64Encoded).toBe(false);
    expect(head.wire.headers.get('content-length')).toBe(get.wire.headers.get('content-length'));
    expect(head.wire.headers.get('content-type')).toBe('application/json');
  });

  it('recompute Content-Length from the bytes sent', async () => {
    const { wire } = await kind.send(adapter, { method: 'GET', path: '/wrong-length' });
    expect(wire.headers.getAll('content-length')).toEqual(['4']);
    const doc = await kind.send(adapter, { method: 'GET', path: '/doc' });
    expect(doc.wire.headers.get('content-length')).toBe(String(doc.wire.body.length));
  });

  it('send no Content-Length and no body for a 204', async () => {
    const { raw, wire } = await kind.send(adapter, { method: 'DELETE', path: '/thing' });
    expect(wire.status).toBe(204);
    expect(raw.body).toBe('');
    expect(wire.headers.has('content-length')).toBe(false);
  });

  it('read a stream whole and send text as text', async () => {
    const { raw, wire } = await kind.send(adapter, { method: 'GET', path: '/stream' });
    expect(raw.isBase64Encoded).toBe(false);
    expect(raw.body).toBe('chunk one, chunk two');
    expect(wire.headers.get('content-length')).toBe('20');
  });

  it('base64-encode a body with a Content-Encoding and bytes of a binary type', async () => {
    const gzip = await kind.send(adapter, { method: 'GET', path: '/gzip' });
    expect(gzip.raw.isBase64Encoded).toBe(true);
    expect(new TextDecoder().decode(gzip.wire.body)).toBe('pretend-compressed');
    const octets = await kind.send(adapter, { method: 'GET', path: '/utf8-octets' });
    expect(octets.raw.isBase64Encoded).toBe(true);
  });

  it('send valid UTF-8 bytes of a text type as text, invalid ones as base64', async () => {
    const good = await kind.send(adapter, { method: 'GET', path: '/text-bytes' });
    expect(good.raw).toMatchObject({ body: 'héllo', isBase64Encoded: false });
    const bad = await kind.send(adapter, { method: 'GET', path: '/bad-text' });
    expect(bad.raw.isBase64Encoded).toBe(true);
    expect(Array.from(bad.wire.body)).toEqual([0x68, 0xff, 0x69]);
  });
});

describe('payload 1.0 results', () => {
  it('put each single value in headers and only repeated ones in multiValueHeaders, never cookies', async () => {
    const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });
    const result = await adapter.handleEvent(restEvent({ method: 'GET', path: '/cookies' }));
    expect(Object.keys(result).sort()).toEqual([
      'body',
      'headers',
      'isBase64Encoded',
      'multiValueHeaders',
      'statusCode',
    ]);
    expect(result.multiValueHeaders).toEqual({ 'Set-Cookie': [COOKIE_A, COOKIE_B] });
    expect(result.headers?.['Set-Cookie']).toBeUndefined();
    expect(result.headers?.['Content-Type']).toBe('application/json');
    // API Gateway merges the two maps: every header reaches the client once.
    const wire = readV1Result(result).headers;
    expect(wire.getAll('set-cookie')).toEqual([COOKIE_A, COOKIE_B]);
    expect(wire.getAll('content-type')).toEqual(['application/json']);
  });

  it('leave multiValueHeaders out when no header repeats', async () => {
    const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });
    const result = await adapter.handleEvent(restEvent({ method: 'GET', path: '/doc' }));
    expect(result.multiValueHeaders).toBeUndefined();
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(result.headers?.['Content-Length']).toBe(String(Buffer.byteLength(result.body)));
  });
});

describe('payload 2.0 results', () => {
  it('carry cookies in the cookies array, none in headers, and join other repeated headers', async () => {
    const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/cookies' }));
    expect(result.cookies).toEqual([COOKIE_A, COOKIE_B]);
    expect(
      Object.keys(result.headers ?? {}).some((name) => name.toLowerCase() === 'set-cookie'),
    ).toBe(false);
    const vary = await adapter.handleEvent(v2Event({ method: 'GET', path: '/vary' }));
    expect(vary.headers?.Vary).toBe('Accept, Accept-Encoding');
    expect(vary.cookies).toBeUndefined();
  });
});

describe('ALB results', () => {
  it('answer a multi-value request in multi-value shape with a status description', async () => {
    const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });
    const result = await adapter.handleEvent(
      albEvent({ method: 'GET', path: '/cookies' }, { multiValue: true }),
    );
    expect(result.statusDescription).toBe('200 OK');
    expect(result.headers).toBeUndefined();
    expect(result.multiValueHeaders?.['Set-Cookie']).toEqual([COOKIE_A, COOKIE_B]);
    const missing = await adapter.handleEvent(
      albEvent({ method: 'GET', path: '/nowhere' }, { multiValue: true }),
    );
    expect(missing.statusDescription).toBe('404 Not Found');
  });

  it('send one Set-Cookie in single-value mode and warn once that the rest were dropped', async () => {
    const { logger, lines } = captureLogger();
    const adapter = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null, logger });
    const ids: Array<string | undefined> = [];
    for (let i = 0; i < 3; i++) {
      const result = await adapter.handleEvent(albEvent({ method: 'GET', path: '/cookies' }));
      ids.push(result.headers?.['X-Request-ID'] as string | undefined);
      expect(result.multiValueHeaders).toBeUndefined();
      expect(result.headers?.['Set-Cookie']).toBe(COOKIE_A);
      expect(readAlbResult(result, false).headers.getAll('set-cookie')).toEqual([COOKIE_A]);
    }
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/multi-value headers/);
    // Written for a request, it carries its id, as every such line does.
    expect(warnings[0]?.fields?.requestId).toBe(ids[0]);
    expect(ids[0]).toBeTruthy();
    const vary = await adapter.handleEvent(albEvent({ method: 'GET', path: '/vary' }));
    expect(vary.headers?.Vary).toBe('Accept, Accept-Encoding');
  });
});

describe('convertFromResponse', () => {
  const adapter = new CloudGatewayAdapter(new RestApplication({ logger: silentLogger }), {
    metricsPublisher: null,
  });

  it('adds application/json for an object body without a Content-Type', async () => {
    const result = await adapter.convertFromResponse(
      new Response(201, { id: 7 }),
      v2Event({ method: 'POST', path: '/' }),
    );
    expect(result.statusCode).toBe(201);
    expect(result.body).toBe('{"id":7}');
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(result.headers?.['Content-Length']).toBe('8');
  });

  it('reads a file body, and only the byte range of a ranged one, as base64 for a 206', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restmachine-aws-'));
    const path = join(dir, 'notes.txt');
    writeFileSync(path, '0123456789abcdef');
    const whole = await adapter.convertFromResponse(
      Response.file(path, { contentType: 'text/plain' }),
      restEvent({ method: 'GET', path: '/' }),
    );
    expect(whole).toMatchObject({ body: '0123456789abcdef', isBase64Encoded: false });
    const ranged = new FileBody(path);
    ranged.start = 4;
    ranged.end = 9;
    ranged.size = 16;
    const partial = new Response(206, ranged, {
      contentType: 'text/plain',
      headers: { 'Content-Range': 'bytes 4-9/16' },
    });
    const result = await adapter.convertFromResponse(
      partial,
      restEvent({ method: 'GET', path: '/' }),
    );
    expect(result.isBase64Encoded).toBe(true);
    expect(Buffer.from(result.body, 'base64').toString()).toBe('456789');
    expect(result.headers?.['Content-Length']).toBe('6');
    // A missing file is the caller's failure to handle, never an empty body passed off as it.
    await expect(
      adapter.convertFromResponse(
        Response.file(join(dir, 'gone.txt')),
        restEvent({ method: 'GET', path: '/' }),
      ),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('omits the body of a HEAD response built by hand', async () => {
    const result = await adapter.convertFromResponse(
      new Response(200, 'abc', { headers: { 'Content-Length': '3' } }),
      albEvent({ method: 'HEAD', path: '/' }),
    );
    expect(result.body).toBe('');
    expect(result.headers?.['Content-Length']).toBe('3');
  });
});

describe('a result over the buffered limit', () => {
  it('is answered 500 and logged, never handed to Lambda to refuse with a silent 502', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    const big = 'x'.repeat(7 * 1024 * 1024);
    app.get('/report', () => big);
    app.get('/bytes', () => new Uint8Array(5 * 1024 * 1024));
    app.get('/small', () => 'fine');
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null, logger });
    for (const path of ['/report', '/bytes']) {
      // Bytes go base64: 5 MiB of them take about 6.7 MiB of the payload.
      const result = await adapter.handleEvent(restEvent({ method: 'GET', path }));
      expect(result.statusCode, path).toBe(500);
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(6 * 1024 * 1024);
    }
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(
        /^Response of \d+ bytes is over the 6291456 a buffered Lambda response/,
      ),
      expect.stringMatching(
        /^Response of \d+ bytes is over the 6291456 a buffered Lambda response/,
      ),
    ]);
    const small = await adapter.handleEvent(restEvent({ method: 'GET', path: '/small' }));
    expect([small.statusCode, small.body]).toEqual([200, 'fine']);
  });

  it('is caught for text of control characters, which JSON escapes at 6 bytes each', async () => {
    // 1.5 MB of NULs is valid UTF-8 text, sent as a JSON string of \u0000 escapes: about 9 MB.
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    app.get(
      '/nul',
      () => new Response(200, new Uint8Array(1_500_000), { contentType: 'text/plain' }),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null, logger });
    for (const event of [
      restEvent({ method: 'GET', path: '/nul' }),
      v2Event({ method: 'GET', path: '/nul' }),
    ]) {
      const result = await adapter.handleEvent(event);
      expect(result.statusCode).toBe(500);
      expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(6 * 1024 * 1024);
    }
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(/^Response of 900\d{4} bytes is over the 6291456/),
      expect.stringMatching(/^Response of 900\d{4} bytes is over the 6291456/),
    ]);
  });

  it('counts the headers too: a body just under the limit by itself is caught with them', async () => {
    // 1,048,575 NULs are 6,291,450 bytes of escapes, under 6 MB alone; the status and headers
    // around them take it over.
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    app.get(
      '/nul',
      () => new Response(200, new Uint8Array(1_048_575), { contentType: 'text/plain' }),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null, logger });
    const result = await adapter.handleEvent(restEvent({ method: 'GET', path: '/nul' }));
    expect(result.statusCode).toBe(500);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(/^Response of 629\d{4} bytes is over the 6291456/),
    ]);
  });
});
