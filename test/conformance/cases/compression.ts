/**
 * `compress()` through every driver (docs/streams.md, "Compression"): the coding the client's
 * Accept-Encoding picks, the headers that go with it, HEAD, ranges and streams. On Lambda the
 * compressed bytes travel base64-encoded; every driver hands the suite the bytes sent.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { Response, RestApplication, silentLogger } from '../../../src/index.js';
import type { DriverResponse } from '../driver.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

const DOCUMENT = {
  rows: Array.from({ length: 300 }, (_, i) => ({ id: i, label: `row number ${i}` })),
};
const TEXT = JSON.stringify(DOCUMENT);

function buildApp() {
  const app = new RestApplication({ logger: silentLogger }).compress();
  app.get('/compress/document', () => DOCUMENT);
  app.get('/compress/small', () => ({ small: true }));
  app.get(
    '/compress/stream',
    () =>
      new Response(
        200,
        (async function* () {
          for (const row of DOCUMENT.rows) yield `${JSON.stringify(row)}\n`;
        })(),
        { contentType: 'application/x-ndjson' },
      ),
  );
  app.get('/compress/off', () => DOCUMENT).compress(false);
  return app;
}

function varyMembers(response: DriverResponse): string[] {
  return response.headers
    .getAll('vary')
    .flatMap((line) => line.split(','))
    .map((member) => member.trim().toLowerCase());
}

export const compressionCases: CasesModule = {
  title: 'compression',
  app: buildApp,
  cases(context) {
    conformanceTest(
      context,
      'compress: gzip by Accept-Encoding, with Vary and the sent length',
      async (send) => {
        const response = await send(get('/compress/document', { 'accept-encoding': 'gzip' }));
        expect(response.status).toBe(200);
        expect(response.headers.get('content-encoding')).toBe('gzip');
        expect(varyMembers(response)).toContain('accept-encoding');
        expect(response.headers.get('content-length')).toBe(String(response.body.length));
        expect(response.body.length).toBeLessThan(TEXT.length / 3);
        expect(gunzipSync(response.body).toString()).toBe(TEXT);
      },
    );

    conformanceTest(context, 'compress: br preferred on equal weights', async (send) => {
      const response = await send(
        get('/compress/document', { 'accept-encoding': 'gzip, deflate, br' }),
      );
      expect(response.headers.get('content-encoding')).toBe('br');
      expect(brotliDecompressSync(response.body).toString()).toBe(TEXT);
    });

    conformanceTest(
      context,
      'compress: repeated Accept-Encoding lines are one list (RFC 9110 §5.3)',
      async (send) => {
        const gzip = await send(
          get('/compress/document', { 'accept-encoding': ['identity', 'gzip'] }),
        );
        expect(gzip.headers.get('content-encoding')).toBe('gzip');
        expect(gunzipSync(gzip.body).toString()).toBe(TEXT);
        const br = await send(get('/compress/document', { 'accept-encoding': ['gzip', 'br'] }));
        expect(br.headers.get('content-encoding')).toBe('br');
        const refused = await send(
          get('/compress/document', { 'accept-encoding': ['br;q=0', 'gzip;q=0'] }),
        );
        expect(refused.headers.get('content-encoding')).toBeUndefined();
        expect(refused.text()).toBe(TEXT);
      },
    );

    conformanceTest(
      context,
      'compress: identity without Accept-Encoding, small bodies, or compress(false)',
      async (send) => {
        const plain = await send(get('/compress/document'));
        expect(plain.headers.get('content-encoding')).toBeUndefined();
        expect(varyMembers(plain)).toContain('accept-encoding');
        expect(plain.text()).toBe(TEXT);
        const small = await send(get('/compress/small', { 'accept-encoding': 'gzip' }));
        expect(small.headers.get('content-encoding')).toBeUndefined();
        expect(small.json()).toEqual({ small: true });
        const off = await send(get('/compress/off', { 'accept-encoding': 'gzip' }));
        expect(off.headers.get('content-encoding')).toBeUndefined();
        expect(off.text()).toBe(TEXT);
      },
    );

    conformanceTest(context, 'compress: HEAD has the encoded headers and no body', async (send) => {
      const headers = { 'accept-encoding': 'gzip' };
      const full = await send(get('/compress/document', headers));
      const head = await send({ method: 'HEAD', path: '/compress/document', headers });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-encoding')).toBe('gzip');
      expect(head.headers.get('content-length')).toBe(full.headers.get('content-length'));
      expect(head.body.length).toBe(0);
    });

    conformanceTest(context, 'compress: a range is never compressed', async (send) => {
      const response = await send(
        get('/compress/document', { 'accept-encoding': 'gzip', range: 'bytes=0-9' }),
      );
      expect(response.status).toBe(206);
      expect(response.headers.get('content-encoding')).toBeUndefined();
      expect(response.text()).toBe(TEXT.slice(0, 10));
    });

    conformanceTest(context, 'compress: a stream is compressed as it is produced', async (send) => {
      const response = await send(get('/compress/stream', { 'accept-encoding': 'gzip' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBe('gzip');
      const lines = gunzipSync(response.body).toString().trim().split('\n');
      expect(lines.map((line) => JSON.parse(line))).toEqual(DOCUMENT.rows);
    });
  },
};
