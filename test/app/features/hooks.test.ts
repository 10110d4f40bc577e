/**
 * onRequest / onResponse hooks (docs/hooks-and-scope.md): one test per rule.
 */
import { describe, expect, it } from 'vitest';
import { serve } from '../../../src/adapters/node/index.js';
import {
  HttpError,
  type LogFields,
  type Logger,
  Request,
  Response,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger(): Logger & { lines: Array<[string, string, LogFields | undefined]> } {
  const lines: Array<[string, string, LogFields | undefined]> = [];
  const write = (level: string) => (message: string, fields?: LogFields) => {
    lines.push([level, message, fields]);
  };
  return {
    lines,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}

describe('onRequest', () => {
  it('ends the request with a Response, a tuple, or a thrown HttpError', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.onRequest(({ headers }) => {
      const mode = headers.get('x-mode');
      if (mode === 'response') return new Response(418, 'teapot');
      if (mode === 'tuple') return [{ busy: true }, 503, { 'Retry-After': '5' }];
      if (mode === 'throw') throw new HttpError(429, 'Slow down');
      return undefined;
    });
    let handled = 0;
    app.get('/x', () => {
      handled++;
      return 'ok';
    });
    expect((await app.request('/x', { headers: { 'X-Mode': 'response' } })).statusCode).toBe(418);
    const tuple = await app.request('/x', { headers: { 'X-Mode': 'tuple' } });
    expect([tuple.statusCode, tuple.body, tuple.headers.get('retry-after')]).toEqual([
      503,
      '{"busy":true}',
      '5',
    ]);
    const thrown = await app.request('/x', { headers: { 'X-Mode': 'throw' } });
    expect(thrown.statusCode).toBe(429);
    expect(JSON.parse(thrown.body as string).error).toBe('Slow down');
    expect(handled).toBe(0);
    expect((await app.request('/x')).body).toBe('ok');
    expect(handled).toBe(1);
  });

  it('an async hook may end the request too, and one returning anything else is a 500', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.onRequest(async ({ headers }) => (headers.has('x-stop') ? ['stopped', 403] : undefined));
    app.get('/x', () => 'ok');
    // @ts-expect-error: a hook returns nothing, a Response or a tuple; plain JavaScript gets a 500.
    app.get('/odd', () => 'ok').onRequest(() => 42);
    expect((await app.request('/x', { headers: { 'X-Stop': '1' } })).statusCode).toBe(403);
    expect((await app.request('/x')).statusCode).toBe(200);
    expect((await app.request('/odd')).statusCode).toBe(500);
  });

  it('an array returned that is no tuple is a 500, logged with what makes it none', async () => {
    const logger = recordingLogger();
    const app = new RestApplication({ logger });
    // @ts-expect-error: the status of a tuple is a number.
    app.get('/string-status', () => 'x').onRequest(() => ['Back soon', '503']);
    // @ts-expect-error: a tuple's headers are an object.
    app.get('/string-headers', () => 'x').onRequest(() => ['Back soon', 503, 'Retry-After: 5']);
    app.get('/status-600', () => 'x').onRequest(() => ['Back soon', 600]);
    // @ts-expect-error: a Date is no headers object.
    app.get('/date-headers', () => 'x').onRequest(() => ['Back soon', 503, new Date(0)]);
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    const statuses: number[] = [];
    try {
      for (const path of ['/string-status', '/string-headers', '/status-600', '/date-headers']) {
        const response = await fetch(`${server.url}${path}`);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    } finally {
      await server.close();
    }
    expect(statuses).toEqual([500, 500, 500, 500]);
    const reasons = logger.lines
      .filter(([level]) => level === 'error')
      .map(([, , fields]) => (fields?.error as Error | undefined)?.message);
    expect(reasons).toEqual([
      expect.stringContaining(
        'returned an array that is no [body, status, headers?] tuple: its status must be an integer from 200 to 599, got "503" (a string)',
      ),
      expect.stringContaining(
        'returned an array that is no [body, status, headers?] tuple: its headers must be an object (plain, MultiValueHeaders or Headers), got "Retry-After: 5" (a string)',
      ),
      expect.stringContaining(
        'returned an array that is no [body, status, headers?] tuple: its status must be an integer from 200 to 599, got 600',
      ),
      expect.stringContaining(
        'tuple: its headers must be an object (plain, MultiValueHeaders or Headers), got a Date object',
      ),
    ]);
  });

  it('once requestTimeout has answered 503, no later hook of the application, a router or the route starts', async () => {
    const started: string[] = [];
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 50 });
    const handler = () => {
      started.push('handler');
      return 'charged';
    };
    app
      .onRequest(async ({ request }) => {
        if (request.path === '/app') await sleep(150);
      })
      .onRequest(({ request }) => {
        if (request.path === '/app') started.push('application hook 2');
      });
    app.post('/app', handler);
    app
      .post('/route', handler)
      .onRequest(async () => {
        await sleep(150);
      })
      .onRequest(() => {
        started.push('route hook 2');
      });
    const router = new Router()
      .onRequest(async () => {
        await sleep(150);
      })
      .onRequest(() => {
        started.push('router hook 2');
      });
    router.post('/x', handler).onRequest(() => {
      started.push('route hook under the router');
    });
    app.mount('/router', router);
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    const statuses: number[] = [];
    try {
      for (const path of ['/app', '/route', '/router/x']) {
        const response = await fetch(`${server.url}${path}`, { method: 'POST' });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      // The slow hooks finish while the server still runs.
      await sleep(200);
    } finally {
      await server.close();
    }
    expect(statuses).toEqual([503, 503, 503]);
    expect(started).toEqual([]);
  });

  it('app-level hooks run before 404, 405, 413 and 501, with pathParams when a route matched', async () => {
    const seen: Array<[string, Record<string, string>]> = [];
    const app = new RestApplication({ logger: silentLogger, bodyLimit: 4 });
    app.onRequest(({ request, pathParams }) => {
      // The request's own pathParams are the injected ones: the route's, or none.
      expect(request.pathParams).toBe(pathParams);
      seen.push([request.method, { ...pathParams }]);
      if (request.headers.has('x-stop')) return ['hooked', 299];
    });
    app.get('/users/{id}', ({ id }) => id);
    app.post('/users/{id}', ({ id }) => id);
    expect((await app.request('/nothing')).statusCode).toBe(404);
    expect((await app.request('/users/7', { method: 'DELETE' })).statusCode).toBe(405);
    expect((await app.request('/users/7', { method: 'BREW' })).statusCode).toBe(501);
    expect(
      (
        await app.request('/users/7', {
          method: 'POST',
          body: 'too long',
          headers: { 'Content-Length': '8' },
        })
      ).statusCode,
    ).toBe(413);
    expect((await app.request('/users/7')).body).toBe('7');
    // Parameters a gateway gave the request are replaced by the route's, or by none.
    const given = { id: 'from-gateway', proxy: 'nothing' };
    expect(
      (await app.execute(new Request({ method: 'GET', path: '/nothing', pathParams: given })))
        .statusCode,
    ).toBe(404);
    expect(
      (await app.execute(new Request({ method: 'GET', path: '/users/8', pathParams: given }))).body,
    ).toBe('8');
    expect(seen).toEqual([
      ['GET', {}],
      ['DELETE', {}],
      ['BREW', {}],
      ['POST', { id: '7' }],
      ['GET', { id: '7' }],
      ['GET', {}],
      ['GET', { id: '8' }],
    ]);
    // The hook answers before routing would have: no 404, 405 or 501.
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['DELETE', '/users/7'],
      ['BREW', '/users/7'],
    ] as const) {
      const response = await app.request(path, { method, headers: { 'X-Stop': '1' } });
      expect(response.statusCode).toBe(299);
    }
  });

  it('router and route hooks run after the application’s, before authorization', async () => {
    const order: string[] = [];
    const app = new RestApplication({ logger: silentLogger }).authorized(
      'user',
      () => {
        order.push('authorized');
        return { name: 'ada' };
      },
      { global: true },
    );
    app.onRequest(() => {
      order.push('app');
    });
    const outer = new Router().onRequest(() => {
      order.push('outer');
    });
    const inner = new Router().onRequest(() => {
      order.push('inner');
    });
    inner
      .get('/x/{id}', () => {
        order.push('handler');
        return 'ok';
      })
      .onRequest(({ id }) => {
        order.push(`route ${id}`);
      });
    outer.mount('/inner', inner);
    app.mount('/outer', outer);
    expect((await app.request('/outer/inner/x/1')).statusCode).toBe(200);
    expect(order).toEqual(['app', 'outer', 'inner', 'route 1', 'authorized', 'handler']);
  });

  it('a hook that ends the request spares the authorization hooks', async () => {
    let checked = 0;
    const api = new Router()
      .authorized('user', () => {
        checked++;
        return null;
      })
      .onRequest(() => ['maintenance', 503]);
    api.get('/x', () => 'x');
    const app = new RestApplication({ logger: silentLogger }).mount('/api', api);
    expect((await app.request('/api/x')).statusCode).toBe(503);
    expect(checked).toBe(0);
  });

  it('injects request-level names and dependencies built from them', async () => {
    const app = new RestApplication({ logger: silentLogger }).dependency(
      'tenant',
      ({ headers }) => headers.get('x-tenant') ?? 'none',
    );
    const tenants: string[] = [];
    app.onRequest(({ tenant, requestId, cookies, queryParams }) => {
      tenants.push(`${tenant}:${typeof requestId}:${typeof cookies}:${queryParams.q}`);
    });
    app.get('/', ({ tenant }) => tenant);
    const response = await app.request('/?q=1', { headers: { 'X-Tenant': 'acme' } });
    expect(response.body).toBe('acme');
    expect(tenants).toEqual(['acme:string:object:1']);
  });

  it('refuses a hook that injects a body at registration', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: hooks run before the body is read.
    expect(() => app.onRequest(({ jsonBody }) => jsonBody)).toThrow(SetupError);
    // @ts-expect-error: idem for onResponse.
    expect(() => app.onResponse(({ body }) => body)).toThrow(/request-level names only/);
  });

  it('refuses a hook that reaches a validator, resourceExists or authorization name', async () => {
    // The first three are compile errors too (test/types/hook-context.test.ts); plain
    // JavaScript, or a cast, still meets the startup check.
    const cases: Array<(app: RestApplication) => void> = [
      // @ts-expect-error: a function validator's name.
      (app) => app.validates('model', () => ({})).onRequest(({ model }) => void model),
      // @ts-expect-error: a resourceExists provider's name.
      (app) => app.resourceExists('thing', () => 1).onRequest(({ thing }) => void thing),
      // @ts-expect-error: an authorization hook's name.
      (app) => app.authorized('user', () => 1).onResponse(({ user }) => void user),
      (app) =>
        app.dependency('viaBody', ({ body }) => body).onRequest(({ viaBody }) => void viaBody),
    ];
    for (const register of cases) {
      const app = new RestApplication({ logger: silentLogger });
      register(app as RestApplication);
      app.get('/', () => 'ok');
      const failure = await app.startup().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SetupError);
      expect((failure as SetupError).code).toBe('INVALID_HOOK');
    }
  });

  it('an application hook refused after startup fails every request closed, logged', async () => {
    for (const kind of ['onRequest', 'onResponse'] as const) {
      const logger = recordingLogger();
      const app = new RestApplication({ logger }).authorized('user', () => 'ada');
      // A valid hook that must keep guarding: the API answers only to a known client.
      app.onRequest(({ headers }) =>
        headers.get('x-client') === 'known' ? undefined : new Response(403),
      );
      app.get('/', () => 'ok');
      await app.startup();
      expect((await app.request('/')).statusCode).toBe(403);
      // @ts-expect-error: an authorization hook's name (refused by the types as well).
      if (kind === 'onRequest') app.onRequest(({ user }) => void user);
      // @ts-expect-error: idem.
      else app.onResponse(({ user }) => void user);
      // Neither answered without the valid hook, nor passed on to the route.
      expect((await app.request('/')).statusCode, kind).toBe(500);
      expect((await app.request('/', { headers: { 'x-client': 'known' } })).statusCode).toBe(500);
      // Logged once, at registration, not again for each request it fails.
      expect(
        logger.lines.filter(([level]) => level === 'error').map(([, message]) => message),
      ).toEqual([expect.stringMatching(/^Registration after startup/)]);
    }
  });

  it('CORS preflights run the hooks but never authorization', async () => {
    const order: string[] = [];
    const api = new Router()
      .cors({ origin: 'https://app.example' })
      .authorized('user', () => {
        order.push('authorized');
        return null;
      })
      .onRequest(() => {
        order.push('router');
      });
    api.put('/doc', () => 'ok');
    const app = new RestApplication({ logger: silentLogger }).mount('/api', api);
    app.onRequest(() => {
      order.push('app');
    });
    app.onResponse(({ response }) => {
      order.push(`app out ${response.statusCode}`);
    });
    const preflight = await app.request('/api/doc', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(order).toEqual(['app', 'router', 'app out 204']);
  });
});

describe("an application hook's answer to a routed request", () => {
  function api() {
    const router = new Router()
      .cors({ origin: ['https://app.example'], credentials: true })
      .errorHandler(401, ({ error }) => [{ apiError: error.message }, 401]);
    router.get('/notes', () => ['note']);
    const app = new RestApplication({ logger: silentLogger }).mount('/api', router);
    app.onRequest(({ headers }) => {
      if (headers.get('x-maintenance') === 'on') return ['Back soon', 503, { 'Retry-After': '60' }];
      if (headers.get('authorization') === undefined) throw new HttpError(401, 'Sign in first');
    });
    return app;
  }
  const origin = { Origin: 'https://app.example' };

  it("carries the route's CORS headers and goes to its routers' error handlers", async () => {
    const app = api();
    const refused = await app.request('/api/notes', { headers: origin });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(JSON.parse(refused.body as string)).toEqual({ apiError: 'Sign in first' });
    const maintenance = await app.request('/api/notes', {
      headers: { ...origin, 'X-Maintenance': 'on' },
    });
    expect(maintenance.statusCode).toBe(503);
    expect(maintenance.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(maintenance.body).toBe('Back soon');
  });

  it("is logged and seen under the route's template, by the hooks as by the access log", async () => {
    const logger = recordingLogger();
    const app = new RestApplication({ logger, accessLog: true });
    const templates: Array<string | undefined> = [];
    app.onRequest(({ request }) => {
      templates.push(request.routeTemplate);
      return ['Back soon', 503];
    });
    app.get('/users/{id}', () => 'never');
    expect((await app.request('/users/7')).statusCode).toBe(503);
    expect((await app.request('/nowhere')).statusCode).toBe(503);
    expect(templates).toEqual(['/users/{id}', undefined]);
    const access = logger.lines.filter(([level]) => level === 'info').map(([, , fields]) => fields);
    expect(access.map((fields) => fields?.route)).toEqual(['/users/{id}', null]);
  });

  it('requests no route took keep the application’s answer', async () => {
    const app = api();
    const unrouted = await app.request('/elsewhere', { headers: origin });
    expect(unrouted.statusCode).toBe(401);
    expect(unrouted.headers.has('access-control-allow-origin')).toBe(false);
    expect(JSON.parse(unrouted.body as string)).toMatchObject({ error: 'Sign in first' });
  });

  it('a HEAD answered by a hook or by routing has no content, with the headers of a GET', async () => {
    const app = api();
    for (const [path, headers, status] of [
      ['/api/notes', { 'X-Maintenance': 'on' }, 503],
      ['/api/notes', {}, 401],
      ['/nowhere', { authorization: 'x' }, 404],
    ] as const) {
      const get = await app.request(path, { headers });
      const head = await app.request(path, { method: 'HEAD', headers });
      expect([head.statusCode, head.body]).toEqual([status, undefined]);
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    }
  });
});

describe('onResponse', () => {
  it('sees the final response and elapsedMs, after error handling', async () => {
    const seen: Array<[number, string | undefined, boolean]> = [];
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(404, () => ({ custom: true }));
    app.onResponse(({ response, elapsedMs }) => {
      seen.push([
        response.statusCode,
        response.headers.get('content-type'),
        typeof elapsedMs === 'number' && elapsedMs >= 0,
      ]);
      response.headers.set('X-Seen', 'yes');
    });
    app.get('/x', () => ({ a: 1 }));
    const ok = await app.request('/x');
    const missing = await app.request('/missing');
    expect(missing.body).toBe('{"custom":true}');
    expect([ok.headers.get('x-seen'), missing.headers.get('x-seen')]).toEqual(['yes', 'yes']);
    expect(seen).toEqual([
      [200, 'application/json', true],
      [404, 'application/json', true],
    ]);
  });

  it('gives each hook elapsedMs counted to its own start, the slower hooks before it included', async () => {
    const elapsed: number[] = [];
    const logged: unknown[] = [];
    const logger = {
      ...silentLogger,
      info: (_message: string, fields?: Record<string, unknown>) =>
        void logged.push(fields?.durationMs),
    };
    const app = new RestApplication({ logger, accessLog: true });
    app.onResponse(({ elapsedMs }) => void elapsed.push(elapsedMs));
    app
      .get('/audited', () => 'ok')
      .onResponse(async () => {
        // An audit write that takes its time: the outer hooks and the access log count it.
        await new Promise((resolve) => setTimeout(resolve, 120));
      });
    await app.request('/audited');
    expect(elapsed).toHaveLength(1);
    expect(elapsed[0]).toBeGreaterThanOrEqual(100);
    expect(logged).toHaveLength(1);
    expect(logged[0] as number).toBeGreaterThanOrEqual(100);
  });

  it('is bounded by requestTimeout: a hook that never settles fails, the response goes out', async () => {
    const logger = recordingLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 });
    const after: string[] = [];
    app.onResponse(async ({ response }) => {
      response.headers.set('X-Stuck', 'yes');
      await new Promise(() => undefined);
    });
    app.onResponse(({ response }) => {
      after.push(String(response.statusCode));
      response.headers.set('X-After', 'ran');
    });
    app.get('/x', () => 'ok');
    const started = performance.now();
    const response = await app.request('/x');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ok');
    // The stuck hook's change is undone, as a failed hook's; the next hook still runs.
    expect(response.headers.get('x-stuck')).toBeUndefined();
    expect(response.headers.get('x-after')).toBe('ran');
    expect(after).toEqual(['200']);
    const failure = logger.lines.find(([, message]) =>
      message.startsWith('onResponse hook failed'),
    );
    expect(String((failure?.[2]?.error as Error | undefined)?.message)).toMatch(
      /did not finish within requestTimeout \(50 ms\)/,
    );
  });

  it('may change headers, not the status', async () => {
    const logger = recordingLogger();
    const app = new RestApplication({ logger });
    app.onResponse(({ response }) => {
      response.headers.set('Cache-Control', 'no-store');
      response.statusCode = 500;
    });
    app.get('/x', () => 'ok');
    const response = await app.request('/x');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ok');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(logger.lines.some(([level]) => level === 'warn')).toBe(true);
  });

  it('one that throws is logged and the response goes out as it was', async () => {
    const logger = recordingLogger();
    const app = new RestApplication({ logger });
    app.onResponse(({ response }) => {
      response.headers.set('X-Later', 'kept');
    });
    app.onResponse(async ({ response }) => {
      response.headers.set('X-Half-Done', 'yes');
      throw new Error('hook broke');
    });
    app.onResponse(({ response }) => {
      response.headers.set('X-Before', 'kept');
      throw new Error('sync break');
    });
    app.get('/x', () => 'ok');
    const response = await app.request('/x');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ok');
    expect(response.headers.get('x-later')).toBe('kept');
    expect(response.headers.has('x-half-done')).toBe(false);
    expect(response.headers.has('x-before')).toBe(false);
    const errors = logger.lines.filter(([level]) => level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]?.[2]?.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('runs outermost first for onRequest and in reverse for onResponse', async () => {
    const order: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    const router = new Router();
    app.onRequest(() => void order.push('app in'));
    app.onResponse(() => void order.push('app out'));
    router.onRequest(() => void order.push('router in'));
    router.onResponse(() => void order.push('router out'));
    router
      .get('/x', () => 'x')
      .onRequest(() => void order.push('route in'))
      .onResponse(() => void order.push('route out'));
    app.mount('/r', router);
    await app.request('/r/x');
    expect(order).toEqual([
      'app in',
      'router in',
      'route in',
      'route out',
      'router out',
      'app out',
    ]);
  });

  it('app-level hooks see 404, 405, 406 and 501; router hooks only their routes', async () => {
    const statuses: number[] = [];
    const routerStatuses: number[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.onResponse(({ response }) => void statuses.push(response.statusCode));
    const router = new Router().onResponse(
      ({ response }) => void routerStatuses.push(response.statusCode),
    );
    router.get('/x', () => ({ a: 1 }));
    app.mount('/r', router);
    await app.request('/nope');
    await app.request('/r/x', { method: 'POST' });
    await app.request('/r/x', { headers: { Accept: 'image/png' } });
    await app.request('/r/x', { method: 'BREW' });
    await app.request('/r/x');
    expect(statuses).toEqual([404, 405, 406, 501, 200]);
    expect(routerStatuses).toEqual([406, 200]);
  });

  it('runs exactly once when an error handler answers a thrown error', async () => {
    let runs = 0;
    const app = new RestApplication({ logger: silentLogger });
    app.onResponse(() => void runs++);
    app.get('/boom', () => {
      throw new Error('boom');
    });
    app.get('/async', async () => {
      throw new HttpError(409);
    });
    expect((await app.request('/boom')).statusCode).toBe(500);
    expect((await app.request('/async')).statusCode).toBe(409);
    expect(runs).toBe(2);
  });

  it('keeps a route without hooks synchronous', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/plain', () => 'ok');
    app.get('/hooked', () => 'ok').onResponse(() => undefined);
    app.startupSync();
    expect(app.routingTable().onResponse).toBeUndefined();
    const plain = app.routingTable().matcher.match('/plain');
    expect(plain !== undefined && typeof plain === 'object' && 'leaf' in plain).toBe(true);
    if (plain !== undefined && typeof plain === 'object' && 'leaf' in plain) {
      expect(plain.leaf.byMethod.get('GET')?.value.hooks).toBeUndefined();
    }
  });
});
