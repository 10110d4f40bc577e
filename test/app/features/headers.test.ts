/**
 * Content-Security-Policy, default headers, request ids on log lines, cookies.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type LogFields,
  type Logger,
  Response,
  RestApplication,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

function capturingLogger(lines: Array<{ message: string; fields: LogFields | undefined }>): Logger {
  const write = (message: string, fields?: LogFields) => lines.push({ message, fields });
  return { debug: write, info: write, warn: write, error: write };
}

describe('Content-Security-Policy', () => {
  it('writes camelCase directives in kebab-case, with the request nonce the handler sees', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.csp({
      directives: {
        defaultSrc: "'self'",
        styleSrc: ["'self'", "'nonce'"],
        scriptSrc: ["'nonce'", "'strict-dynamic'"],
        objectSrc: false,
        blockAllMixedContent: true,
      },
    });
    app.get('/', ({ cspNonce }) => ({ nonce: cspNonce }));
    const response = await app.request('/');
    const { nonce } = JSON.parse(response.body as string) as { nonce: string };
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(response.headers.get('content-security-policy')).toBe(
      `default-src 'self'; style-src 'self' 'nonce-${nonce}'; script-src 'nonce-${nonce}' 'strict-dynamic'; block-all-mixed-content`,
    );
  });

  it('leaves a policy the handler set alone, and route csp(false) switches it off', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.csp({ directives: { defaultSrc: ["'self'"] } });
    app.get('/own', () => ['x', 200, { 'Content-Security-Policy': "default-src 'none'" }]);
    app.get('/off', () => 'x').csp(false);
    expect((await app.request('/own')).headers.getAll('content-security-policy')).toEqual([
      "default-src 'none'",
    ]);
    expect((await app.request('/off')).headers.has('content-security-policy')).toBe(false);
    expect((await app.request('/missing')).headers.get('content-security-policy')).toBe(
      "default-src 'self'",
    );
  });

  it('refuses directives and sources that would change the policy around them', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.csp({ directives: { scriptSrc: ["'self'; script-src *"] } })).toThrow(
      SetupError,
    );
    expect(() => app.csp({ directives: { scriptSrc: ['a,b'] } })).toThrow(SetupError);
    expect(() => app.csp({ directives: { 'bad name!': ['x'] } })).toThrow(SetupError);
    expect(() => app.csp({ directives: {} })).toThrow(SetupError);
    expect(() => app.csp({ directives: { defaultSrc: ["'self'\r\n"] } })).toThrow(SetupError);
  });

  it('refuses a directive given twice, and sources of the wrong type, with a SetupError', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.csp({ directives: { scriptSrc: ["'self'"], 'script-src': ['*'] } })).toThrow(
      /"script-src" and "scriptSrc" are both script-src/,
    );
    for (const value of [42, { self: true }, null]) {
      expect(() => app.csp({ directives: { scriptSrc: value as unknown as string[] } })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION' }),
      );
    }
  });

  it('gives default headers the nonce of the policy on answers no route gave (404, 405, OPTIONS)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.csp({ directives: { scriptSrc: ["'nonce'"] } });
    app.defaultHeaders(({ cspNonce }) => ({ 'X-Nonce': cspNonce }));
    app.get('/page', () => 'page');
    for (const [method, path, status] of [
      ['GET', '/page', 200],
      ['GET', '/missing', 404],
      ['DELETE', '/page', 405],
      ['OPTIONS', '/page', 204],
    ] as const) {
      const response = await app.request(path, { method });
      const nonce = response.headers.get('x-nonce');
      expect([method, path, response.statusCode]).toEqual([method, path, status]);
      expect([method, path, response.headers.get('content-security-policy')]).toEqual([
        method,
        path,
        `script-src 'nonce-${nonce}'`,
      ]);
    }
  });

  it('leaves a 304 without a policy, so the cached page keeps the nonce its scripts carry', async () => {
    const app = new RestApplication({ logger: silentLogger }).csp({
      directives: { scriptSrc: ["'self'", "'nonce'"] },
    });
    const page = (nonce: string) =>
      new Response(200, `<script nonce="${nonce}">start()</script>`, {
        contentType: 'text/html',
      });
    app.get('/provided', ({ cspNonce }) => page(cspNonce)).etag(() => 'release-42');
    app.get('/handled', ({ cspNonce }) => page(cspNonce).setEtag('release-42'));
    for (const path of ['/provided', '/handled']) {
      const first = await app.request(path);
      expect(first.headers.get('content-security-policy')).toMatch(/'nonce-/);
      const again = await app.request(path, {
        headers: { 'If-None-Match': first.headers.get('etag') as string },
      });
      expect([path, again.statusCode]).toEqual([path, 304]);
      expect([path, again.headers.get('content-security-policy')]).toEqual([path, undefined]);
    }
    // A policy without a nonce is the same on every response, a 304's too.
    const fixed = new RestApplication({ logger: silentLogger }).csp({
      directives: { defaultSrc: ["'self'"] },
    });
    fixed.get('/', () => 'page').etag(() => 'v1');
    const revalidated = await fixed.request('/', { headers: { 'If-None-Match': '"v1"' } });
    expect(revalidated.headers.get('content-security-policy')).toBe("default-src 'self'");
  });
});

describe('default headers', () => {
  it('may be asynchronous and inject dependencies; the response wins', async () => {
    const app = new RestApplication({ logger: silentLogger }).dependency(
      'region',
      async () => 'eu',
    );
    app.defaultHeaders(async ({ region }) => ({
      'X-Region': region,
      'X-Served-By': 'restmachine',
    }));
    app.defaultHeaders({ 'Cache-Control': 'no-store', 'X-Region': 'ignored' });
    app.get('/', () => new Response(200, 'x', { headers: { 'Cache-Control': 'max-age=5' } }));
    const response = await app.request('/');
    expect(response.headers.get('x-region')).toBe('eu');
    expect(response.headers.get('x-served-by')).toBe('restmachine');
    expect(response.headers.get('cache-control')).toBe('max-age=5');
    const missing = await app.request('/nowhere');
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });

  it('are added to CORS preflight answers too', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff' });
    app.get('/x', () => 'x').cors({});
    const response = await app.request('/x', {
      method: 'OPTIONS',
      headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('turn a failing function into a logged 500 that never loops', async () => {
    const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
    const app = new RestApplication({ logger: capturingLogger(lines) });
    app.defaultHeaders(() => {
      throw new Error('header failure');
    });
    app.get('/', () => 'x');
    const response = await app.request('/');
    expect(response.statusCode).toBe(500);
    expect(lines.length).toBeGreaterThan(0);
  });

  it('refuse invalid header names at registration', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.defaultHeaders({ 'bad name': 'x' })).toThrow(SetupError);
    expect(() => app.defaultHeaders({ 'X-Ok': 'line\r\nbreak' })).toThrow(SetupError);
  });
});

describe('request ids', () => {
  it('are on every line the application logs for a request', async () => {
    const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
    const app = new RestApplication({ logger: capturingLogger(lines) });
    app.get('/log', ({ log }) => {
      log.info('handler line', { step: 1 });
      throw new Error('boom');
    });
    const response = await app.request('/log', { headers: { 'X-Request-ID': 'req-42' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('req-42');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line.fields?.requestId, line.message).toBe('req-42');
  });

  it("are this request's on a relayed response that carried another's", async () => {
    const app = new RestApplication({ logger: silentLogger });
    // An upstream's answer, relayed as it came, with the upstream's own id.
    app.get(
      '/weather',
      () => new globalThis.Response('sunny', { headers: { 'X-Request-ID': 'upstream-7' } }),
    );
    app.get('/own', () => new Response(200, 'ok', { headers: { 'X-Request-ID': 'handler-set' } }));
    for (const path of ['/weather', '/own']) {
      const response = await app.request(path, { headers: { 'X-Request-ID': 'client-trace-1' } });
      expect([path, response.headers.getAll('x-request-id')]).toEqual([path, ['client-trace-1']]);
    }
  });
});

describe('types', () => {
  it('type hook values, providers and the nonce', () => {
    const app = new RestApplication({ logger: silentLogger })
      .authorized('user', async () => ({ id: 1 }) as { id: number } | null)
      .forbidden('notOwner', ({ user }) => {
        expectTypeOf(user).toEqualTypeOf<{ id: number }>();
        return user.id !== 1;
      });
    app
      .get('/items/{itemId}', ({ user, notOwner, cspNonce }) => {
        expectTypeOf(user).toEqualTypeOf<{ id: number }>();
        expectTypeOf(notOwner).toEqualTypeOf<false>();
        expectTypeOf(cspNonce).toEqualTypeOf<string>();
        return null;
      })
      .etag(({ itemId, user }) => `${itemId}-${user.id}`)
      .lastModified(async () => new Date())
      .cors({ origin: ['https://a.example'], credentials: true })
      .csp({ directives: { defaultSrc: ["'self'"] }, reportOnly: true });
    // @ts-expect-error: an etag provider returns a string, not a number.
    app.get('/a', () => null).etag(() => 1);
    // @ts-expect-error: `nope` is neither a path parameter nor a registered name.
    app.get('/b/{id}', () => null).lastModified(({ nope }) => nope);
    // @ts-expect-error: maxAge is a number of seconds.
    expect(() => app.cors({ maxAge: '10' })).toThrow(SetupError);
  });
});

describe('request ids when the application cannot run', () => {
  it('are logged and echoed with the 500 of a failed startup', async () => {
    const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
    const app = new RestApplication({ logger: capturingLogger(lines) }).onStartup('db', () => {
      throw new Error('no database');
    });
    app.get('/', () => 'x');
    const response = await app.request('/', { headers: { 'X-Request-ID': 'req-7' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('req-7');
    expect(lines.map((line) => line.fields?.requestId)).toEqual(['req-7']);
  });
});
