import { transformSync } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { injectedNames } from '../../../src/app/inject/handler-parameters.js';
import {
  HttpError,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

function newApp() {
  return new RestApplication({ logger: silentLogger });
}

/** An application typed to accept any name, for tests of what the types would refuse. */
function looseApp() {
  return new RestApplication<Record<string, unknown>>({ logger: silentLogger });
}

describe('name discovery', () => {
  it('reads destructured names from every function form', () => {
    expect(injectedNames(({ a, b }: { a: 1; b: 2 }) => [a, b], 'f')).toEqual(['a', 'b']);
    expect(injectedNames(async ({ a }: { a: 1 }) => a, 'f')).toEqual(['a']);
    expect(
      injectedNames(function named({ x, y: renamed }: { x: 1; y: 2 }) {
        return [x, renamed];
      }, 'f'),
    ).toEqual(['x', 'y']);
    const object = {
      method({ m }: { m: 1 }) {
        return m;
      },
    };
    expect(injectedNames(object.method, 'f')).toEqual(['m']);
    expect(injectedNames(() => 1, 'f')).toEqual([]);
  });

  it('skips defaults, nested patterns, strings and comments', () => {
    const fn = ({
      a = '}{,',
      b: { c } = { c: [1, 2] },
      // d: comment
      e = (() => ({ z: 1 }))(),
      'quoted-key': q,
    }: {
      a?: string;
      b?: { c: number[] };
      e?: { z: number };
      'quoted-key'?: string;
    }) => [a, c, e, q];
    expect(injectedNames(fn, 'f')).toEqual(['a', 'b', 'e', 'quoted-key']);
  });

  it('skips regular expressions in defaults, whatever punctuation they hold', () => {
    const fn = ({
      a = /a,b/,
      b = /[},]/g,
      c = /\/,/,
      d = 6 / 3,
      e = (text: string) => /},{/.test(text) || text.length / 2 > 1,
      f,
    }: {
      a?: RegExp;
      b?: RegExp;
      c?: RegExp;
      d?: number;
      e?: (text: string) => boolean;
      f?: string;
    }) => [a, b, c, d, e, f];
    expect(injectedNames(fn, 'f')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('tells a regular expression from a division after keywords and increments', () => {
    const read = (params: string) => injectedNames(new Function(`return (${params}) => 0`)(), 'f');
    expect(read('{ a = typeof /}/, b }')).toEqual(['a', 'b']);
    expect(read('{ a = void /,}/, b }')).toEqual(['a', 'b']);
    expect(read('{ a = 0, c = a++ / 2, b }')).toEqual(['a', 'c', 'b']);
    expect(read('{ a = 0, c = a-- / 2 / 1, b }')).toEqual(['a', 'c', 'b']);
    expect(read('{ a = 1, c = a / 2, d = 6 / 3 / 2, b }')).toEqual(['a', 'c', 'd', 'b']);
    // Text that merely mentions native code is not a native function.
    expect(read("{ a = '[native code]', b }")).toEqual(['a', 'b']);
    expect(() => injectedNames(Math.max, 'f')).toThrow(/native or bound function/);
    expect(() => injectedNames(read.bind(null), 'f')).toThrow(/native or bound function/);
  });

  it('reads the names around defaults mixing divisions and regular expressions (property)', () => {
    const operand = fc.constantFrom(
      'typeof /}/',
      'void /,{/',
      'first++ / 2',
      'first-- / 4',
      '6 / 3',
      '(1) / 2',
      '[1][0] / 2',
      '/[/,}]/.source',
      'first / first',
    );
    fc.assert(
      fc.property(fc.array(operand, { minLength: 1, maxLength: 4 }), (operands) => {
        const expression = operands.join(' + ');
        const fn = new Function(`return ({ first = 1, middle = ${expression}, last }) => last`)();
        expect(injectedNames(fn, 'f')).toEqual(['first', 'middle', 'last']);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the names around any regular expression default (property)', () => {
    // Pattern pieces: punctuation of patterns and calls, escapes, and classes holding a slash.
    const piece = fc.constantFrom(
      ',',
      '}',
      '{',
      '\\)',
      '\\(',
      '(a)',
      "'",
      '"',
      '`',
      'a',
      ' ',
      '\\/',
      '\\]',
      '[/]',
      '[},)]',
      '\\\\',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', 'g', 'gi'),
        (pieces, flags) => {
          const pattern = pieces.join('');
          new RegExp(pattern, flags); // a valid pattern, or the generator is wrong
          const fn = new Function(`return ({ first = /${pattern}/${flags}, second }) => second`)();
          expect(injectedNames(fn, 'f')).toEqual(['first', 'second']);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a plain parameter, a rest element and a computed key', () => {
    expect(() => injectedNames((context: unknown) => context, 'Handler of GET /')).toThrow(
      /must destructure the names it needs/,
    );
    expect(() => injectedNames((c: unknown) => c, 'f')).toThrow(SetupError);
    expect(() => injectedNames(({ a, ...rest }: Record<string, 1>) => [a, rest], 'f')).toThrow(
      /rest element/,
    );
    const key = 'k';
    expect(() => injectedNames(({ [key]: v }: Record<string, 1>) => v, 'f')).toThrow(
      /computed key/,
    );
  });

  it('reads names spelt with escapes, as a bundler writes every non-ASCII letter', async () => {
    const escaped = new Function(
      'return ({ pr\\u00E9nom, \\u{65E5}\\u{672C}: renamed, caf\\u00e9 = 1 }) => [pr\\u00E9nom, renamed]',
    )();
    expect(injectedNames(escaped, 'f')).toEqual(['prénom', '日本', 'café']);
    // A key outside the Basic Multilingual Plane is quoted, with an escape JSON does not have.
    const quoted = new Function(
      'return ({ "\\u{20BB7}": a, \'it\\x27s\': b, "tab\\tbed": c }) => [a, b, c]',
    )();
    expect(injectedNames(quoted, 'f')).toEqual(['𠮷', "it's", 'tab\tbed']);
    // This file is compiled by esbuild, which writes `prénom` below as `pr\u00E9nom`.
    const app = new RestApplication({ logger: silentLogger }).dependency('café', () => 'noir');
    app.get('/users/{prénom}', ({ prénom, café }) => ({ prénom, café }));
    const response = await app.request('/users/Zo%C3%A9');
    expect(JSON.parse(String(response.body))).toEqual({ prénom: 'Zoé', café: 'noir' });
  });

  it('keeps working after the handler is minified and bundled', async () => {
    const source = `
      export function register(app) {
        app.dependency('greeting', ({ queryParams }) => 'hello ' + (queryParams.name ?? 'world'));
        app.get('/users/{userId}', async ({ userId, greeting, request: incoming }) => {
          return { userId, greeting, method: incoming.method };
        });
      }`;
    const { code } = transformSync(source, { minify: true, format: 'esm', target: 'es2022' });
    // The minifier renamed every local; the destructured keys are all that is left of the names.
    expect(code).not.toContain('incoming');
    expect(code).toContain('userId:');
    const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    const module = (await import(url)) as { register(app: RestApplication): void };
    const app = newApp();
    module.register(app);
    const response = await app.request('/users/42?name=ada');
    expect(JSON.parse(response.body as string)).toEqual({
      userId: '42',
      greeting: 'hello ada',
      method: 'GET',
    });
  });
});

describe('dependency injection', () => {
  it('resolves only the names a handler asks for, transitively, each once per request', async () => {
    const calls: string[] = [];
    const app = newApp()
      .dependency('a', () => {
        calls.push('a');
        return 1;
      })
      .dependency('b', ({ a }) => {
        calls.push('b');
        return a + 1;
      })
      .dependency('c', ({ a, b }) => {
        calls.push('c');
        return a + b;
      })
      .dependency('unused', () => {
        calls.push('unused');
        return 0;
      });
    app.get('/', ({ b, c }) => ({ b, c }));
    expect(JSON.parse((await app.request('/')).body as string)).toEqual({ b: 2, c: 3 });
    expect(calls.sort()).toEqual(['a', 'b', 'c']);
    calls.length = 0;
    await app.request('/');
    expect(calls.sort()).toEqual(['a', 'b', 'c']);
  });

  it('computes session dependencies once for the life of the app', async () => {
    let count = 0;
    const app = newApp().dependency(
      'counter',
      async () => {
        count++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { created: count };
      },
      { scope: 'session' },
    );
    app.get('/', ({ counter }) => counter);
    await Promise.all([app.request('/'), app.request('/'), app.request('/')]);
    await app.request('/');
    expect(count).toBe(1);
  });

  it('keeps request values apart under concurrency', async () => {
    const app = newApp().dependency('who', async ({ queryParams }) => {
      await new Promise((resolve) => setTimeout(resolve, Number(queryParams.delay)));
      return queryParams.name;
    });
    app.get('/', async ({ who, queryParams }) => {
      await new Promise((resolve) => setTimeout(resolve, Number(queryParams.delay)));
      return { who };
    });
    const names = Array.from({ length: 20 }, (_, i) => `user${i}`);
    const responses = await Promise.all(
      names.map((name, i) => app.request(`/?name=${name}&delay=${(i * 7) % 11}`)),
    );
    responses.forEach((response, i) => {
      expect(JSON.parse(response.body as string)).toEqual({ who: names[i] });
    });
  });

  it('takes the name from the function in the one-argument form', async () => {
    const app = looseApp();
    app.dependency(function currentUser() {
      return 'ada';
    });
    app.get('/', ({ currentUser }) => currentUser);
    expect((await app.request('/')).body).toBe('ada');
  });

  it('injects path parameters into providers', async () => {
    const app = newApp().dependency('doubled', ({ pathParams }) => Number(pathParams.n) * 2);
    app.get('/double/{n}', ({ doubled, n }) => ({ doubled, n }));
    expect(JSON.parse((await app.request('/double/21')).body as string)).toEqual({
      doubled: 42,
      n: '21',
    });
  });

  it('gives handlers in mounted routers the application dependencies', async () => {
    const app = newApp().dependency('db', () => 'the db', { scope: 'session' });
    const router = new Router<{ db: string }>();
    router.get('/x', ({ db }) => db);
    app.mount('/r', router);
    expect((await app.request('/r/x')).body).toBe('the db');
  });

  it('offers every built-in name, the Lambda ones as undefined outside Lambda', async () => {
    const app = newApp();
    app.post(
      '/b/{p}',
      ({
        request,
        pathParams,
        queryParams,
        queryParamsAll,
        headers,
        cookies,
        requestId,
        log,
        lambdaEvent,
        lambdaContext,
        authorizer,
        metrics,
        p,
      }) => {
        metrics.addMetric('x', 'Count', 1);
        log.info('inside');
        return {
          method: request.method,
          pathParams,
          queryParams,
          queryParamsAll,
          header: headers.get('x-h'),
          cookies,
          hasId: typeof requestId === 'string',
          lambda: [lambdaEvent, lambdaContext, authorizer].every((v) => v === undefined),
          p,
        };
      },
    );
    const response = await app.request('/b/1?q=1&q=2', {
      method: 'POST',
      headers: { 'X-H': 'v', Cookie: 'c=1' },
    });
    expect(JSON.parse(response.body as string)).toEqual({
      method: 'POST',
      pathParams: { p: '1' },
      queryParams: { q: '1' },
      queryParamsAll: { q: ['1', '2'] },
      header: 'v',
      cookies: { c: '1' },
      hasId: true,
      lambda: true,
      p: '1',
    });
  });

  it('names the route and the name for an unknown dependency', async () => {
    const app = looseApp();
    app.get('/u/{id}', ({ usr }) => usr);
    await expect(app.startup()).rejects.toThrow(/Route GET \/u\/\{id\}: unknown dependency "usr"/);
  });

  it('answers 500 for a route with an unknown name added after startup, and logs the reason', async () => {
    const lines: string[] = [];
    const app = new RestApplication<Record<string, unknown>>({
      logger: { ...silentLogger, error: (message) => lines.push(message) },
    });
    await app.startup();
    app.get('/late', ({ nope }) => nope);
    const response = await app.request('/late');
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('nope');
    expect(lines.join('\n')).toMatch(/unknown dependency "nope"/);
  });

  it('names the whole chain of a dependency cycle', async () => {
    const app = looseApp();
    app.dependency('a', ({ b }) => b);
    app.dependency('b', ({ c }) => c);
    app.dependency('c', ({ a }) => a);
    app.get('/', ({ a }) => a);
    await expect(app.startup()).rejects.toThrow(/Route GET \/: dependency cycle a -> b -> c -> a/);
  });

  it('refuses names that clash with a built-in, a registered name or a path parameter', async () => {
    expect(() => newApp().dependency('request', () => 1)).toThrow(/built-in/);
    // The names only onResponse hooks, renderers and error handlers get are built-ins too.
    for (const name of ['response', 'elapsedMs', 'result', 'error']) {
      expect(() => newApp().dependency(name, () => 1)).toThrow(/built-in/);
    }
    const app = newApp().dependency('id', () => 'dependency');
    expect(() => app.dependency('id', () => 2)).toThrow(/already registered/);
    app.get('/x/{id}', ({ id }) => id);
    await expect(app.startup()).rejects.toMatchObject({ code: 'NAME_CLASH' });
  });

  it('refuses a path parameter named like a dependency the route sees, injected or not', async () => {
    // The parameter would stand in for the dependency in the route's error handler, default
    // headers and hooks, not only in its handler.
    const app = newApp().dependency('id', () => 'dependency');
    app.get('/x/{id}', () => 'no id here');
    app.errorHandler(({ id }) => ({ id }));
    await expect(app.startup()).rejects.toMatchObject({
      code: 'NAME_CLASH',
      message: 'Route GET /x/{id}: path parameter "id" clashes with a registered dependency',
    });

    const inner = new Router().dependency('slug', () => 'dependency');
    inner.get('/{slug}', () => 'no slug here');
    const mounted = newApp().mount('/posts', inner);
    await expect(mounted.startup()).rejects.toMatchObject({
      code: 'NAME_CLASH',
      message: expect.stringContaining('Route GET /posts/{slug}: path parameter "slug"'),
    });

    // A dependency another router registers is not seen by the route: no clash.
    const apart = newApp().mount(
      '/posts',
      new Router().dependency('slug', () => 'dependency'),
    );
    apart.get('/pages/{slug}', ({ slug }) => slug);
    await apart.startup();
    expect((await apart.request('/pages/home')).body).toBe('home');
  });

  it('lets a provider reject with an HttpError status, and turns other throws into 500', async () => {
    const { HttpError } = await import('../../../src/index.js');
    const app = newApp()
      .dependency('user', ({ headers }) => {
        if (!headers.has('authorization')) throw new HttpError(401, 'Sign in first');
        return 'ada';
      })
      .dependency('broken', async () => {
        throw new Error('secret detail');
      });
    app.get('/me', ({ user }) => user);
    app.get('/broken', ({ broken }) => broken);
    expect((await app.request('/me')).statusCode).toBe(401);
    expect((await app.request('/me', { headers: { Authorization: 'x' } })).body).toBe('ada');
    const broken = await app.request('/broken');
    expect(broken.statusCode).toBe(500);
    expect(broken.body).not.toContain('secret');
  });
});

describe('session scope', () => {
  const USERS: Record<string, string> = { 'token-ada': 'ada' };

  it("is one value per way its names resolve: sibling routers' own names make their own", async () => {
    let made = 0;
    const tenant = (url: string) =>
      new Router<{ db: { connectedTo: string } }>()
        .dependency('dbUrl', () => url, { scope: 'session' })
        .withRoutes((r) => [r.get('/orders', ({ db }) => db), r.get('/invoices', ({ db }) => db)]);
    // The application's `db` needs `dbUrl`, which only the routers register: declared here.
    const app = new RestApplication<{ dbUrl: string }>({ logger: silentLogger })
      .dependency(
        'db',
        ({ dbUrl }) => {
          made++;
          return { connectedTo: dbUrl };
        },
        { scope: 'session' },
      )
      .mount('/a', tenant('postgres://tenant-a'))
      .mount('/b', tenant('postgres://tenant-b'));
    for (const [path, url] of [
      ['/b/orders', 'postgres://tenant-b'],
      ['/a/orders', 'postgres://tenant-a'],
      ['/a/invoices', 'postgres://tenant-a'],
      ['/b/invoices', 'postgres://tenant-b'],
    ]) {
      const response = await app.request(path as string);
      expect([path, JSON.parse(String(response.body))]).toEqual([path, { connectedTo: url }]);
    }
    // Made once per router, and shared by the routes of each.
    expect(made).toBe(2);
  });

  it('refuses a session provider that reads one request, naming the route and both names', async () => {
    const app = looseApp()
      .dependency('user', ({ headers }) => USERS[headers.get('authorization') ?? ''] ?? null, {
        scope: 'session',
      })
      .authorized('signedIn', ({ user }) => user);
    app.get('/me', ({ signedIn }) => signedIn);
    const failure = app.startup();
    await expect(failure).rejects.toMatchObject({ code: 'SCOPE_MISMATCH' });
    await expect(failure).rejects.toThrow(
      /Route GET \/me: session-scoped "user" needs "headers" \(via signedIn -> user\), which belongs to one request/,
    );
  });

  it('refuses every way one request reaches a session value, however deep', async () => {
    const cases: Array<[string, (app: ReturnType<typeof looseApp>) => void, RegExp]> = [
      [
        'a path parameter',
        (app) => {
          app.resourceExists('item', ({ id }) => ({ id }), { scope: 'session' });
          app.get('/items/{id}', ({ item }) => item);
        },
        /session-scoped "item" needs "id"/,
      ],
      [
        'a request-scoped dependency two steps down',
        (app) => {
          app.dependency('tenant', ({ headers }) => headers.get('x-tenant'));
          app.dependency('tenantName', ({ tenant }) => String(tenant), { scope: 'session' });
          app.dependency('greeting', ({ tenantName }) => `hello ${tenantName}`, {
            scope: 'session',
          });
          app.get('/', ({ greeting }) => greeting);
        },
        /session-scoped "tenantName" needs "tenant" \(via greeting -> tenantName\)/,
      ],
      [
        'the request logger',
        (app) => {
          app.dependency('db', ({ log }) => ({ log }), { scope: 'session' });
          app.get('/', ({ db }) => typeof db);
        },
        /session-scoped "db" needs "log"/,
      ],
    ];
    for (const [what, build, message] of cases) {
      const app = looseApp();
      build(app);
      await expect(app.startup(), what).rejects.toThrow(message);
    }
  });

  it('refuses a session-scoped schema validator at registration: it reads every request', async () => {
    const { z } = await import('zod');
    expect(() =>
      newApp().validates('order', z.object({ qty: z.number() }), { scope: 'session' }),
    ).toThrow(/Validator "order" checks each request's jsonBody, so it cannot be session-scoped/);
    expect(() =>
      newApp().validates('order', z.object({ qty: z.number() }), { scope: 'request' }),
    ).not.toThrow();
  });

  it('lets session values build on session values and startup results', async () => {
    let opened = 0;
    const app = looseApp()
      .onStartup('url', () => 'postgres://db')
      .dependency('pool', ({ url }) => ({ url, id: ++opened }), { scope: 'session' })
      .dependency('repo', ({ pool }) => ({ pool }), { scope: 'session' });
    app.get('/', ({ repo }) => repo);
    await app.startup();
    await app.request('/');
    const response = await app.request('/');
    expect(JSON.parse(response.body as string)).toEqual({ pool: { url: 'postgres://db', id: 1 } });
    expect(opened).toBe(1);
  });

  it('tries a session provider again after it rejected, as after a synchronous throw', async () => {
    for (const fail of [
      async () => {
        throw new Error('ECONNREFUSED');
      },
      () => {
        throw new Error('ECONNREFUSED');
      },
    ]) {
      let calls = 0;
      const app = newApp().dependency(
        'db',
        (): string | Promise<string> => (++calls === 1 ? fail() : 'connected'),
        { scope: 'session' },
      );
      app.get('/', ({ db }) => db);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await app.request('/')).statusCode);
      expect(statuses).toEqual([500, 200, 200]);
      expect(calls).toBe(2);
    }
  });

  it('shares one rejection among the readers of one request', async () => {
    let calls = 0;
    const app = newApp()
      .dependency('flaky', async () => {
        calls++;
        throw new Error('down');
      })
      .dependency('a', ({ flaky }) => flaky)
      .dependency('b', ({ flaky }) => flaky);
    app.get('/', ({ a, b }) => [a, b]);
    expect((await app.request('/')).statusCode).toBe(500);
    expect(calls).toBe(1);
  });
});

describe('a failure within one request', () => {
  it('is what every later reader sees: the producer runs once, sync or async, request or session scope', async () => {
    const calls: Record<string, number> = {};
    const count = (name: string) => {
      calls[name] = (calls[name] ?? 0) + 1;
    };
    const app = new RestApplication({ logger: silentLogger })
      .authorized('user', ({ headers }) => {
        count('authorized');
        return headers.get('x-user');
      })
      .resourceExists('note', () => {
        count('exists');
        return null;
      })
      .dependency('tenant', () => {
        count('tenant');
        throw new HttpError(400, 'no tenant');
      })
      .dependency(
        'config',
        async () => {
          count('config');
          throw new HttpError(503, 'config down');
        },
        { scope: 'session' },
      )
      .dependency(
        'clock',
        () => {
          count('clock');
          throw new HttpError(503, 'clock down');
        },
        { scope: 'session' },
      );
    app.get('/admin', ({ user }) => user);
    app.get('/notes/{id}', ({ note }) => note);
    app.get('/tenant', ({ tenant }) => tenant);
    app.get('/config', ({ config }) => config);
    app.get('/clock', ({ clock }) => clock);
    // Later readers of the failed names: error handlers, and a response hook.
    app.errorHandler(401, ({ error, user }) => ({ error: error.message, user }));
    app.errorHandler(404, ({ error, note }) => ({ error: error.message, note }));
    app.errorHandler(503, ({ error, config, clock }) => ({ error: error.message, config, clock }));
    app.onResponse(({ response, tenant }) => {
      response.headers.set('X-Tenant', String(tenant));
    });
    for (const [path, status, name] of [
      ['/admin', 401, 'authorized'],
      ['/notes/1', 404, 'exists'],
      ['/tenant', 400, 'tenant'],
      ['/config', 503, 'config'],
      ['/clock', 503, 'clock'],
    ] as const) {
      for (const key of Object.keys(calls)) delete calls[key];
      const response = await app.request(path, { headers: { 'X-Tenant': 't' } });
      expect([path, response.statusCode]).toEqual([path, status]);
      expect([path, calls[name]]).toEqual([path, 1]);
    }
    // Two requests that shared a session value's making share its failure too: neither runs
    // the provider again for its hook.
    let made = 0;
    const shared = new RestApplication({ logger: silentLogger }).dependency(
      'db',
      async () => {
        const call = ++made;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (call === 1) throw new HttpError(503, 'db down');
        return { call };
      },
      { scope: 'session' },
    );
    shared.get('/x', ({ db }) => db);
    shared.onResponse(({ response, db }) => {
      response.headers.set('X-Db', JSON.stringify(db));
    });
    const both = await Promise.all([shared.request('/x'), shared.request('/x')]);
    expect(both.map((response) => response.statusCode)).toEqual([503, 503]);
    expect(made).toBe(1);
    // A session value's failure is still forgotten between requests: the next one tries again.
    await app.request('/config');
    expect(calls.config).toBe(2);
  });
});
