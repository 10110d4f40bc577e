import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HTTPMethod,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

function newApp() {
  return new RestApplication({ logger: silentLogger });
}

describe('registration', () => {
  it('registers every method, and route() with a method in any case', async () => {
    const app = newApp();
    app.get('/m', () => 'get');
    app.post('/m', () => 'post');
    app.put('/m', () => 'put');
    app.patch('/m', () => 'patch');
    app.delete('/m', () => 'delete');
    app.head('/m', () => 'head');
    app.options('/m', () => 'options');
    app.route('patch', '/r', () => 'lower');
    app.route(HTTPMethod.PUT, '/r', () => 'enum');
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await app.request('/m', { method });
      expect(response.body).toBe(method.toLowerCase());
    }
    expect((await app.request('/r', { method: 'PATCH' })).body).toBe('lower');
    expect((await app.request('/r', { method: 'PUT' })).body).toBe('enum');
  });

  it('folds a method in ASCII case only: Unicode look-alikes are refused (property)', async () => {
    // 'ſ' (long s) and 'ı' (dotless i) upper-case to S and I in Unicode; a method is a token
    // (RFC 9110 §9.1), and an arriving 'poſt' is an unknown method, never POST.
    const alike: Record<string, string> = { s: '\u017f', i: '\u0131', S: '\u017f', I: '\u0131' };
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');
    fc.assert(
      fc.property(method, fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), (name, upper) => {
        const spelt = [...name].map((c, i) => (upper[i] ? c : c.toLowerCase())).join('');
        const app = newApp();
        app.route(spelt, '/', () => 1);
        expect(app.routes[0]?.method).toBe(name);
        if (!/[SI]/.test(name)) return;
        const lookalike = spelt.replace(/[sSiI]/, (c) => alike[c] as string);
        expect(() => newApp().route(lookalike, '/', () => 1)).toThrow(/Unknown HTTP method/);
      }),
    );
    const app = newApp();
    app.post('/s', () => 'posted');
    expect((await app.request('/s', { method: 'po\u017ft' })).statusCode).toBe(501);
  });

  it('refuses an unknown method at registration', () => {
    expect(() => newApp().route('BREW', '/', () => 1)).toThrow(/Unknown HTTP method "BREW"/);
    // A setup mistake like any other, with the code the docs list.
    expect(() => newApp().route('PROPFIND', '/', () => 1)).toThrow(
      expect.objectContaining({ name: 'SetupError', code: 'INVALID_METHOD' }),
    );
  });

  it('refuses malformed templates', () => {
    const app = newApp();
    expect(() => app.get('no-slash', () => 1)).toThrow(SetupError);
    expect(() => app.get('/a/{b', () => 1)).toThrow(/not a parameter/);
    expect(() => app.get('/{rest*}/x', () => 1)).toThrow(/catch-all must be the last/);
    expect(() => app.get('/{a}/{a}', () => 1)).toThrow(/appears twice/);
  });

  it('refuses static segments no request could match as written', async () => {
    const app = newApp();
    // Requests are matched once dot-segments are removed and each segment is percent-decoded.
    expect(() => app.get('/x/../y', () => 1)).toThrow(/"\.\." segments are removed/);
    expect(() => app.get('/v1/./z', () => 1)).toThrow(/"\." segments are removed/);
    expect(() => app.get('/a%20b', () => 1)).toThrow(/would match only a client's "%2520"/);
    expect(() => app.mount('/a%2Fb', new Router())).toThrow(/percent-decoded before matching/);
    // A literal percent sign is text like any other: `/100%25` reaches it.
    app.get('/a b/100%', () => 'decoded');
    expect((await app.request('/a%20b/100%25')).body).toBe('decoded');
  });

  it('refuses a path parameter named like a built-in, which would stand in for it', async () => {
    const app = newApp().dependency('who', ({ log }) => {
      log.info('resolving who');
      return 'w';
    });
    for (const name of ['log', 'request', 'headers', 'body', 'pathParams', 'error', 'result']) {
      expect(() => app.get(`/x/{${name}}`, ({ who }) => who)).toThrow(
        expect.objectContaining({
          code: 'NAME_CLASH',
          message: expect.stringContaining(`"${name}"`),
        }),
      );
    }
    expect(() => app.mount('/orgs/{request}', new Router())).toThrow(/built-in name/);
    // Other names still work, and the provider gets the real logger.
    app.get('/x/{id}', ({ who, id }) => `${who}${id}`);
    expect((await app.request('/x/7')).body).toBe('w7');
  });

  it('an explicit HEAD handler wins over the GET one', async () => {
    const app = newApp();
    let ran = '';
    app.get('/h', () => {
      ran = 'get';
      return 'x';
    });
    app.head('/h', () => {
      ran = 'head';
      return 'xyz';
    });
    const response = await app.request('/h', { method: 'HEAD' });
    expect(ran).toBe('head');
    expect(response.body).toBeUndefined();
    expect(response.headers.get('content-length')).toBe('3');
  });

  it('a duplicate route is a startup error', async () => {
    const app = newApp();
    app.get('/d', () => 1);
    app.get('/d', () => 2);
    await expect(app.startup()).rejects.toMatchObject({ code: 'DUPLICATE_ROUTE' });
  });

  it('names a duplicate in the order registered, whatever the order routers were mounted in', async () => {
    const app = newApp();
    const admin = new Router();
    admin.get('/secret', () => 'router');
    app.mount('/admin', admin);
    app.get('/admin/secret', () => 'app');
    const failure = await app.startup().then(
      () => undefined,
      (error: SetupError) => error,
    );
    expect(failure?.code).toBe('DUPLICATE_ROUTE');
    // The router's route came first in the source, though the application's own are compiled
    // before any mount's.
    expect(failure?.message).toMatch(
      /first at \S+ \(as \/secret in a router mounted at \/admin\), then at /,
    );
  });

  it('a duplicate registered after startup never takes the place of the guarded route it copies', async () => {
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const app = new RestApplication({ logger });
    const open = new Router();
    open.get('/health', () => 'ok');
    app.mount('/', open);
    const admin = new Router().authorized('user', ({ headers }) => headers.get('x-user'));
    admin.delete('/users/{id}', ({ id }) => `deleted ${id}`);
    app.mount('/admin', admin);
    await app.startup();
    const ran: string[] = [];
    open.delete('/admin/users/{uid}', ({ uid }) => void ran.push(uid));
    app.get('/admin/users/{id}', () => 'late, but its own method');
    const response = await app.request('/admin/users/7', { method: 'DELETE' });
    expect(response.statusCode).toBe(401);
    expect(ran).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(
        /^Registration after startup: DELETE \/admin\/users\/\{uid\} matches the same requests as DELETE \/admin\/users\/\{id\}: first at .*mounted at \/admin\), then at /,
      ),
    ]);
  });
});

describe('matching priority', () => {
  it('static beats parameter beats catch-all, with backtracking', async () => {
    const app = newApp();
    app.get('/users/me', () => 'static');
    app.get('/users/{id}', ({ id }) => `param ${id}`);
    app.get('/users/{id}/posts', ({ id }) => `posts ${id}`);
    app.get('/users/me/settings/{key}', ({ key }) => `settings ${key}`);
    app.get('/{rest*}', ({ rest }) => `catch ${rest}`);
    expect((await app.request('/users/me')).body).toBe('static');
    expect((await app.request('/users/7')).body).toBe('param 7');
    expect((await app.request('/users/me/posts')).body).toBe('posts me');
    expect((await app.request('/users/me/settings/x')).body).toBe('settings x');
    expect((await app.request('/other/deep/path')).body).toBe('catch other/deep/path');
  });

  it('a path matched for another method is 405, never a fall-through to a catch-all', async () => {
    const app = newApp();
    app.post('/only-post', () => 1);
    app.get('/{rest*}', () => 'catch');
    const response = await app.request('/only-post');
    expect(response.statusCode).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('reads a target without its fragment, query included', async () => {
    const app = newApp();
    app.get('/a/{id}', ({ id, queryParams }) => ({ id, q: queryParams.q ?? null }));
    expect(JSON.parse((await app.request('/a/1#frag')).body as string)).toEqual({
      id: '1',
      q: null,
    });
    expect(JSON.parse((await app.request('/a/1?q=x#frag')).body as string)).toEqual({
      id: '1',
      q: 'x',
    });
  });

  it("a route's own OPTIONS answer carries Allow like the built-in one, unless it wrote one", async () => {
    const app = newApp();
    app.get('/items', () => []);
    app.post('/items', () => [null, 201]);
    app.options('/items', () => ({ formats: ['json'] }));
    app.options('/mine', () => ['', 200, { Allow: 'OPTIONS' }]);
    const own = await app.request('/items', { method: 'OPTIONS' });
    expect(own.statusCode).toBe(200);
    expect(own.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect((await app.request('/mine', { method: 'OPTIONS' })).headers.get('allow')).toBe(
      'OPTIONS',
    );
  });
});

describe('mounting', () => {
  it('puts the prefix in front of every route, nests, and adds nothing at /', async () => {
    const app = newApp();
    const v1 = new Router();
    const users = new Router();
    users.get('/{id}', ({ id }) => ({ id }));
    v1.mount('/users', users);
    v1.get('/', () => 'v1 root');
    app.mount('/api/v1/', v1);
    const root = new Router();
    root.get('/health', () => 'ok');
    app.mount('/', root);
    expect((await app.request('/api/v1/users/5')).body).toBe('{"id":"5"}');
    expect((await app.request('/api/v1')).body).toBe('v1 root');
    expect((await app.request('/health')).body).toBe('ok');
  });

  it('lets several routers share a prefix', async () => {
    const app = newApp();
    const a = new Router();
    const b = new Router();
    a.get('/a', () => 'a');
    b.get('/b', () => 'b');
    app.mount('/shared', a);
    app.mount('/shared', b);
    expect((await app.request('/shared/a')).body).toBe('a');
    expect((await app.request('/shared/b')).body).toBe('b');
  });

  it('is a live reference: routes added after mounting still count', async () => {
    const app = newApp();
    const router = new Router();
    app.mount('/live', router);
    expect((await app.request('/live/late')).statusCode).toBe(404);
    router.get('/late', () => 'late');
    expect((await app.request('/live/late')).body).toBe('late');
  });

  it('checks a route joined to its mount prefix as a template registered whole', async () => {
    const orgs = new Router();
    orgs.get('/users/{id}', ({ id }) => id);
    const sameName = newApp().mount('/orgs/{id}', orgs);
    await expect(sameName.startup()).rejects.toThrow(
      'Route /orgs/{id}/users/{id}: parameter "id" appears twice',
    );
    const files = new Router();
    files.get('/', ({ request }) => request.pathParams.rest);
    files.delete('/danger', () => 'deleted everything');
    const catchAll = newApp().mount('/files/{rest*}', files);
    await expect(catchAll.startup()).rejects.toThrow(
      'Route /files/{rest*}/danger: a catch-all must be the last segment',
    );
    // After startup such a route is logged and left out: nothing reaches its handler.
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const late = new RestApplication({ logger });
    const later = new Router();
    late.mount('/files/{rest*}', later);
    await late.startup();
    later.get('/', ({ request }) => `file ${request.pathParams.rest}`);
    later.delete('/danger', () => 'deleted everything');
    expect((await late.request('/files/a/b')).body).toBe('file a/b');
    const deleted = await late.request('/files/photo.jpg', { method: 'DELETE' });
    expect(deleted.statusCode).toBe(405);
    expect(errors).toEqual([
      'Registration after startup: Route /files/{rest*}/danger: a catch-all must be the last segment',
    ]);
  });

  it('refuses mount loops', async () => {
    const app = newApp();
    const a = new Router();
    const b = new Router();
    a.mount('/b', b);
    expect(() => b.mount('/a', a)).toThrow(/loop/);
    const c = new Router();
    b.mount('/c', c);
    expect(() => c.mount('/a', a)).toThrow(/loop/);
    app.mount('/a', a);
    expect(() => a.mount('/self', a)).toThrow(/itself/);
    expect((await app.request('/a/b/c/x')).statusCode).toBe(404);
    c.get('/x', () => 'x');
    expect((await app.request('/a/b/c/x')).body).toBe('x');
  });
});

describe('the request target *', () => {
  it('reaches no route, a catch-all at the root included (RFC 9112 §3.2.4)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let ran = false;
    app.get('/{path*}', () => {
      ran = true;
      return 'a file';
    });
    app.delete('/{path*}', () => null);
    expect((await app.request('*', { method: 'OPTIONS' })).statusCode).toBe(204);
    for (const method of ['GET', 'DELETE'] as const) {
      const refused = await app.request('*', { method });
      expect(refused.statusCode).toBe(400);
      expect(String(refused.body)).toContain('The request target * is only for OPTIONS');
    }
    expect(ran).toBe(false);
    expect((await app.request('/x')).statusCode).toBe(200);
  });
});
