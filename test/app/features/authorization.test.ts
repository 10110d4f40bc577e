/**
 * Authorization hooks (docs/hooks-and-scope.md): opt-in by injection, global hooks, options, order.
 */
import { describe, expect, it } from 'vitest';
import { HttpError, RestApplication, SetupError, silentLogger } from '../../../src/index.js';
import { openapi } from '../../../src/openapi/index.js';

describe('authorization hooks', () => {
  it('guard the routes that reach the name through a provider', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .authorized('user', async ({ headers }) =>
        headers.get('authorization') === 'ok' ? { id: 1 } : null,
      )
      .dependency('profile', ({ user }) => ({ owner: user.id }));
    app.get('/profile', ({ profile }) => profile);
    expect((await app.request('/profile')).statusCode).toBe(401);
    const response = await app.request('/profile', { headers: { Authorization: 'ok' } });
    expect(response.body).toBe('{"owner":1}');
  });

  it('401 carries the configured challenge, a hook its own, and Bearer when none is configured', async () => {
    const app = new RestApplication({ logger: silentLogger, wwwAuthenticate: 'Basic realm="app"' })
      .authorized('anyone', () => false, { wwwAuthenticate: 'Bearer' })
      .authorized('nobody', () => 0);
    app.get('/a', ({ anyone }) => anyone);
    app.get('/b', ({ nobody }) => nobody);
    expect((await app.request('/a')).headers.get('www-authenticate')).toBe('Bearer');
    expect((await app.request('/b')).headers.get('www-authenticate')).toBe('Basic realm="app"');
    const bare = new RestApplication({ logger: silentLogger }).authorized('u', () => null);
    bare.get('/', ({ u }) => u);
    const response = await bare.request('/');
    expect(response.statusCode).toBe(401);
    // RFC 9110 §15.5.2: every 401 carries a challenge; the hook documents as HTTP bearer.
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    // A hook documented as another scheme has no challenge the library could make up.
    const apiKey = new RestApplication({ logger: silentLogger }).authorized('key', () => null, {
      openapi: { type: 'apiKey', name: 'X-Api-Key', in: 'header' },
    });
    apiKey.get('/', ({ key }) => key);
    expect((await apiKey.request('/')).headers.has('www-authenticate')).toBe(false);
    // The built-in 401 body is JSON or plain text by Accept, and depends on Authorization.
    expect(response.headers.getAll('vary')).toEqual(['Accept, Authorization']);
  });

  it('run global hooks for every route, 401 before 403', async () => {
    const calls: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .authorized(
        'user',
        ({ headers }) => {
          calls.push('authorized');
          return headers.get('authorization');
        },
        { global: true },
      )
      .forbidden(
        'readOnly',
        ({ request }) => {
          calls.push('forbidden');
          return request.method !== 'GET';
        },
        { global: true, vary: false },
      );
    app.get('/x', () => 'x');
    app.post('/x', () => 'x');
    expect((await app.request('/x', { method: 'POST' })).statusCode).toBe(401);
    expect(calls).toEqual(['authorized']);
    expect(
      (await app.request('/x', { method: 'POST', headers: { Authorization: 'a' } })).statusCode,
    ).toBe(403);
    const ok = await app.request('/x', { headers: { Authorization: 'a' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.get('vary')?.split(', ')).toContain('Authorization');
    // 404 and 405 are not routes: nothing to authorize.
    expect((await app.request('/nowhere')).statusCode).toBe(404);
  });

  it('fail closed: any truthy value from a forbidden check is 403', async () => {
    const app = new RestApplication({ logger: silentLogger }).forbidden('blocked', () => 'yes');
    app.get('/', ({ blocked }) => ({ blocked }));
    expect((await app.request('/')).statusCode).toBe(403);
  });

  it('let a hook throw its own HttpError, and turn other throws into 500', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .authorized('token', () => {
        throw new HttpError(400, 'Malformed token');
      })
      .authorized('broken', () => {
        throw new Error('database down');
      });
    app.get('/a', ({ token }) => token);
    app.get('/b', ({ broken }) => broken);
    expect((await app.request('/a')).statusCode).toBe(400);
    expect((await app.request('/b')).statusCode).toBe(500);
  });

  it('a 401 a hook throws itself gets the challenge, unless it brings its own', async () => {
    const app = new RestApplication({ logger: silentLogger, wwwAuthenticate: 'Bearer realm="x"' })
      .authorized('user', ({ headers }) => {
        if (headers.get('authorization') === 'Bearer old')
          throw new HttpError(401, 'token expired');
        return headers.get('authorization');
      })
      .authorized('session', async () => {
        throw new HttpError(401, 'session ended', undefined, {
          'www-authenticate': 'Cookie realm="s"',
        });
      })
      .authorized('late', async () => {
        throw new HttpError(401, 'checked later');
      })
      .dependency('token', ({ headers }) => {
        const token = headers.get('x-token');
        if (token === undefined) throw new HttpError(401, 'no token');
        return token;
      })
      .authorized('member', ({ token }) => token === 'good');
    app.get('/user', ({ user }) => user);
    app.get('/session', ({ session }) => session);
    app.get('/late', ({ late }) => late);
    const expired = await app.request('/user', { headers: { authorization: 'Bearer old' } });
    expect(expired.statusCode).toBe(401);
    expect(JSON.parse(expired.body as string).error).toBe('token expired');
    // RFC 9110 §15.5.2: a server generating a 401 MUST send WWW-Authenticate.
    expect(expired.headers.get('www-authenticate')).toBe('Bearer realm="x"');
    expect((await app.request('/late')).headers.get('www-authenticate')).toBe('Bearer realm="x"');
    // Thrown by a value the check injects, before the check runs.
    app.get('/member', ({ member }) => member);
    const tokenless = await app.request('/member');
    expect(JSON.parse(tokenless.body as string).error).toBe('no token');
    expect(tokenless.headers.get('www-authenticate')).toBe('Bearer realm="x"');
    expect((await app.request('/session')).headers.getAll('www-authenticate')).toEqual([
      'Cookie realm="s"',
    ]);
  });

  it('a check only a body parser or the default headers reach still runs first', async () => {
    const ran: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .authorized('user', ({ headers }) => headers.get('authorization'))
      .accepts('text/csv', ({ body, user }) => `${user}:${body}`);
    app.post('/csv', ({ parsedBody }) => {
      ran.push('csv');
      return { parsedBody };
    });
    // Without the check first, the parser's 415 and the route's 406 told an anonymous client
    // what the route takes and gives.
    for (const headers of [
      {},
      { 'content-type': 'text/xml' },
      { 'content-type': 'text/csv', accept: 'image/png' },
    ]) {
      const response = await app.request('/csv', { method: 'POST', body: 'a,b', headers });
      expect(response.statusCode).toBe(401);
    }
    const signed = await app.request('/csv', {
      method: 'POST',
      body: 'a,b',
      headers: { 'content-type': 'text/csv', authorization: 'ann' },
    });
    expect(signed.body).toBe('{"parsedBody":"ann:a,b"}');
    const withDefaults = new RestApplication({ logger: silentLogger })
      .authorized('user', ({ headers }) => headers.get('authorization'))
      .defaultHeaders(({ user }) => ({ 'X-User': String(user) }));
    withDefaults.get('/open', () => {
      ran.push('open');
      return 'open';
    });
    // The default headers need `user`, so even the 401 cannot be completed: a logged 500
    // (docs/http-semantics.md), and the handler never ran.
    expect((await withDefaults.request('/open')).statusCode).toBe(500);
    const allowed = await withDefaults.request('/open', { headers: { authorization: 'bob' } });
    expect(allowed.headers.get('x-user')).toBe('bob');
    expect(ran).toEqual(['csv', 'open']);
  });

  it('a check only a renderer reaches still runs before the handler', async () => {
    const orders: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .authorized('user', ({ headers }) => headers.get('authorization'))
      .provides('text/csv', ({ result, user }) => `${user},${JSON.stringify(result)}`);
    app
      .post('/orders', () => {
        orders.push('created');
        return { ok: true };
      })
      .provides('text/html', ({ user }) => `<p>${user}</p>`);
    for (const accept of ['text/html', 'text/csv']) {
      const anonymous = await app.request('/orders', { method: 'POST', headers: { accept } });
      expect(anonymous.statusCode).toBe(401);
    }
    expect(orders).toEqual([]);
    const signed = await app.request('/orders', {
      method: 'POST',
      headers: { accept: 'text/html', authorization: 'ann' },
    });
    expect(signed.statusCode).toBe(200);
    expect(signed.body).toBe('<p>ann</p>');
    expect(orders).toEqual(['created']);
    const document = openapi(app, { info: { title: 't', version: '1' } });
    expect(document.paths['/orders']?.post?.security).toEqual([{ user: [] }]);
    expect(Object.keys(document.paths['/orders']?.post?.responses ?? {})).toContain('401');
  });

  it('check names and options at registration', () => {
    const app = new RestApplication({ logger: silentLogger }).authorized('user', () => true);
    expect(() => app.authorized('user', () => true)).toThrow(SetupError);
    expect(() => app.forbidden('request', () => true)).toThrow(SetupError);
    expect(() => app.authorized('other', () => true, { vary: 'not a header' })).toThrow(SetupError);
    expect(() => new RestApplication({ wwwAuthenticate: 'a\r\nb' })).toThrow(SetupError);
  });
});
