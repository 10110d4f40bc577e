/**
 * The mistakes a newcomer makes, answered with a message that says what to write instead:
 * Express-style paths, a route registered twice, results JSON cannot represent.
 */
import { describe, expect, it } from 'vitest';
import { Response, RestApplication, Router, SetupError } from '../../src/index.js';
import { bodyBytes } from '../../src/response.js';
import { recordingLogger } from '../support/recording-logger.js';

describe('path parameters written as in other routers', () => {
  it('refuses :id at registration, saying to write {id}', () => {
    const app = new RestApplication();
    expect(() => app.get('/users/:id', () => null)).toThrow(
      'Route /users/:id: write path parameters as {id}, not ":id"',
    );
    expect(() => app.get('/users/:id?', () => null)).toThrow('write path parameters as {id}');
  });

  it('refuses * and *rest, saying to write a catch-all', () => {
    const router = new Router();
    expect(() => router.get('/files/*', () => null)).toThrow('write a catch-all as {path*}');
    expect(() => router.get('/files/*rest', () => null)).toThrow('write a catch-all as {rest*}');
  });

  it('refuses the same in a mount prefix', () => {
    const app = new RestApplication();
    expect(() => app.mount('/orgs/:org', new Router())).toThrow(SetupError);
  });
});

describe('a route registered twice', () => {
  it('names both registrations, with where each was made', async () => {
    const app = new RestApplication();
    app.get('/users/{id}', () => 1);
    app.get('/users/{id}', () => 2);
    const error = await app.startup().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).code).toBe('DUPLICATE_ROUTE');
    const message = (error as Error).message;
    expect(message).toMatch(
      /^GET \/users\/\{id\} is registered twice: first at test\/app\/newcomer-mistakes\.test\.ts:(\d+):\d+, then at test\/app\/newcomer-mistakes\.test\.ts:(\d+):\d+$/,
    );
    const [, first, second] = /:(\d+):\d+, then at .*:(\d+):\d+$/.exec(message) ?? [];
    expect(Number(second)).toBe(Number(first) + 1);
  });

  it('names the mount prefix and both templates when routers collide', async () => {
    const app = new RestApplication();
    const users = new Router();
    users.get('/{userId}', () => 1);
    app.get('/api/users/{id}', () => 2);
    app.mount('/api/users', users);
    await expect(app.startup()).rejects.toThrow(
      /^GET \/api\/users\/\{id\} matches the same requests as GET \/api\/users\/\{userId\}: first at test\/app\/newcomer-mistakes\.test\.ts:53:\d+ \(as \/\{userId\} in a router mounted at \/api\/users\), then at test\/app\/newcomer-mistakes\.test\.ts:54:\d+$/,
    );
  });
});

describe('results JSON cannot represent', () => {
  const cases: Array<[string, () => unknown, string]> = [
    ['/map', () => new Map([['a', 1]]), 'GET /map returned a Map, which JSON sends as {}'],
    [
      '/set',
      () => new Set([1]),
      'GET /set returned a Set, which JSON sends as {}: return [...set]',
    ],
    ['/function', () => () => 1, 'GET /function returned a function'],
    ['/symbol', () => Symbol('x'), 'GET /symbol returned a symbol'],
    ['/bigint', () => 10n, 'GET /bigint returned a bigint'],
    [
      '/error',
      () => new Error('x'),
      'GET /error returned an Error, which JSON sends as {}: throw it',
    ],
    ['/tuple', () => [new Set(), 201], 'GET /tuple returned a Set'],
  ];

  it.each(cases)('%s is a 500, logged once per route', async (path, result, logged) => {
    const { lines, logger } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get(path, (() => result()) as unknown as () => null);
    const first = await app.request(path);
    const second = await app.request(path);
    expect(first.statusCode).toBe(500);
    expect(second.statusCode).toBe(500);
    expect(JSON.parse(first.body as string)).toEqual({
      error: 'Internal Server Error',
      statusCode: 500,
      path,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toContain(logged);
    expect(lines[0]?.fields).toEqual({ requestId: first.headers.get('x-request-id') });
  });

  it('sends what toJSON() returns for a Map, Set or Error of a class that has one', async () => {
    class Counts extends Map<string, number> {
      toJSON() {
        return Object.fromEntries(this);
      }
    }
    class Problem extends Error {
      toJSON() {
        return { title: this.message };
      }
    }
    const app = new RestApplication();
    app.get('/result', () => new Counts([['a', 1]]) as unknown as Record<string, number>);
    app.get('/body', () => new Response(422, new Problem('bad') as unknown as object));
    app.get('/json', () => Response.json(new Counts([['b', 2]])));
    const answers = await Promise.all(['/result', '/body', '/json'].map((p) => app.request(p)));
    expect(answers.map((answer) => [answer.statusCode, answer.body])).toEqual([
      [200, '{"a":1}'],
      [422, '{"title":"bad"}'],
      [200, '{"b":2}'],
    ]);
  });

  it('says why in the body in debug mode', async () => {
    const { logger } = recordingLogger();
    const app = new RestApplication({ logger, debug: true });
    app.get('/map', (() => new Map()) as unknown as () => null);
    const response = await app.request('/map');
    expect(JSON.parse(response.body as string).details.message).toMatch(
      /^GET \/map returned a Map/,
    );
  });

  it('leaves a route with its own renderer free to turn the value into something', async () => {
    const app = new RestApplication();
    app
      .get('/tags', (() => new Set(['a', 'b'])) as unknown as () => null)
      .provides('application/json', ({ result }) => JSON.stringify([...(result as Set<string>)]));
    const response = await app.request('/tags');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('["a","b"]');
  });

  it('checks error handler results too, naming the error handler', async () => {
    const { lines, logger } = recordingLogger();
    const app = new RestApplication({ logger });
    app.errorHandler(404, (() => new Map()) as unknown as () => null);
    const response = await app.request('/missing');
    expect(response.statusCode).toBe(404);
    expect(lines[0]?.message).toMatch(/^An error handler returned a Map/);
  });
});

describe('a Response whose body JSON cannot represent', () => {
  // Given to a Response these went out as `{}`, as the function's source code or as an empty
  // body labelled JSON, with a 200; they are a logged 500, as a handler's own result is.
  const bodies: Array<[string, unknown, string]> = [
    [
      '/function',
      function secret() {
        return 'db-password';
      },
      'a function',
    ],
    ['/map', new Map([['a', 1]]), 'a Map, which JSON sends as {}'],
    ['/set', new Set([1]), 'a Set'],
    ['/symbol', Symbol('s'), 'a symbol'],
    ['/bigint', 10n, 'a bigint'],
    ['/error', new Error('x'), 'an Error'],
  ];

  it.each(bodies)('%s is a 500 whose log line says what it was', async (path, body, logged) => {
    const { lines, logger } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get(path, () => new Response(200, body as object));
    const response = await app.request(path);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('db-password');
    expect(JSON.parse(response.body as string)).toMatchObject({ statusCode: 500 });
    const error = lines[0]?.fields?.error as Error;
    expect(error.message).toContain(`A Response's body cannot be ${logged}`);
  });

  it('is a TypeError from Response.json(), undefined included', () => {
    expect(() => Response.json(new Map([['a', 1]]))).toThrow(
      'Response.json() cannot send a Map, which JSON sends as {}',
    );
    expect(() => Response.json(() => 1)).toThrow('cannot send a function');
    expect(() => Response.json(1n)).toThrow('cannot send a bigint');
    expect(() => Response.json(undefined)).toThrow('cannot send undefined: pass null');
    expect(Response.json(null).body).toBe('null');
    expect(Response.json(new Date(0)).body).toBe('"1970-01-01T00:00:00.000Z"');
  });

  it('leaves numbers, booleans, dates and class instances alone', async () => {
    class Note {
      constructor(readonly title: string) {}
    }
    const app = new RestApplication({ logger: recordingLogger().logger });
    app.get('/number', () => new Response(200, 5));
    app.get('/false', () => new Response(200, false));
    app.get('/date', () => new Response(200, new Date(0)));
    app.get('/note', () => new Response(200, new Note('a')));
    expect((await app.request('/number')).body).toBe('5');
    expect((await app.request('/false')).body).toBe('false');
    expect((await app.request('/date')).body).toBe('"1970-01-01T00:00:00.000Z"');
    expect((await app.request('/note')).body).toBe('{"title":"a"}');
  });
});

describe('one Response object returned for every request', () => {
  it("refuses it from the second request on, rather than send the first one's request id and CORS origin", async () => {
    const { lines, logger } = recordingLogger();
    const gone = new Response(410, 'This page has moved on');
    const maintenance = new Response(503, 'Back soon');
    const app = new RestApplication({ logger }).cors({
      origin: ['https://a.example', 'https://b.example'],
      credentials: true,
    });
    app.get('/old', () => gone);
    app.get('/busy', () => 'ok');
    app.onRequest(({ request }) => (request.path === '/busy' ? maintenance : undefined));
    for (const path of ['/old', '/busy']) {
      const first = await app.request(path, {
        headers: { 'X-Request-ID': 'first', Origin: 'https://a.example' },
      });
      expect(first.headers.get('x-request-id')).toBe('first');
      const second = await app.request(path, {
        headers: { 'X-Request-ID': 'second', Origin: 'https://b.example' },
      });
      expect(second.statusCode).toBe(500);
      expect(second.headers.get('x-request-id')).toBe('second');
      expect(second.headers.get('access-control-allow-origin')).toBe('https://b.example');
    }
    const refused = lines.filter((line) =>
      String((line.fields?.error as Error | undefined)?.message).includes('second request'),
    );
    expect(refused).toHaveLength(2);
  });

  it('takes a new Response per request as often as it is returned', async () => {
    const app = new RestApplication({ logger: recordingLogger().logger });
    app.get('/new', () => new Response(410, 'gone'));
    for (const id of ['one', 'two']) {
      const response = await app.request('/new', { headers: { 'X-Request-ID': id } });
      expect([response.statusCode, response.headers.get('x-request-id')]).toEqual([410, id]);
    }
  });
});

describe('renderers', () => {
  it('refuses a media range as the type a renderer provides', () => {
    const app = new RestApplication();
    for (const range of ['text/*', '*/*']) {
      expect(() => app.provides(range, () => ''), range).toThrow(/is a media range/);
      // A route's own renderer, when it is registered, not at startup.
      const route = app.get(`/${range.length}`, () => 'x');
      expect(() => route.provides(range, () => ''), range).toThrow(/is a media range/);
    }
  });

  it('sends bytes, a view or a stream a renderer returns as they are, with its type', async () => {
    const app = new RestApplication();
    app
      .get('/bytes', () => [1])
      .provides('text/csv', () => new DataView(new TextEncoder().encode('a,b').buffer));
    app
      .get('/stream', () => [1])
      .provides('text/csv', async function* () {
        yield 'a,';
        yield 'b';
      });
    for (const path of ['/bytes', '/stream']) {
      const response = await app.request(path, { headers: { accept: 'text/csv' } });
      expect(response.headers.get('content-type'), path).toBe('text/csv');
      expect(new TextDecoder().decode(await bodyBytes(response)), path).toBe('a,b');
    }
  });

  it('answers a renderer that returns an object with a logged 500, not "[object Object]"', async () => {
    const { lines, logger } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get('/rows', () => [1]).provides('text/csv', ({ result }) => ({ rows: result }));
    const response = await app.request('/rows', { headers: { accept: 'text/csv' } });
    expect(response.statusCode).toBe(500);
    expect(String(response.body)).not.toContain('[object');
    expect(lines.map((line) => String(line.fields?.error ?? line.message)).join('\n')).toMatch(
      /The renderer for text\/csv returned an object/,
    );
  });
});
