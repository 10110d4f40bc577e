/**
 * HTTP features through every driver: conditional requests (RFC 9110 §13.1–§13.2), ranges
 * (§14.1–§14.4), authorization hooks, CORS, Content-Security-Policy, default headers, cookies and
 * request ids. One test per rule the library implements, named after the rule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Response, RestApplication, Router, silentLogger } from '../../../src/index.js';
import type { DriverResponse } from '../driver.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

const UPDATED = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
const UPDATED_HTTP = 'Tue, 02 Jan 2024 03:04:05 GMT';
const BEFORE_HTTP = 'Tue, 02 Jan 2024 03:04:04 GMT';
const AFTER_HTTP = 'Wed, 03 Jan 2024 00:00:00 GMT';
const BYTES = Uint8Array.from({ length: 100 }, (_, i) => i);
const TEXT = 'héllo wörld';
const FILE_TEXT = 'abcdefghijklmnopqrstuvwxyz'.repeat(4);
const ORIGIN = 'https://app.example';

// One fixture file for the file-body range cases, shared by every driver of this process.
let fixtureFile: string | undefined;
function fileFixture(): string {
  if (fixtureFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'restmachine-features-'));
    fixtureFile = join(dir, 'letters.txt');
    writeFileSync(fixtureFile, FILE_TEXT);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return fixtureFile;
}

interface Doc {
  text: string;
  version: number;
  updated: Date;
}

const USERS = new Map([
  ['Bearer ada', { name: 'ada', admin: true }],
  ['Bearer bob', { name: 'bob', admin: false }],
]);

function buildApp() {
  const app = new RestApplication({
    logger: silentLogger,
    wwwAuthenticate: 'Bearer realm="restmachine"',
  })
    .dependency(
      'docs',
      () => new Map<string, Doc>([['a', { text: 'alpha', version: 1, updated: UPDATED }]]),
      { scope: 'session' },
    )
    .dependency('calls', () => new Map<string, number>(), { scope: 'session' })
    .authorized('user', ({ headers }) => USERS.get(headers.get('authorization') ?? ''))
    .forbidden('notAdmin', ({ user }) => !user.admin)
    .resourceExists('missing', () => null);

  // Conditional requests: route-level providers evaluated before the handler.
  app
    .get('/docs/{id}', ({ docs, calls, id }) => {
      calls.set(id, (calls.get(id) ?? 0) + 1);
      const doc = docs.get(id);
      return doc === undefined ? [{ error: 'none' }, 404] : { text: doc.text };
    })
    .etag(({ docs, id }) => {
      const doc = docs.get(id);
      return doc && `v${doc.version}`;
    })
    .lastModified(({ docs, id }) => docs.get(id)?.updated);
  app
    .put('/docs/{id}', ({ docs, id, jsonBody }) => {
      const existing = docs.get(id);
      const doc = {
        text: String((jsonBody as { text?: unknown }).text),
        version: (existing?.version ?? 0) + 1,
        updated: new Date(UPDATED.getTime() + 60_000),
      };
      docs.set(id, doc);
      return [{ text: doc.text }, existing ? 200 : 201, { ETag: `"v${doc.version}"` }];
    })
    .etag(({ docs, id }) => {
      const doc = docs.get(id);
      return doc && `v${doc.version}`;
    })
    .lastModified(({ docs, id }) => docs.get(id)?.updated);
  app
    .delete('/docs/{id}', ({ docs, id }) => {
      docs.delete(id);
      return null;
    })
    .etag(({ docs, id }) => {
      const doc = docs.get(id);
      return doc && `v${doc.version}`;
    });
  app.get('/calls/{id}', ({ calls, id }) => ({ calls: calls.get(id) ?? 0 }));
  app.get('/gone/{id}', ({ missing }) => missing).etag(() => 'never');

  // Conditional requests: validators set by the handler (response level).
  app.get('/response-etag', () =>
    new Response(
      200,
      { v: 1 },
      { headers: { 'Cache-Control': 'max-age=60', Vary: 'Accept-Encoding' } },
    ).setEtag('r1'),
  );
  app.get('/response-date', () => new Response(200, 'dated').setLastModified(UPDATED));
  app.put('/response-etag', () => new Response(200, { saved: true }).setEtag('r1'));

  // Ranges.
  const octets = () => new Response(200, BYTES, { contentType: 'application/octet-stream' });
  app.get('/range/bytes', octets);
  app.post('/range/bytes', octets);
  app.get('/range/text', () => TEXT);
  app.get('/range/file', () => Response.file(fileFixture()));
  app.get('/range/validated', () => octets().setEtag('r1').setLastModified(UPDATED));
  app.get('/range/weak', () => octets().setEtag('r1', true));
  app.get('/range/created', () => new Response(201, BYTES));

  // Authorization hooks.
  app.get('/me', ({ user }) => ({ name: user.name }));
  app.get('/admin', ({ user, notAdmin }) => ({ admin: user.name, notAdmin }));
  app.get('/me/secret', ({ user, missing }) => ({ user, missing }));
  app.get('/public', () => ({ public: true }));

  // CORS: '*' for the whole application, one origin with credentials under /cors.
  app.cors({ origin: '*' });
  const cors = new Router();
  cors.cors({ origin: [ORIGIN], credentials: true, exposeHeaders: ['ETag'], maxAge: 600 });
  cors.get('/items', () => [{ id: 1 }]);
  cors.put('/items', () => ({ saved: true }));
  cors.get('/closed', () => ({ closed: true })).cors(false);
  cors.get('/boom', () => {
    throw new Error('failure');
  });
  cors.get('/any', () => ({ any: true })).cors({ origin: '*', credentials: true });
  app.mount('/cors', cors);

  // Content-Security-Policy.
  const csp = new Router();
  csp.csp({ directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", "'nonce'"] } });
  csp.get(
    '/page',
    ({ cspNonce }) =>
      new Response(200, `<script nonce="${cspNonce}">go()</script>`, {
        contentType: 'text/html; charset=utf-8',
      }),
  );
  csp
    .get('/report', () => 'report')
    .csp({
      directives: { defaultSrc: ["'none'"], upgradeInsecureRequests: true },
      reportOnly: true,
    });
  csp.get('/boom', () => {
    throw new Error('failure');
  });
  app.mount('/csp', csp);

  // Default headers, cookies, request ids.
  app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
  app.defaultHeaders(({ requestId }) => ({ 'X-Trace-Id': requestId }));
  app.get('/own-header', () => [{ ok: true }, 200, { 'X-Frame-Options': 'SAMEORIGIN' }]);
  app.get('/cookies', ({ cookies }) => ({ ...cookies }));
  return app;
}

function put(path: string, text: string, headers: Record<string, string> = {}) {
  return {
    method: 'PUT',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ text }),
  };
}

function varyOf(response: DriverResponse): string[] {
  return response.headers
    .getAll('vary')
    .flatMap((line) => line.split(','))
    .map((token) => token.trim().toLowerCase());
}

/** The parts of a multipart/byteranges body: their headers and bytes. */
function multipartParts(response: DriverResponse) {
  const type = response.headers.get('content-type') ?? '';
  const boundary = /boundary=(\S+)/.exec(type)?.[1];
  expect(type.startsWith('multipart/byteranges;')).toBe(true);
  const text = Buffer.from(response.body).toString('latin1');
  const sections = text.split(`--${boundary}`);
  expect(sections.at(-1)).toBe('--\r\n');
  return sections.slice(1, -1).map((section) => {
    const headEnd = section.indexOf('\r\n\r\n');
    const head = section.slice(2, headEnd).split('\r\n');
    const body = section.slice(headEnd + 4, section.length - 2);
    const headers = Object.fromEntries(
      head.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 2),
      ]),
    );
    return { headers, body: Buffer.from(body, 'latin1') };
  });
}

export const semanticsCases: CasesModule = {
  title: 'HTTP features',
  app: buildApp,
  cases(context) {
    const test = (title: string, body: Parameters<typeof conformanceTest>[2]) =>
      conformanceTest(context, title, body);

    // RFC 9110 §8.8: validators from the route's providers reach the response.
    test('a GET carries the ETag and Last-Modified of its providers', async (send) => {
      const response = await send(get('/docs/a'));
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"v1"');
      expect(response.headers.get('last-modified')).toBe(UPDATED_HTTP);
    });

    // §13.1.1 If-Match
    test('§13.1.1 If-Match with the current strong tag proceeds', async (send) => {
      await send(put('/docs/m1', 'one'));
      const response = await send(put('/docs/m1', 'two', { 'if-match': '"v1"' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"v2"');
    });

    test('§13.1.1 a stale If-Match is 412 before the handler changes anything', async (send) => {
      await send(put('/docs/m2', 'one'));
      await send(put('/docs/m2', 'two'));
      const response = await send(put('/docs/m2', 'lost update', { 'if-match': '"v1"' }));
      expect(response.status).toBe(412);
      expect(((await send(get('/docs/m2'))).json() as { text: string }).text).toBe('two');
    });

    test('§13.1.1 If-Match: * passes when the resource exists', async (send) => {
      await send(put('/docs/m3', 'one'));
      expect((await send(put('/docs/m3', 'two', { 'if-match': '*' }))).status).toBe(200);
    });

    test('§13.1.1 If-Match: * fails when the resource does not exist', async (send) => {
      expect((await send(put('/docs/m4', 'one', { 'if-match': '*' }))).status).toBe(412);
      expect((await send(get('/docs/m4'))).status).toBe(404);
    });

    test('§13.1.1 If-Match uses the strong comparison: a weak tag never matches', async (send) => {
      await send(put('/docs/m5', 'one'));
      expect((await send(put('/docs/m5', 'two', { 'if-match': 'W/"v1"' }))).status).toBe(412);
    });

    test('§13.1.1 If-Match passes when any tag of the list matches', async (send) => {
      await send(put('/docs/m6', 'one'));
      const response = await send(put('/docs/m6', 'two', { 'if-match': '"v0", "v1", "v9"' }));
      expect(response.status).toBe(200);
    });

    test('§13.1.1 DELETE with a stale If-Match is 412 and deletes nothing', async (send) => {
      await send(put('/docs/m7', 'one'));
      await send(put('/docs/m7', 'two'));
      const response = await send({
        method: 'DELETE',
        path: '/docs/m7',
        headers: { 'if-match': '"v1"' },
      });
      expect(response.status).toBe(412);
      expect((await send(get('/docs/m7'))).status).toBe(200);
      const current = await send({
        method: 'DELETE',
        path: '/docs/m7',
        headers: { 'if-match': '"v2"' },
      });
      expect(current.status).toBe(204);
    });

    // §13.1.2 If-None-Match
    test('§13.1.2 a matching If-None-Match on GET is 304 without running the handler', async (send) => {
      const before = ((await send(get('/calls/a'))).json() as { calls: number }).calls;
      const response = await send(get('/docs/a', { 'if-none-match': '"v1"' }));
      expect(response.status).toBe(304);
      expect(response.body.length).toBe(0);
      expect(response.headers.get('etag')).toBe('"v1"');
      expect(response.headers.has('content-type')).toBe(false);
      expect(((await send(get('/calls/a'))).json() as { calls: number }).calls).toBe(before);
    });

    test('§13.1.2 If-None-Match uses the weak comparison', async (send) => {
      expect((await send(get('/docs/a', { 'if-none-match': 'W/"v1"' }))).status).toBe(304);
    });

    test('§13.1.2 If-None-Match: * on an existing resource is 304 for GET', async (send) => {
      expect((await send(get('/docs/a', { 'if-none-match': '*' }))).status).toBe(304);
    });

    test('§13.1.2 If-None-Match that matches nothing proceeds with 200', async (send) => {
      const response = await send(get('/docs/a', { 'if-none-match': '"v0", "other"' }));
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ text: 'alpha' });
    });

    test('§13.1.2 PUT with If-None-Match: * creates once, then is 412', async (send) => {
      expect((await send(put('/docs/n1', 'new', { 'if-none-match': '*' }))).status).toBe(201);
      expect((await send(put('/docs/n1', 'again', { 'if-none-match': '*' }))).status).toBe(412);
    });

    test('§13.1.2 a matching If-None-Match on an unsafe method is 412', async (send) => {
      await send(put('/docs/n2', 'one'));
      const response = await send({
        method: 'DELETE',
        path: '/docs/n2',
        headers: { 'if-none-match': '"v1"' },
      });
      expect(response.status).toBe(412);
    });

    // §13.1.3 If-Modified-Since
    test('§13.1.3 If-Modified-Since at or after Last-Modified is 304', async (send) => {
      expect((await send(get('/docs/a', { 'if-modified-since': UPDATED_HTTP }))).status).toBe(304);
      expect((await send(get('/docs/a', { 'if-modified-since': AFTER_HTTP }))).status).toBe(304);
    });

    test('§13.1.3 If-Modified-Since before Last-Modified is 200', async (send) => {
      expect((await send(get('/docs/a', { 'if-modified-since': BEFORE_HTTP }))).status).toBe(200);
    });

    test('§13.1.3 dates compare at one-second precision', async (send) => {
      // Last-Modified has milliseconds (.678); the HTTP date of the same second matches.
      const response = await send(get('/docs/a', { 'if-modified-since': UPDATED_HTTP }));
      expect(response.status).toBe(304);
      expect(response.headers.get('etag')).toBe('"v1"');
      expect(response.headers.has('content-type')).toBe(false);
    });

    test('§13.1.3 If-Modified-Since is ignored when If-None-Match is present', async (send) => {
      const response = await send(
        get('/docs/a', { 'if-none-match': '"other"', 'if-modified-since': AFTER_HTTP }),
      );
      expect(response.status).toBe(200);
    });

    test('§13.1.3 an invalid If-Modified-Since date is ignored', async (send) => {
      expect((await send(get('/docs/a', { 'if-modified-since': 'yesterday' }))).status).toBe(200);
      expect((await send(get('/docs/a', { 'if-modified-since': '2024-01-03' }))).status).toBe(200);
    });

    test('§13.1.3 If-Modified-Since is ignored for methods other than GET and HEAD', async (send) => {
      await send(put('/docs/d1', 'one'));
      expect((await send(put('/docs/d1', 'two', { 'if-modified-since': AFTER_HTTP }))).status).toBe(
        200,
      );
    });

    // §13.1.4 If-Unmodified-Since
    test('§13.1.4 If-Unmodified-Since before Last-Modified is 412', async (send) => {
      await send(put('/docs/u1', 'one'));
      expect(
        (await send(put('/docs/u1', 'two', { 'if-unmodified-since': BEFORE_HTTP }))).status,
      ).toBe(412);
    });

    test('§13.1.4 If-Unmodified-Since at or after Last-Modified proceeds', async (send) => {
      await send(put('/docs/u2', 'one'));
      const response = await send(put('/docs/u2', 'two', { 'if-unmodified-since': AFTER_HTTP }));
      expect(response.status).toBe(200);
    });

    test('§13.1.4 If-Unmodified-Since is ignored when If-Match is present', async (send) => {
      await send(put('/docs/u3', 'one'));
      const response = await send(
        put('/docs/u3', 'two', { 'if-match': '"v1"', 'if-unmodified-since': BEFORE_HTTP }),
      );
      expect(response.status).toBe(200);
    });

    test('§13.1.4 an invalid If-Unmodified-Since date is ignored', async (send) => {
      await send(put('/docs/u4', 'one'));
      expect((await send(put('/docs/u4', 'two', { 'if-unmodified-since': 'never' }))).status).toBe(
        200,
      );
    });

    // §13.2.1 and §13.2.2
    test('§13.2.1 preconditions are not evaluated when the response would be an error', async (send) => {
      const response = await send(get('/gone/x', { 'if-none-match': '*', 'if-match': '"nope"' }));
      expect(response.status).toBe(404);
    });

    test('§13.2.1 preconditions do not apply to OPTIONS', async (send) => {
      const response = await send({
        method: 'OPTIONS',
        path: '/docs/a',
        headers: { 'if-match': '"stale"' },
      });
      expect(response.status).toBe(204);
    });

    test('§13.2.2 If-Match is evaluated before If-None-Match', async (send) => {
      const response = await send(
        get('/docs/a', { 'if-match': '"stale"', 'if-none-match': '"v1"' }),
      );
      expect(response.status).toBe(412);
    });

    test('§13.2.2 HEAD is evaluated as GET', async (send) => {
      const response = await send({
        method: 'HEAD',
        path: '/docs/a',
        headers: { 'if-none-match': '"v1"' },
      });
      expect(response.status).toBe(304);
      expect(response.body.length).toBe(0);
    });

    // §15.4.5 304 Not Modified
    test('§15.4.5 a 304 keeps ETag, Cache-Control and Vary, and sends no content', async (send) => {
      const response = await send(get('/response-etag', { 'if-none-match': '"r1"' }));
      expect(response.status).toBe(304);
      expect(response.body.length).toBe(0);
      expect(response.headers.get('etag')).toBe('"r1"');
      expect(response.headers.get('cache-control')).toBe('max-age=60');
      expect(varyOf(response)).toContain('accept-encoding');
      expect(response.headers.has('content-length')).toBe(false);
      // The Content-* headers describe content a 304 does not have.
      expect(response.headers.has('content-type')).toBe(false);
    });

    // Validators set by the handler.
    test('an ETag set by the handler answers a matching GET with 304', async (send) => {
      const response = await send(get('/response-etag', { 'if-none-match': 'W/"r1", "x"' }));
      expect(response.status).toBe(304);
    });

    test('a Last-Modified set by the handler answers If-Modified-Since with 304', async (send) => {
      const notModified = await send(get('/response-date', { 'if-modified-since': UPDATED_HTTP }));
      expect(notModified.status).toBe(304);
      expect(notModified.headers.has('content-type')).toBe(false);
      expect((await send(get('/response-date', { 'if-modified-since': BEFORE_HTTP }))).status).toBe(
        200,
      );
    });

    test('an ETag set by the handler fails a GET with a stale If-Match with 412', async (send) => {
      expect((await send(get('/response-etag', { 'if-match': '"r0"' }))).status).toBe(412);
      expect((await send(get('/response-etag', { 'if-match': '"r1"' }))).status).toBe(200);
    });

    test('a response to an unsafe method is never turned into a 304', async (send) => {
      const response = await send({
        method: 'PUT',
        path: '/response-etag',
        headers: { 'if-none-match': '"r1"' },
      });
      expect(response.status).toBe(200);
    });

    // §14 Range requests
    test('§14.3 Accept-Ranges: bytes on bodies that can be ranged', async (send) => {
      for (const path of ['/range/bytes', '/range/text', '/range/file']) {
        const response = await send(get(path));
        expect(response.status, path).toBe(200);
        expect(response.headers.get('accept-ranges'), path).toBe('bytes');
      }
    });

    test('§14.1.2 a single range is 206 with Content-Range and only those bytes', async (send) => {
      const response = await send(get('/range/bytes', { range: 'bytes=10-19' }));
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe('bytes 10-19/100');
      expect(response.headers.get('content-length')).toBe('10');
      expect(Array.from(response.body)).toEqual(Array.from(BYTES.subarray(10, 20)));
    });

    test('§14.1.2 suffix and open-ended ranges', async (send) => {
      const suffix = await send(get('/range/bytes', { range: 'bytes=-5' }));
      expect(suffix.headers.get('content-range')).toBe('bytes 95-99/100');
      expect(Array.from(suffix.body)).toEqual([95, 96, 97, 98, 99]);
      const open = await send(get('/range/bytes', { range: 'bytes=97-' }));
      expect(open.headers.get('content-range')).toBe('bytes 97-99/100');
      expect(Array.from(open.body)).toEqual([97, 98, 99]);
    });

    test('§14.1.1 ranges of a string body count UTF-8 bytes', async (send) => {
      const response = await send(get('/range/text', { range: 'bytes=0-2' }));
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 0-2/${Buffer.byteLength(TEXT)}`);
      expect(Buffer.from(response.body).toString('utf8')).toBe('hé');
    });

    test('§14.1.2 a file body is served in part', async (send) => {
      const response = await send(get('/range/file', { range: 'bytes=26-28' }));
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 26-28/${FILE_TEXT.length}`);
      expect(response.headers.get('content-length')).toBe('3');
      expect(response.text()).toBe('abc');
    });

    test('§15.5.17 nothing satisfiable is 416 with Content-Range: bytes */size', async (send) => {
      const response = await send(get('/range/bytes', { range: 'bytes=100-200' }));
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe('bytes */100');
    });

    test('§14.6 several ranges are sent as multipart/byteranges', async (send) => {
      const response = await send(get('/range/bytes', { range: 'bytes=0-1, 50-52' }));
      expect(response.status).toBe(206);
      const parts = multipartParts(response);
      expect(parts.map((part) => part.headers['content-range'])).toEqual([
        'bytes 0-1/100',
        'bytes 50-52/100',
      ]);
      expect(parts.map((part) => part.headers['content-type'])).toEqual([
        'application/octet-stream',
        'application/octet-stream',
      ]);
      expect(parts.map((part) => Array.from(part.body))).toEqual([
        [0, 1],
        [50, 51, 52],
      ]);
      expect(response.headers.get('content-length')).toBe(String(response.body.length));
    });

    test('§14.6 several ranges of a file are sent as multipart/byteranges', async (send) => {
      const response = await send(get('/range/file', { range: 'bytes=0-2,-3' }));
      expect(response.status).toBe(206);
      const parts = multipartParts(response);
      expect(parts.map((part) => part.body.toString())).toEqual(['abc', 'xyz']);
      expect(parts[0]?.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.headers.get('content-length')).toBe(String(response.body.length));
    });

    test('§14.2 overlapping ranges are coalesced', async (send) => {
      const response = await send(get('/range/bytes', { range: 'bytes=0-5, 3-8' }));
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe('bytes 0-8/100');
    });

    test('§14.2 a malformed Range or another unit is ignored with 200', async (send) => {
      for (const range of ['bytes=5-1', 'bytes=abc', 'items=0-1', 'bytes']) {
        const response = await send(get('/range/bytes', { range }));
        expect(response.status, range).toBe(200);
        expect(response.body.length, range).toBe(100);
      }
    });

    test('§14.2 Range is ignored for methods other than GET', async (send) => {
      const response = await send({
        method: 'POST',
        path: '/range/bytes',
        headers: { range: 'bytes=0-1' },
      });
      expect(response.status).toBe(200);
      expect(response.body.length).toBe(100);
    });

    test('§14.2 Range is ignored on responses other than 200', async (send) => {
      const response = await send(get('/range/created', { range: 'bytes=0-1' }));
      expect(response.status).toBe(201);
      expect(response.body.length).toBe(100);
    });

    test('§14.2 HEAD ignores Range: 200 with the headers of the whole GET', async (send) => {
      // GET is the only method range handling is defined for (§14.2), as the static router has it.
      const lengths: Record<string, string> = {
        '/range/bytes': '100',
        '/range/text': String(new TextEncoder().encode(TEXT).length),
        '/range/file': String(FILE_TEXT.length),
      };
      for (const [path, length] of Object.entries(lengths)) {
        for (const range of ['bytes=0-9', 'bytes=0-0,2-2']) {
          const label = `${path} ${range}`;
          const response = await send({ method: 'HEAD', path, headers: { range } });
          expect(response.status, label).toBe(200);
          expect(response.headers.has('content-range'), label).toBe(false);
          expect(response.headers.get('content-length'), label).toBe(length);
          expect(response.headers.get('accept-ranges'), label).toBe('bytes');
          expect(response.body.length, label).toBe(0);
        }
      }
    });

    // §13.1.5 If-Range
    test('§13.1.5 If-Range with the current strong ETag gives the range', async (send) => {
      const response = await send(
        get('/range/validated', { range: 'bytes=0-1', 'if-range': '"r1"' }),
      );
      expect(response.status).toBe(206);
    });

    test('§13.1.5 If-Range with another ETag gives the whole representation', async (send) => {
      const response = await send(
        get('/range/validated', { range: 'bytes=0-1', 'if-range': '"r0"' }),
      );
      expect(response.status).toBe(200);
      expect(response.body.length).toBe(100);
    });

    test('§13.1.5 If-Range never matches a weak ETag', async (send) => {
      const response = await send(get('/range/weak', { range: 'bytes=0-1', 'if-range': 'W/"r1"' }));
      expect(response.status).toBe(200);
    });

    test('§13.1.5 If-Range with a date gives the range only for an exact match', async (send) => {
      const exact = await send(
        get('/range/validated', { range: 'bytes=0-1', 'if-range': UPDATED_HTTP }),
      );
      expect(exact.status).toBe(206);
      const later = await send(
        get('/range/validated', { range: 'bytes=0-1', 'if-range': AFTER_HTTP }),
      );
      expect(later.status).toBe(200);
    });

    // Authorization hooks, step 2 of the pipeline (docs/hooks-and-scope.md).
    test('authorized: no credentials is 401 with WWW-Authenticate', async (send) => {
      const response = await send(get('/me'));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="restmachine"');
    });

    test('authorized: the value is injected and responses vary on Authorization', async (send) => {
      const response = await send(get('/me', { authorization: 'Bearer bob' }));
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({ name: 'bob' });
      expect(varyOf(response)).toContain('authorization');
    });

    test('forbidden: a true check is 403', async (send) => {
      expect((await send(get('/admin', { authorization: 'Bearer bob' }))).status).toBe(403);
      const allowed = await send(get('/admin', { authorization: 'Bearer ada' }));
      expect(allowed.status).toBe(200);
      expect(allowed.json()).toEqual({ admin: 'ada', notAdmin: false });
    });

    test('authorization comes before content negotiation and resource checks', async (send) => {
      expect((await send(get('/me', { accept: 'image/png' }))).status).toBe(401);
      expect((await send(get('/me/secret'))).status).toBe(401);
      expect((await send(get('/me/secret', { authorization: 'Bearer ada' }))).status).toBe(404);
    });

    test('routes that do not inject the name are not guarded', async (send) => {
      const response = await send(get('/public'));
      expect(response.status).toBe(200);
      expect(varyOf(response)).not.toContain('authorization');
    });

    // CORS
    test('CORS preflight is 204 with the allow headers', async (send) => {
      const response = await send({
        method: 'OPTIONS',
        path: '/cors/items',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'Content-Type, X-Custom',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, PUT');
      expect(response.headers.get('access-control-allow-headers')).toBe('content-type, x-custom');
      expect(response.headers.get('access-control-max-age')).toBe('600');
      expect(varyOf(response)).toContain('origin');
    });

    test('CORS preflight for a method the route does not serve is refused', async (send) => {
      const response = await send({
        method: 'OPTIONS',
        path: '/cors/items',
        headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' },
      });
      expect(response.headers.has('access-control-allow-origin')).toBe(false);
      expect(response.headers.has('access-control-allow-methods')).toBe(false);
    });

    test('CORS preflight from an origin that is not allowed is refused', async (send) => {
      const response = await send({
        method: 'OPTIONS',
        path: '/cors/items',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      expect(response.headers.has('access-control-allow-origin')).toBe(false);
    });

    test('CORS actual request echoes the origin with credentials, never *', async (send) => {
      const response = await send(get('/cors/items', { origin: ORIGIN }));
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-expose-headers')).toBe('ETag');
      expect(varyOf(response)).toContain('origin');
    });

    test('CORS with origin * and credentials echoes the origin, but not "null"', async (send) => {
      const response = await send(get('/cors/any', { origin: 'https://other.example' }));
      expect(response.headers.get('access-control-allow-origin')).toBe('https://other.example');
      const sandboxed = await send(get('/cors/any', { origin: 'null' }));
      expect(sandboxed.headers.has('access-control-allow-origin')).toBe(false);
    });

    test('CORS from an origin that is not allowed gets no allow headers but Vary: Origin', async (send) => {
      const response = await send(get('/cors/items', { origin: 'https://evil.example' }));
      expect(response.status).toBe(200);
      expect(response.headers.has('access-control-allow-origin')).toBe(false);
      expect(varyOf(response)).toContain('origin');
    });

    test('CORS headers are on error responses too', async (send) => {
      const failure = await send(get('/cors/boom', { origin: ORIGIN }));
      expect(failure.status).toBe(500);
      expect(failure.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const wrongMethod = await send({
        method: 'DELETE',
        path: '/cors/items',
        headers: { origin: ORIGIN },
      });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const notFound = await send(get('/nowhere', { origin: ORIGIN }));
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get('access-control-allow-origin')).toBe('*');
    });

    test('CORS can be switched off for one route', async (send) => {
      const response = await send(get('/cors/closed', { origin: ORIGIN }));
      expect(response.status).toBe(200);
      expect(response.headers.has('access-control-allow-origin')).toBe(false);
    });

    test('CORS with origin * and no credentials answers *', async (send) => {
      const response = await send(get('/public', { origin: 'https://anyone.example' }));
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.has('access-control-allow-credentials')).toBe(false);
    });

    // Content-Security-Policy
    test('CSP: the policy carries a fresh nonce that the handler can use', async (send) => {
      const first = await send(get('/csp/page'));
      const policy = first.headers.get('content-security-policy') ?? '';
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
      expect(policy).toMatch(/^default-src 'self'; script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'$/);
      expect(first.text()).toContain(`nonce="${nonce}"`);
      const second = await send(get('/csp/page'));
      expect(second.headers.get('content-security-policy')).not.toBe(policy);
    });

    test('CSP: report-only policies use their own header', async (send) => {
      const response = await send(get('/csp/report'));
      expect(response.headers.get('content-security-policy-report-only')).toBe(
        "default-src 'none'; upgrade-insecure-requests",
      );
      expect(response.headers.has('content-security-policy')).toBe(false);
    });

    test('CSP is on error responses of the routes it covers, and only there', async (send) => {
      const failure = await send(get('/csp/boom'));
      expect(failure.status).toBe(500);
      expect(failure.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
      expect((await send(get('/public'))).headers.has('content-security-policy')).toBe(false);
    });

    // Default headers, cookies and request ids
    test('default headers are on every response, errors included', async (send) => {
      for (const response of [await send(get('/public')), await send(get('/nowhere'))]) {
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('x-trace-id')).toBe(response.headers.get('x-request-id'));
      }
    });

    test("a handler's own header wins over a default header", async (send) => {
      const response = await send(get('/own-header'));
      expect(response.headers.getAll('x-frame-options')).toEqual(['SAMEORIGIN']);
    });

    test('cookies are injected as a parsed map', async (send) => {
      const response = await send(get('/cookies', { cookie: 'session=abc123; theme=dark' }));
      expect(response.json()).toEqual({ session: 'abc123', theme: 'dark' });
    });

    test('the request id is echoed on error responses too', async (send) => {
      const response = await send(get('/nowhere'));
      expect(response.headers.get('x-request-id')).toMatch(/^[\w.-]{1,128}$/);
    });
  },
};
