/**
 * Scope (docs/hooks-and-scope.md): what routers register applies to every route under them and
 * is visible there only; deny by default; the access log.
 */
import { describe, expect, it } from 'vitest';
import { serve } from '../../../src/adapters/node/index.js';
import {
  HttpError,
  type LogFields,
  type MultiValueHeaders,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

const NOTES = new Map([['1', { id: '1', text: 'secret' }]]);

describe('router scope', () => {
  it('a router-scoped authorized hook guards GET /notes/{id} even when the handler injects only note', async () => {
    // The trap of issue 17: with an app-level hook, a handler that injects `note` and not
    // `user` answered 200 to a request without credentials.
    const notes = new Router()
      .authorized('user', ({ headers }) =>
        headers.get('authorization') === 'Bearer ada' ? 'ada' : null,
      )
      .dependency('note', ({ request }) => NOTES.get(request.path.split('/').pop() ?? ''));
    notes.get('/{id}', ({ note }) => note ?? null);
    const app = new RestApplication({
      logger: silentLogger,
      wwwAuthenticate: 'Bearer realm="notes"',
    }).mount('/notes', notes);
    const anonymous = await app.request('/notes/1');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="notes"');
    expect(anonymous.body).not.toContain('secret');
    const ada = await app.request('/notes/1', { headers: { Authorization: 'Bearer ada' } });
    expect(ada.statusCode).toBe(200);
    expect(ada.headers.getAll('vary').join(', ')).toContain('Authorization');
  });

  it('applies to the routes of nested routers, and not to the application’s other routes', async () => {
    const admin = new Router().forbidden(
      'notAdmin',
      ({ headers }) => headers.get('x-role') !== 'admin',
    );
    const reports = new Router();
    reports.get('/daily', () => 'report');
    admin.mount('/reports', reports);
    const app = new RestApplication({ logger: silentLogger }).mount('/admin', admin);
    app.get('/health', () => 'ok');
    expect((await app.request('/admin/reports/daily')).statusCode).toBe(403);
    expect(
      (await app.request('/admin/reports/daily', { headers: { 'X-Role': 'admin' } })).statusCode,
    ).toBe(200);
    expect((await app.request('/health')).statusCode).toBe(200);
  });

  it('names are visible under their router only; siblings may register the same name', async () => {
    const a = new Router().dependency('label', () => 'from a');
    a.get('/', ({ label }) => label);
    const b = new Router().dependency('label', () => 'from b', { scope: 'session' });
    b.get('/', ({ label }) => label);
    const app = new RestApplication({ logger: silentLogger }).mount('/a', a).mount('/b', b);
    expect((await app.request('/a')).body).toBe('from a');
    expect((await app.request('/b')).body).toBe('from b');

    const outside = new RestApplication({ logger: silentLogger }).mount('/a', a);
    // biome-ignore lint/suspicious/noExplicitAny: the name is deliberately not typed here.
    (outside as RestApplication<any>).get('/other', ({ label }: { label: string }) => label);
    const failure = await outside.startup().catch((error: unknown) => error);
    expect((failure as SetupError).code).toBe('UNKNOWN_DEPENDENCY');
    expect((failure as Error).message).toContain('/other');
    // The name exists, on a router this route is not under: the message says where names are seen.
    expect((failure as Error).message).toContain(
      "a router's dependencies are seen by its own routes only",
    );
  });

  it('a router may not register a name the application or an outer router has', async () => {
    const inner = new Router().dependency('db', () => 'inner');
    inner.get('/', ({ db }) => db);
    const app = new RestApplication({ logger: silentLogger }).dependency('db', () => 'app');
    app.mount('/inner', inner);
    const failure = (await app.startup().catch((error: unknown) => error)) as SetupError;
    expect(failure.code).toBe('NAME_CLASH');
    expect(failure.message).toContain('the router mounted at /inner');
    expect(failure.message).toContain('the application');

    const outer = new Router().dependency('db', () => 'outer');
    const nested = new Router().dependency('db', () => 'nested');
    nested.get('/', ({ db }) => db);
    outer.mount('/n', nested);
    const app2 = new RestApplication({ logger: silentLogger }).mount('/o', outer);
    const clash = (await app2.startup().catch((error: unknown) => error)) as SetupError;
    expect(clash.message).toContain('the router mounted at /o/n');
    expect(clash.message).toContain('the router mounted at /o');
  });

  it('the innermost error handler for a status wins', async () => {
    const inner = new Router().errorHandler(404, () => 'inner 404');
    inner.get('/missing', () => {
      throw new HttpError(404);
    });
    inner.get('/gone', () => {
      throw new Error('x');
    });
    const outer = new Router().errorHandler(() => 'outer default');
    outer.mount('/inner', inner);
    outer.get('/teapot', () => {
      throw new (class extends Error {})();
    });
    const app = new RestApplication({ logger: silentLogger })
      .errorHandler(404, () => 'app 404')
      .mount('/outer', outer);
    const text = { headers: { Accept: 'text/plain' } };
    expect((await app.request('/outer/inner/missing', text)).body).toBe('inner 404');
    expect((await app.request('/outer/nothing-here', text)).body).toBe('app 404');
    expect((await app.request('/outer/inner/gone', text)).body).toBe('outer default');
    expect((await app.request('/outer/teapot', text)).body).toBe('outer default');
  });

  it("a router's error handler injects its mount path's parameters, itself or through a dependency; a parameter of some routes only is refused, saying so", async () => {
    const items = new Router<{ org: string }>()
      .dependency('tenant', ({ org }) => `tenant-${org}`)
      .errorHandler(({ error, org, tenant }) => [{ org, tenant, message: error.message }, 409]);
    items.get('/items/{id}', () => {
      throw new HttpError(409, 'conflict');
    });
    const outer = new Router().mount('/teams/{team}', items);
    const app = new RestApplication({ logger: silentLogger }).mount('/orgs/{org}', outer);
    await app.startup();
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    try {
      const response = await fetch(`${server.url}/orgs/acme/teams/red/items/1`);
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        org: 'acme',
        tenant: 'tenant-acme',
        message: 'conflict',
      });
    } finally {
      await server.close();
    }

    const some = new Router<{ id: string }>().errorHandler(409, ({ id }) => [{ id }, 409]);
    some.get('/items/{id}', () => 'item');
    const refused = new RestApplication({ logger: silentLogger }).mount('/orgs/{org}', some);
    const error = await refused.startup().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).message).toContain('"id" is a path parameter of some routes only');
    expect((error as SetupError).message).not.toContain('app.dependency');
  });

  it('router CORS and CSP apply to every route under it', async () => {
    const api = new Router()
      .cors({ origin: 'https://app.example' })
      .csp({ directives: { defaultSrc: ["'self'"] } });
    api.get('/x', () => 'x');
    const app = new RestApplication({ logger: silentLogger }).mount('/api', api);
    app.get('/y', () => 'y');
    const x = await app.request('/api/x', { headers: { Origin: 'https://app.example' } });
    expect(x.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(x.headers.get('content-security-policy')).toBe("default-src 'self'");
    const y = await app.request('/y', { headers: { Origin: 'https://app.example' } });
    expect(y.headers.has('access-control-allow-origin')).toBe(false);
  });

  it('route.public() and router.public() exempt from every authorization hook in scope', async () => {
    const assets = new Router().public();
    assets.get('/logo', () => 'logo');
    const api = new Router().authorized('user', () => null);
    api.get('/health', () => 'ok').public();
    api.get('/private', () => 'secret');
    const app = new RestApplication({ logger: silentLogger })
      .forbidden('closed', () => true, { global: true })
      .mount('/assets', assets)
      .mount('/api', api);
    expect((await app.request('/assets/logo')).statusCode).toBe(200);
    expect((await app.request('/api/health')).statusCode).toBe(200);
    expect((await app.request('/api/private')).statusCode).toBe(401);
  });

  it('a public() router with an authorization hook of its own is a startup error, its routes closed', async () => {
    const reached: string[] = [];
    const admin = new Router().public().authorized('admin', () => null);
    admin.get('/secret', () => void reached.push('/admin/secret'));
    const app = new RestApplication({ logger: silentLogger }).mount('/admin', admin);
    app.get('/health', () => 'ok');
    await expect(app.startup()).rejects.toThrow(
      'the router mounted at /admin is .public() and registers the authorization hook "admin", which then guards none of its routes',
    );
    expect((await app.request('/admin/secret')).statusCode).toBe(500);
    expect(reached).toEqual([]);
    // The other order of the calls is the same mistake.
    const late = new Router().authorized('user', () => null).public();
    late.get('/x', () => 'x');
    const other = new RestApplication({ logger: silentLogger }).mount('/late', late);
    await expect(other.startup()).rejects.toThrow(SetupError);
  });

  it('an app-level hook without global keeps guarding only the routes that inject it', async () => {
    const app = new RestApplication({ logger: silentLogger }).authorized('user', () => null);
    app.get('/me', ({ user }) => user);
    app.get('/open', () => 'open');
    expect((await app.request('/me')).statusCode).toBe(401);
    expect((await app.request('/open')).statusCode).toBe(200);
  });
});

describe("authorization: 'required'", () => {
  it('startup rejects, listing every unguarded route that is not public', async () => {
    const api = new Router().authorized('user', () => 'u');
    api.get('/notes/{id}', () => 'note');
    const app = new RestApplication({ logger: silentLogger, authorization: 'required' })
      .authorized('admin', () => 'a')
      .mount('/api', api);
    app.get('/health', () => 'ok');
    app.get('/admin', ({ admin }) => admin);
    app.get('/docs', () => 'docs');
    app.post('/docs', () => 'docs');
    const failure = (await app.startup().catch((error: unknown) => error)) as SetupError;
    expect(failure).toBeInstanceOf(SetupError);
    expect(failure.code).toBe('UNGUARDED_ROUTE');
    expect(failure.message).toContain('GET /health');
    expect(failure.message).toContain('GET /docs, POST /docs');
    expect(failure.message).not.toContain('/api/notes');
    expect(failure.message).not.toContain('GET /admin');
    expect((await app.request('/health')).statusCode).toBe(500);
  });

  it('starts when every route is guarded or public', async () => {
    const app = new RestApplication({ logger: silentLogger, authorization: 'required' }).authorized(
      'user',
      () => 'u',
      { global: true },
    );
    app.get('/me', ({ user }) => user);
    app.get('/health', () => 'ok').public();
    await expect(app.startup()).resolves.toBeUndefined();
  });

  it('a route added after startup that no check guards answers 500, never its handler, and is logged once', async () => {
    const reached: string[] = [];
    const errors: string[] = [];
    const loose = new Router();
    loose.get('/a', () => 'a').public();
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const app = new RestApplication({ logger, authorization: 'required' })
      .authorized('user', ({ headers }) => headers.get('authorization'))
      .mount('/loose', loose);
    await app.startup();
    loose.get('/b', () => void reached.push('/loose/b'));
    app.get('/late', () => void reached.push('/late'));
    app.get('/me', ({ user }) => user);
    app.get('/open', () => 'open').public();
    expect((await app.request('/loose/b')).statusCode).toBe(500);
    expect((await app.request('/late')).statusCode).toBe(500);
    expect(reached).toEqual([]);
    expect((await app.request('/me')).statusCode).toBe(401);
    expect((await app.request('/me', { headers: { authorization: 'ann' } })).body).toBe('ann');
    expect((await app.request('/open')).statusCode).toBe(200);
    expect((await app.request('/loose/a')).statusCode).toBe(200);
    await app.request('/late');
    // The operator learns why those routes answer 500: one line each, not one per request.
    const late = errors.filter((message) => message.startsWith('Registration after startup'));
    expect(late.sort()).toEqual([
      "Registration after startup: GET /late: authorization: 'required', but no authorization hook guards it",
      "Registration after startup: GET /loose/b: authorization: 'required', but no authorization hook guards it",
    ]);
  });

  it('refuses an unknown value', () => {
    expect(() => new RestApplication({ authorization: 'yes' as unknown as 'required' })).toThrow(
      SetupError,
    );
  });
});

describe('registrations after startup', () => {
  it("a name registered after startup never replaces a router's authorization check: its routes answer 500", async () => {
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const reached: string[] = [];
    const admin = new Router().authorized('user', ({ headers }) =>
      headers.get('authorization') === 'Bearer admin' ? { role: 'admin' } : null,
    );
    admin.get('/secret', () => {
      reached.push('secret');
      return { secret: 'admin only' };
    });
    const app = new RestApplication({ logger }).mount('/admin', admin);
    app.get('/home', () => 'home');
    await app.startup();
    expect((await app.request('/admin/secret')).statusCode).toBe(401);
    app.dependency('user', () => ({ role: 'guest' }));
    expect((await app.request('/admin/secret')).statusCode).toBe(500);
    const admitted = await app.request('/admin/secret', {
      headers: { authorization: 'Bearer admin' },
    });
    expect(admitted.statusCode).toBe(500);
    expect(reached).toEqual([]);
    expect((await app.request('/home')).statusCode).toBe(200);
    const clash = errors.filter(
      (message) => message.includes('NAME_CLASH') || message.includes('"user" is registered'),
    );
    expect(clash[0]).toMatch(
      /^Registration after startup: "user" is registered by the router mounted at \/admin/,
    );
    // Logged once, however many times the table is rebuilt.
    app.get('/later', () => 'later');
    await app.request('/later');
    expect(
      errors.filter((message) => message.startsWith('Registration after startup')),
    ).toHaveLength(1);
    // Nor again for each request the routes it concerns fail.
    expect(errors).toHaveLength(1);
  });

  it("a router mounted after startup whose authorization name the application already has answers 500, not the application's check", async () => {
    const app = new RestApplication({ logger: silentLogger }).authorized('user', ({ headers }) =>
      headers.get('authorization'),
    );
    app.get('/me', ({ user }) => user);
    await app.startup();
    const admin = new Router().authorized('user', ({ headers }) =>
      headers.get('authorization') === 'Bearer admin' ? 'admin' : null,
    );
    admin.get('/secret', () => 'admin only');
    const inner = new Router();
    inner.get('/deeper', () => 'admin only too');
    admin.mount('/inner', inner);
    app.mount('/admin', admin);
    const headers = { authorization: 'Bearer someone' };
    expect((await app.request('/admin/secret', { headers })).statusCode).toBe(500);
    expect((await app.request('/admin/inner/deeper', { headers })).statusCode).toBe(500);
    expect((await app.request('/me', { headers })).body).toBe('Bearer someone');
  });

  it('a duplicate route registered after startup keeps the first and is logged', async () => {
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const app = new RestApplication({ logger });
    app.get('/a', () => 'first');
    await app.startup();
    app.get('/a', () => 'second');
    expect((await app.request('/a')).body).toBe('first');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Registration after startup: .*GET \/a/);
  });
});

describe('accessLog', () => {
  it('writes one info line per request with method, path, route, status, bytes, duration and id', async () => {
    const lines: Array<[string, LogFields | undefined]> = [];
    const logger = {
      debug: () => undefined,
      info: (message: string, fields?: LogFields) => void lines.push([message, fields]),
      warn: () => undefined,
      error: () => undefined,
    };
    const app = new RestApplication({ logger, accessLog: true });
    app.get('/users/{id}', ({ id }) => ({ id }));
    const response = await app.request('/users/42', { headers: { 'X-Request-ID': 'req-1' } });
    await app.request('/nowhere');
    expect(lines).toHaveLength(2);
    const [message, fields] = lines[0] as [string, LogFields];
    expect(message).toBe('GET /users/42 200');
    expect(fields).toMatchObject({
      method: 'GET',
      path: '/users/42',
      route: '/users/{id}',
      status: 200,
      bytes: Number(response.headers.get('content-length')),
      requestId: 'req-1',
    });
    expect(typeof fields.durationMs).toBe('number');
    expect(lines[1]?.[1]).toMatchObject({ status: 404, route: null });
  });

  it('is off by default', async () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, info: (message: string) => void lines.push(message) };
    const app = new RestApplication({ logger });
    app.get('/', () => 'ok');
    await app.request('/');
    expect(lines).toEqual([]);
  });
});

describe('a public router does not open the guarded routers inside it', () => {
  const guard = ({ headers }: { headers: MultiValueHeaders }) =>
    headers.get('x-user') === 'ok' ? { id: 'u' } : null;
  const asUser = { headers: { 'x-user': 'ok' } };

  it('a guarded router inside a public router, or a public application, guards its routes', async () => {
    for (const required of [false, true]) {
      const inner = new Router().authorized('user', guard);
      inner.get('/secret', () => 'secret');
      const outer = new Router().public();
      outer.get('/open', () => 'open');
      outer.mount('/inner', inner);
      const app = new RestApplication({
        logger: silentLogger,
        ...(required ? { authorization: 'required' as const } : {}),
      }).mount('/pub', outer);
      await app.startup();
      expect((await app.request('/pub/inner/secret')).statusCode).toBe(401);
      expect((await app.request('/pub/inner/secret', asUser)).body).toBe('secret');
      // What public() exempts stays open.
      expect((await app.request('/pub/open')).body).toBe('open');
    }
    const inner = new Router().authorized('user', guard);
    inner.get('/secret', () => 'secret');
    const app = new RestApplication({ logger: silentLogger }).public().mount('/admin', inner);
    expect((await app.request('/admin/secret')).statusCode).toBe(401);
    expect((await app.request('/admin/secret', asUser)).body).toBe('secret');
  });

  it('a duplicate mounted after startup never opens a guarded route in service', async () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void lines.push(message) };
    // A router mounted twice at one path, the second time outside the guard: the guarded stays.
    const shared = new Router();
    shared.get('/data', () => 'data');
    const guarded = new Router().authorized('user', guard).mount('/s', shared);
    const app = new RestApplication({ logger }).mount('/g', guarded);
    await app.startup();
    expect((await app.request('/g/s/data')).statusCode).toBe(401);
    app.mount('/g/s', shared);
    expect((await app.request('/g/s/data')).statusCode).toBe(401);
    expect((await app.request('/g/s/data', asUser)).body).toBe('data');
    // A route made before the admin route, mounted after startup under a weaker guard: the two
    // are guarded differently, so neither answers.
    const plugin = new Router();
    plugin.get('/admin/secret', () => 'open copy');
    const admin = new Router().forbidden(
      'notAdmin',
      ({ headers }) => headers.get('x-admin') !== 'yes',
    );
    admin.get('/secret', () => 'secret');
    const second = new RestApplication({ logger })
      .authorized('user', guard, { global: true })
      .mount('/admin', admin);
    await second.startup();
    expect((await second.request('/admin/secret', asUser)).statusCode).toBe(403);
    second.mount('/', plugin);
    expect((await second.request('/admin/secret', asUser)).statusCode).toBe(500);
    expect(lines.filter((line) => line.includes('registered twice'))).toHaveLength(2);
  });
});
