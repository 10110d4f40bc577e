/**
 * CORS configuration: origin forms, levels, preflight rules and registration errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MultiValueHeaders,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

function preflight(
  app: RestApplication,
  path: string,
  method: string,
  origin = 'https://a.example',
  headers: Record<string, string> = {},
) {
  return app.request(path, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, ...headers },
  });
}

describe('CORS', () => {
  it('accepts a RegExp (global flags cannot make it flip between requests) and a function', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/re', () => 'x').cors({ origin: /^https:\/\/[a-z]+\.example$/g });
    app.get('/fn', () => 'x').cors({ origin: (origin) => origin.endsWith('.trusted.example') });
    for (let i = 0; i < 3; i++) {
      const response = await app.request('/re', { headers: { Origin: 'https://a.example' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('https://a.example');
    }
    const trusted = await app.request('/fn', { headers: { Origin: 'https://x.trusted.example' } });
    expect(trusted.headers.get('access-control-allow-origin')).toBe('https://x.trusted.example');
    const other = await app.request('/fn', { headers: { Origin: 'https://evil.example' } });
    expect(other.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('never echoes something that is not an origin', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x').cors({ origin: () => true, credentials: true });
    const response = await app.request('/x', {
      headers: { Origin: 'https://a.example, https://b.example' },
    });
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
    const notOrigins = [
      'https://user:secret@a.example',
      'https://@a.example',
      'https://a.example:port',
      'https://a.example:123456',
      'https://[a.example]',
      'https://a.example\\b',
      'https://a%2eexample',
    ];
    for (const origin of notOrigins) {
      const refused = await app.request('/x', { headers: { Origin: origin } });
      expect([origin, refused.headers.get('access-control-allow-origin')]).toEqual([
        origin,
        undefined,
      ]);
    }
    for (const origin of [
      'https://a.example:8443',
      'http://[::1]:3000',
      'chrome-extension://abc',
    ]) {
      const echoed = await app.request('/x', { headers: { Origin: origin } });
      expect(echoed.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it("origin '*' without credentials answers * with or without an Origin, and does not vary by it", async () => {
    const app = new RestApplication({ logger: silentLogger }).cors({ origin: '*' });
    app.get('/x', () => ({ ok: true }));
    const withOrigin = await app.request('/x', { headers: { Origin: 'https://a.example' } });
    const without = await app.request('/x');
    const notAnOrigin = await app.request('/x', { headers: { Origin: 'not an origin' } });
    for (const response of [withOrigin, without, notAnOrigin]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('vary') ?? '').not.toMatch(/origin/i);
    }
  });

  it('merges levels: the route overrides what it sets and inherits the rest', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.cors({ origin: 'https://a.example', exposeHeaders: ['ETag'] });
    const api = new Router();
    api.cors({ credentials: true });
    api.get('/merged', () => 'x').cors({ maxAge: 60 });
    api.get('/off', () => 'x').cors(false);
    const inner = new Router();
    inner.cors(false);
    inner.get('/reenabled', () => 'x').cors({ origin: '*' });
    api.mount('/inner', inner);
    app.mount('/api', api);
    const merged = await app.request('/api/merged', { headers: { Origin: 'https://a.example' } });
    expect(merged.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(merged.headers.get('access-control-allow-credentials')).toBe('true');
    expect(merged.headers.get('access-control-expose-headers')).toBe('ETag');
    const off = await app.request('/api/off', { headers: { Origin: 'https://a.example' } });
    expect(off.headers.has('access-control-allow-origin')).toBe(false);
    expect(off.headers.getAll('vary')).not.toContain('Origin');
    // Answers about the path (OPTIONS, 405) follow its routes, not the application's CORS.
    for (const method of ['OPTIONS', 'PUT']) {
      const about = await app.request('/api/off', {
        method,
        headers: { Origin: 'https://a.example' },
      });
      expect(about.headers.get('allow'), method).toBe('GET, HEAD, OPTIONS');
      expect(about.headers.has('access-control-allow-origin'), method).toBe(false);
    }
    const reenabled = await app.request('/api/inner/reenabled', {
      headers: { Origin: 'https://z.example' },
    });
    expect(reenabled.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('limits a preflight to the configured methods that the path serves', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.cors({ methods: ['get', 'post'], allowHeaders: ['Content-Type'] });
    app.get('/x', () => 'x');
    app.post('/x', () => 'x');
    app.delete('/x', () => 'x');
    const allowed = await preflight(app, '/x', 'POST', 'https://a.example', {
      'Access-Control-Request-Headers': 'X-Other',
    });
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('*');
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('Content-Type');
    const refused = await preflight(app, '/x', 'DELETE');
    expect(refused.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('grants a preflight for a method written in lower case as the request itself is served', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.patch('/notes/{id}', ({ id }) => ({ id })).cors({ origin: 'https://a.example' });
    // fetch(url, { method: 'patch' }) sends `patch` as written, preflight and request alike.
    const granted = await preflight(app, '/notes/1', 'patch');
    expect(granted.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(granted.headers.get('access-control-allow-methods')?.split(', ')).toContain('patch');
    const actual = await app.request('/notes/1', {
      method: 'patch',
      headers: { Origin: 'https://a.example' },
    });
    expect(actual.statusCode).toBe(200);
    const unknown = await preflight(app, '/notes/1', 'purge');
    expect(unknown.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('answers a preflight for HEAD from the GET route, before an OPTIONS handler', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.cors({ origin: 'https://a.example' });
    app.get('/x', () => 'x');
    let optionsCalls = 0;
    app.options('/x', () => {
      optionsCalls++;
      return 'options';
    });
    const response = await preflight(app, '/x', 'HEAD');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(optionsCalls).toBe(0);
    // Without Origin it is an ordinary OPTIONS request.
    const plain = await app.request('/x', {
      method: 'OPTIONS',
      headers: { 'Access-Control-Request-Method': 'GET' },
    });
    expect(plain.body).toBe('options');
  });

  it('leaves OPTIONS alone on paths whose routes have no CORS', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x');
    const response = await preflight(app, '/x', 'GET');
    expect(response.statusCode).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('answers a preflight, granted or refused, with the Allow any OPTIONS answer carries', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x').cors({ origin: 'https://a.example' });
    app.delete('/x', () => 'gone');
    app.post('/y', () => 'y').cors({ origin: 'https://a.example' });
    app.options('/y', () => 'options');
    const plain = await app.request('/x', { method: 'OPTIONS' });
    expect(plain.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    const granted = await preflight(app, '/x', 'GET');
    expect(granted.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(granted.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    const otherOrigin = await preflight(app, '/x', 'GET', 'https://b.example');
    expect(otherOrigin.headers.has('access-control-allow-origin')).toBe(false);
    expect(otherOrigin.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    const unserved = await preflight(app, '/x', 'PUT');
    expect(unserved.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    expect((await preflight(app, '/y', 'POST')).headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('refuses bad options at registration', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.cors({ maxAge: -1 })).toThrow(SetupError);
    expect(() => app.cors({ methods: ['FETCH'] })).toThrow(SetupError);
    expect(() => app.cors({ allowHeaders: ['bad header'] })).toThrow(SetupError);
    expect(() => app.cors({ origin: 42 as never })).toThrow(SetupError);
    expect(() => app.cors(null as never)).toThrow(SetupError);
  });
});

describe('echoed origins', () => {
  it('never echoes an Origin with a control character, whatever the origin option allows', async () => {
    const app = new RestApplication({ logger: silentLogger }).cors({ origin: () => true });
    app.get('/x', () => 'ok');
    for (const origin of [
      'https://a.example\u0001',
      'https://a.example\u007f',
      'https://a\u0085b',
    ]) {
      // As an adapter hands a client's fields over: unchecked (a header object given to
      // app.request() is checked as an application's own, and refuses control characters).
      const headers = MultiValueHeaders.fromRawPairs(['Origin', origin]);
      const response = await app.request('/x', { headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers.has('access-control-allow-origin')).toBe(false);
    }
    const ok = await app.request('/x', { headers: { Origin: 'https://a.example' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://a.example');
  });
});

describe('configured origins', () => {
  it('never echoes a configured origin that is not a well-formed one, even when sent as it is', async () => {
    const malformed = ['https://a.example/', 'https://a.example, https://b.example', 'a.example'];
    const single = new RestApplication({ logger: silentLogger }).cors({ origin: malformed[0] });
    single.get('/x', () => 'ok');
    const listed = new RestApplication({ logger: silentLogger }).cors({
      origin: [...malformed, 'https://good.example'],
    });
    listed.get('/x', () => 'ok');
    for (const app of [single, listed]) {
      for (const origin of malformed) {
        const response = await app.request('/x', { headers: { Origin: origin } });
        expect(response.statusCode).toBe(200);
        expect(response.headers.has('access-control-allow-origin')).toBe(false);
      }
    }
    const good = await listed.request('/x', { headers: { Origin: 'https://good.example' } });
    expect(good.headers.get('access-control-allow-origin')).toBe('https://good.example');
  });

  it('allows an exact origin only where the open forms would echo it (property)', async () => {
    const origins = fc.oneof(
      fc.constantFrom('null', 'https://a.example', 'http://localhost:3000', 'https://a.example/'),
      fc
        .tuple(fc.constantFrom('https://', 'http://', 'x+y.z://', '1a://', ''), fc.string())
        .map(([scheme, rest]) => scheme + rest),
    );
    await fc.assert(
      fc.asyncProperty(origins, async (origin) => {
        // An Origin the header value itself could not carry never reaches the application.
        fc.pre(!/[\r\n\0]/.test(origin) && origin.trim() === origin);
        // The option '*' means any origin, answered with `*` whatever the request sends.
        fc.pre(origin !== '*');
        const echoed = async (option: Parameters<RestApplication['cors']>[0]) => {
          const app = new RestApplication({ logger: silentLogger }).cors(option);
          app.get('/x', () => 'ok');
          const response = await app.request('/x', { headers: { Origin: origin } });
          return response.headers.get('access-control-allow-origin');
        };
        const open = await echoed({ origin: () => true });
        expect(await echoed({ origin })).toBe(open);
        expect(await echoed({ origin: ['https://other.example', origin] })).toBe(open);
        expect(await echoed({ origin: /.*/s })).toBe(open);
        if (open !== undefined) expect(open).toBe(origin);
      }),
      { numRuns: 200 },
    );
  });
});

describe("a preflight and its path's other routes", () => {
  const ORIGINS = ['https://partner.example', 'https://admin.example', 'https://other.example'];
  const METHODS = ['GET', 'PUT', 'DELETE'] as const;
  // What a route may say of CORS: the application's, its own origin, or none.
  const settings = fc.constantFrom<'inherit' | 'admin' | 'off'>('inherit', 'admin', 'off');

  it('lists only methods whose own route would grant the origin, as a browser caches them all', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(settings, settings, settings),
        fc.constantFrom(...ORIGINS),
        fc.constantFrom(...METHODS),
        async (perMethod, origin, asked) => {
          const app = new RestApplication({ logger: silentLogger }).cors({
            origin: ORIGINS.slice(0, 2),
            credentials: true,
            maxAge: 600,
          });
          METHODS.forEach((method, i) => {
            const route = app.route(method, '/docs/{id}', () => 'ok');
            if (perMethod[i] === 'admin') {
              route.cors({ origin: 'https://admin.example', credentials: true });
            } else if (perMethod[i] === 'off') route.cors(false);
          });
          // What the route of each method would answer an actual request from this origin.
          const granted = new Set<string>();
          for (const method of METHODS) {
            const actual = await app.request('/docs/1', { method, headers: { Origin: origin } });
            if (actual.headers.get('access-control-allow-origin') === origin) granted.add(method);
          }
          const preflight = await app.request('/docs/1', {
            method: 'OPTIONS',
            headers: { Origin: origin, 'Access-Control-Request-Method': asked },
          });
          const listed = (preflight.headers.get('access-control-allow-methods') ?? '')
            .split(',')
            .map((method) => method.trim())
            .filter((method) => (METHODS as readonly string[]).includes(method));
          for (const method of listed)
            expect([method, granted.has(method)]).toEqual([method, true]);
          expect(listed.length > 0).toBe(granted.has(asked));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a body refused by its declared length', () => {
  it("is answered as the route answers its errors: its router's CORS and error handler", async () => {
    const router = new Router()
      .cors({ origin: 'https://app.example', credentials: true })
      .errorHandler(413, () => ({ message: 'router 413 handler' }));
    router.post('/notes', ({ body }) => body);
    const app = new RestApplication({ logger: silentLogger, bodyLimit: 10 })
      .cors({ origin: 'https://www.example' })
      .mount('/api', router);
    const body = 'x'.repeat(50);
    const sent = async function* () {
      yield body;
    };
    const headers = { Origin: 'https://app.example', 'Content-Type': 'text/plain' };
    const declared = await app.request('/api/notes', {
      method: 'POST',
      body,
      headers: { ...headers, 'Content-Length': String(body.length) },
    });
    const unannounced = await app.request('/api/notes', { method: 'POST', body: sent(), headers });
    for (const response of [declared, unannounced]) {
      expect(response.statusCode).toBe(413);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(JSON.parse(String(response.body))).toEqual({ message: 'router 413 handler' });
    }
  });
});
