import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { injectedNames } from '../../../src/app/inject/handler-parameters.js';
import { RestApplication, Router, SetupError, silentLogger } from '../../../src/index.js';

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
    const app = newApp().dependency('id', () => 'dependency');
    expect(() => app.dependency('id', () => 2)).toThrow(/already registered/);
    app.get('/x/{id}', ({ id }) => id);
    await expect(app.startup()).rejects.toMatchObject({ code: 'NAME_CLASH' });
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
