import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { serve } from '../../../src/adapters/node/index.js';
import { HttpError, Response, RestApplication, Router, silentLogger } from '../../../src/index.js';
import { recordingLogger } from '../../support/recording-logger.js';

describe('error handlers', () => {
  it('replace the built-in response per status and keep the status for plain results', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(404, ({ error, request }) => ({
      missing: error.path,
      method: request.method,
    }));
    app.get('/', () => 'ok');
    const response = await app.request('/nope');
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body as string)).toEqual({ missing: '/nope', method: 'GET' });
  });

  it('a default handler covers every status; a tuple changes the status', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(({ error }) => [{ wrapped: error.statusCode }, 503]);
    app.get('/boom', () => {
      throw new Error('x');
    });
    const response = await app.request('/boom');
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body as string)).toEqual({ wrapped: 500 });
  });

  it('gets the thrown value as cause and the details', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let seen: unknown;
    app.errorHandler(409, ({ error }) => {
      seen = error.cause;
      return { details: error.details, message: error.message };
    });
    app.post('/', () => {
      throw new HttpError(409, 'Taken', { field: 'name' });
    });
    const response = await app.request('/', { method: 'POST' });
    expect(JSON.parse(response.body as string)).toEqual({
      details: { field: 'name' },
      message: 'Taken',
    });
    expect(seen).toBeInstanceOf(HttpError);
  });

  it('an error handler that returns nothing keeps the status with an empty body', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(404, () => undefined);
    const response = await app.request('/x');
    expect(response.statusCode).toBe(404);
    expect(response.body).toBeUndefined();
  });

  it('an error handler may return a Response', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(
      404,
      () => new Response(404, '<h1>Gone fishing</h1>', { contentType: 'text/html' }),
    );
    const response = await app.request('/x');
    expect(response.headers.get('content-type')).toBe('text/html');
  });

  it('a failing error handler falls back to the built-in response and never escapes', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(() => {
      throw new Error('handler bug');
    });
    const response = await app.request('/x');
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body as string)).toEqual({
      error: 'Not Found',
      statusCode: 404,
      path: '/x',
    });
  });

  it('one whose answer has a status no request can have fails like any other: the built-in 409, logged', async () => {
    const { lines, logger } = recordingLogger();
    const app = new RestApplication({ logger });
    const mount = (prefix: string, handler: () => unknown) => {
      const router = new Router().errorHandler(handler as () => [string, number]);
      router.get('/x', () => {
        throw new HttpError(409, 'conflict');
      });
      app.mount(prefix, router);
    };
    mount('/throws', () => {
      throw new Error('handler bug');
    });
    mount('/tuple-103', () => ['x', 103]);
    mount('/response-status-1', () => {
      const response = new Response(409, 'x');
      response.statusCode = 1;
      return response;
    });
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    const answers: Array<[number, unknown]> = [];
    try {
      for (const prefix of ['/throws', '/tuple-103', '/response-status-1']) {
        const response = await fetch(`${server.url}${prefix}/x`);
        answers.push([response.status, await response.json()]);
      }
    } finally {
      await server.close();
    }
    for (const [prefix, answer] of [
      ['/throws', answers[0]],
      ['/tuple-103', answers[1]],
      ['/response-status-1', answers[2]],
    ] as const) {
      expect(answer).toEqual([409, { error: 'conflict', statusCode: 409, path: `${prefix}/x` }]);
    }
    expect(lines.map((line) => line.message)).toEqual([
      'Error handler failed',
      'Error handler failed',
      'Error handler failed',
    ]);
    expect(String(lines[1]?.fields?.error)).toContain('A 103 cannot answer a request');
    expect(String(lines[2]?.fields?.error)).toContain('A 1 cannot answer a request');
  });

  it('answers 500, never rejects, when an HttpError cannot be sent as it is', async () => {
    const logged: Array<[string, unknown]> = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message, fields) => logged.push([message, fields]) },
    });
    app.get('/circular', () => {
      const details: Record<string, unknown> = { field: 'name' };
      details.self = details;
      throw new HttpError(400, 'Bad', details);
    });
    app.get('/bigint', () => {
      throw new HttpError(413, 'Too big', { limit: 10n });
    });
    // The header value comes from the client: a decoded CR LF must not make execute() throw.
    app.get('/challenge', ({ queryParams }) => {
      throw new HttpError(401, 'Sign in', undefined, {
        'WWW-Authenticate': `Bearer realm="${queryParams.realm}"`,
      });
    });
    for (const path of ['/circular', '/bigint', '/challenge?realm=a%0D%0ASet-Cookie:%20x=1']) {
      const response = await app.request(path, { headers: { 'X-Request-ID': 'r-1' } });
      expect(response.statusCode, path).toBe(500);
      expect(JSON.parse(response.body as string), path).toEqual({
        error: 'Internal Server Error',
        statusCode: 500,
        path: path.split('?')[0],
      });
      expect(response.headers.has('www-authenticate'), path).toBe(false);
      expect(response.headers.has('set-cookie'), path).toBe(false);
    }
    expect(logged.map(([message]) => message)).toEqual(
      Array(3).fill('Could not complete an error response'),
    );
    expect(logged[0]?.[1]).toMatchObject({ requestId: 'r-1' });
  });

  it('keeps Allow on a 405 answered by a custom handler', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(() => ({ custom: true }));
    app.get('/', () => 1);
    const response = await app.request('/', { method: 'PUT' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('shows the error text and stack only in debug mode, and logs it always', async () => {
    const logged: unknown[] = [];
    const logger = {
      ...silentLogger,
      error: (_: string, fields?: Record<string, unknown>) => logged.push(fields?.error),
    };
    const quiet = new RestApplication({ logger });
    const debug = new RestApplication({ logger, debug: true });
    for (const app of [quiet, debug]) {
      app.get('/', () => {
        throw new Error('the secret');
      });
    }
    expect(String((await quiet.request('/')).body)).not.toContain('the secret');
    const debugBody = JSON.parse((await debug.request('/')).body as string);
    expect(debugBody.details.message).toBe('the secret');
    expect(debugBody.details.stack).toContain('Error: the secret');
    expect(logged).toHaveLength(2);
  });

  it('shows a thrown value that is not an Error as text in debug mode only', async () => {
    const quiet = new RestApplication({ logger: silentLogger });
    const debug = new RestApplication({ logger: silentLogger, debug: true });
    for (const app of [quiet, debug]) {
      app.get('/text', () => {
        throw 'the secret';
      });
      app.get('/bare', () => {
        throw Object.create(null);
      });
    }
    expect(JSON.parse((await quiet.request('/text')).body as string)).not.toHaveProperty('details');
    expect(JSON.parse((await debug.request('/text')).body as string).details).toEqual({
      thrown: 'the secret',
    });
    expect(JSON.parse((await debug.request('/bare')).body as string).details).toEqual({
      thrown: '[object Object]',
    });
  });

  it('logs a 5xx HttpError the application throws, never a 4xx or the library’s own 501 and 503', async () => {
    const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      ...silentLogger,
      error: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) =>
        warnings.push({ message, fields }),
    };
    const app = new RestApplication({ logger, requestTimeout: 20 }).resourceExists('note', () => {
      throw new HttpError(503, 'Note store unreachable');
    });
    app.get('/upstream', () => {
      throw new HttpError(502, 'Payment provider answered garbage');
    });
    app.get('/notes/{id}', ({ note }) => note);
    app.get('/missing', () => {
      throw new HttpError(404, 'No such thing');
    });
    app.get('/slow', () => new Promise((resolve) => setTimeout(() => resolve('late'), 200)));

    const upstream = await app.request('/upstream', { headers: { 'X-Request-ID': 'req-502' } });
    expect(upstream.statusCode).toBe(502);
    expect((await app.request('/notes/1')).statusCode).toBe(503);
    expect(lines.map((line) => line.message)).toEqual([
      'Request answered 502: Payment provider answered garbage',
      'Request answered 503: Note store unreachable',
    ]);
    expect(lines[0]?.fields).toMatchObject({
      requestId: 'req-502',
      method: 'GET',
      path: '/upstream',
    });
    expect(lines[0]?.fields?.error).toBeInstanceOf(HttpError);

    lines.length = 0;
    expect((await app.request('/missing')).statusCode).toBe(404);
    expect((await app.request('/upstream', { method: 'BREW' })).statusCode).toBe(501);
    expect((await app.request('/slow')).statusCode).toBe(503);
    await app.shutdown();
    expect((await app.request('/upstream')).statusCode).toBe(503);
    expect(lines).toEqual([]);
    // A timeout is the library's answer, yet worth knowing about: one warning names the request.
    expect(warnings).toEqual([
      {
        message: 'Request timed out: no response within 20 ms; answering 503',
        fields: { requestId: expect.any(String), method: 'GET', path: '/slow' },
      },
    ]);
  });

  it('answers a timeout with the built-in 503 when the error handler is too slow itself', async () => {
    const errors: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      ...silentLogger,
      error: (message: string, fields?: Record<string, unknown>) =>
        errors.push({ message, fields }),
    };
    const app = new RestApplication({ logger, requestTimeout: 30 });
    const stuck = () => new Promise((resolve) => setTimeout(resolve, 2_000).unref());
    app.get('/stuck', async () => {
      await stuck();
      return 'late';
    });
    app.get('/quick', async () => {
      await stuck();
      return 'late';
    });
    // The handler for the 503 waits on the same stuck resource on one route only.
    app.errorHandler(503, async ({ request }) => {
      if (request.path === '/stuck') await stuck();
      return { busy: true };
    });
    const started = Date.now();
    const response = await app.request('/stuck', { headers: { 'X-Request-ID': 'slow-1' } });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(response.statusCode).toBe(503);
    expect(response.headers.get('x-request-id')).toBe('slow-1');
    expect(JSON.parse(response.body as string)).toMatchObject({ statusCode: 503, path: '/stuck' });
    expect(errors).toEqual([
      {
        message:
          "The error handler did not answer the timeout's 503 within 30 ms; sending the built-in 503",
        fields: { requestId: 'slow-1', method: 'GET', path: '/stuck' },
      },
    ]);
    // An error handler that answers in time is still the one that answers.
    const quick = await app.request('/quick');
    expect(quick.statusCode).toBe(503);
    expect(JSON.parse(quick.body as string)).toEqual({ busy: true });
  });

  it('logs a response that fails its declaration once, not again as a 500', async () => {
    const messages: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => messages.push(message) };
    const app = new RestApplication({ logger, validateResponses: true });
    app.get('/count', () => ({ count: 'many' })).returns(200, z.object({ count: z.number() }));
    expect((await app.request('/count')).statusCode).toBe(500);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('the response does not match returns(200)');
  });

  it('refuses an HttpError status outside 400-599', () => {
    expect(() => new HttpError(200)).toThrow(RangeError);
  });
});

describe("an HttpError's headers", () => {
  const varyMember = fc.constantFrom('Origin', 'Accept-Language', 'Cookie', 'X-Tenant', 'accept');
  const errorHeaders = fc.record(
    {
      Vary: fc.array(varyMember, { minLength: 1, maxLength: 3 }).map((names) => names.join(', ')),
      'Content-Type': fc.constantFrom('application/problem+json', 'text/html', 'image/png'),
      'X-Reason': fc.constantFrom('quota', 'gone'),
    },
    { requiredKeys: [] },
  );
  const accept = fc.constantFrom(undefined, 'application/json', 'text/plain', 'text/*', '*/*');

  it('merge into Vary and never relabel the body, built-in or an error handler’s', async () => {
    await fc.assert(
      fc.asyncProperty(errorHeaders, accept, fc.boolean(), async (headers, type, handled) => {
        const app = new RestApplication({ logger: silentLogger });
        app.get('/x', () => {
          throw new HttpError(404, 'gone', undefined, headers);
        });
        if (handled) {
          app.errorHandler(() => new Response(404, 'handled', { contentType: 'text/plain' }));
        }
        const response = await app.request('/x', {
          headers: type === undefined ? {} : { accept: type },
        });
        expect(response.statusCode).toBe(404);
        const vary = response.headers
          .getAll('vary')
          .flatMap((line) => line.split(',').map((name) => name.trim().toLowerCase()));
        const expected = new Set(
          (headers.Vary?.split(', ') ?? []).map((name) => name.toLowerCase()),
        );
        if (!handled) expected.add('accept');
        for (const name of expected) expect(vary).toContain(name);
        expect(new Set(vary).size).toBe(vary.length);
        if (headers['X-Reason'] !== undefined) {
          expect(response.headers.get('x-reason')).toBe(headers['X-Reason']);
        }
        const body = response.body as string;
        if (handled) {
          expect(response.headers.get('content-type')).toBe('text/plain');
        } else if (response.headers.get('content-type') === 'application/json') {
          expect(JSON.parse(body)).toMatchObject({ error: 'gone', statusCode: 404 });
        } else {
          expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
          expect(body).toBe('gone');
        }
      }),
      { numRuns: 100 },
    );
  });

  it('with Vary: * say the response varies on everything', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => {
      throw new HttpError(404, 'gone', undefined, { Vary: '*' });
    });
    const response = await app.request('/x');
    expect(response.headers.getAll('vary')).toEqual(['*']);
    // `*` among other names says the same: it stands alone (RFC 9110 §12.5.5).
    app.get('/y', () => {
      throw new HttpError(404, 'gone', undefined, { Vary: 'Origin, *' });
    });
    const listed = await app.request('/y');
    expect(listed.headers.getAll('vary')).toEqual(['*']);
  });

  it('answer 500 for a Vary value with CR or LF, as for any other header', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => {
      throw new HttpError(404, 'gone', undefined, { Vary: 'Origin\r\nX-Injected: 1' });
    });
    const response = await app.request('/x');
    expect(response.statusCode).toBe(500);
    expect(response.headers.has('x-injected')).toBe(false);
  });
});

describe('an error handler that answers with a success status', () => {
  it("sends its answer as it is: it is no representation of the route's resource", async () => {
    const errors: string[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message) => void errors.push(message) },
    });
    let failing = true;
    app
      .get('/doc', () => {
        if (failing) throw new HttpError(503);
        return 'abcdef';
      })
      .etag(() => 'v1')
      .lastModified(() => new Date('2024-01-01T00:00:00Z'));
    // An API that answers every error as a 200 envelope.
    app.errorHandler(({ error }) => [{ ok: false, status: error.statusCode }, 200]);
    // Its own 412 and 416 are not judged again on the way out (each became a 500 before).
    failing = false;
    const stale = await app.request('/doc', { headers: { 'If-Match': '"stale"' } });
    expect([stale.statusCode, JSON.parse(String(stale.body))]).toEqual([
      200,
      { ok: false, status: 412 },
    ]);
    const beyond = await app.request('/doc', { headers: { Range: 'bytes=99-' } });
    expect([beyond.statusCode, JSON.parse(String(beyond.body))]).toEqual([
      200,
      { ok: false, status: 416 },
    ]);
    expect(errors).toEqual([]);
    // The envelope carries none of the resource's validators, so a cache cannot revalidate it
    // as the resource once the handler recovers.
    failing = true;
    const failed = await app.request('/doc');
    expect(failed.statusCode).toBe(200);
    expect(failed.headers.get('etag')).toBeUndefined();
    expect(failed.headers.get('last-modified')).toBeUndefined();
    failing = false;
    const recovered = await app.request('/doc');
    expect([recovered.statusCode, recovered.headers.get('etag')]).toEqual([200, '"v1"']);
  });
});

describe('the line of a failure an error handler answered', () => {
  it('is info naming the status below 500 the handler answered; an error line for a 5xx', async () => {
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      lines.push({ level, message, fields });
    const logger = { debug: record('debug'), info: record('info'), warn: record('warn') };
    const app = new RestApplication({ logger: { ...logger, error: record('error') } });
    // Fastify's setErrorHandler pattern: domain errors mapped to their statuses in one place.
    class Conflict extends Error {}
    const conflict = new Conflict('project key TRK taken');
    const crash = new Error('disk full');
    const unreachable = new HttpError(503, 'Store unreachable');
    app.errorHandler(({ error }) => {
      if (error.cause instanceof Conflict) return [{ error: 'Conflict' }, 409];
      if (error.cause === unreachable) return [{ error: 'Try later' }, 429];
      return undefined;
    });
    app.post('/projects', () => {
      throw conflict;
    });
    app.post('/crash', () => {
      throw crash;
    });
    app.post('/store', () => {
      throw unreachable;
    });
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    try {
      const sent: Array<[number, string | null]> = [];
      for (const path of ['/projects', '/crash', '/store']) {
        const response = await fetch(`${server.url}${path}`, { method: 'POST' });
        await response.arrayBuffer();
        sent.push([response.status, response.headers.get('x-request-id')]);
      }
      expect(sent.map(([status]) => status)).toEqual([409, 500, 429]);
      expect(lines.map((line) => [line.level, line.message])).toEqual([
        ['info', 'Error answered 409 by an error handler'],
        ['error', 'Unhandled error in request'],
        ['info', 'Error answered 429 by an error handler'],
      ]);
      const thrown = [conflict, crash, unreachable];
      lines.forEach((line, index) => {
        expect(line.fields).toEqual({
          requestId: sent[index]?.[1],
          method: 'POST',
          path: ['/projects', '/crash', '/store'][index],
          error: thrown[index],
        });
      });
    } finally {
      await server.close();
    }
  });
});

describe('the logger', () => {
  it('is replaceable, writes structured fields and the request id, and is injectable as log', async () => {
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      lines.push({ level, message, fields });
    const app = new RestApplication({
      logger: {
        debug: record('debug'),
        info: record('info'),
        warn: record('warn'),
        error: record('error'),
      },
    });
    app.get('/', ({ log }) => {
      log.info('handling', { extra: 1 });
      return 'ok';
    });
    await app.request('/', { headers: { 'X-Request-ID': 'req-1' } });
    expect(lines).toEqual([
      { level: 'info', message: 'handling', fields: { requestId: 'req-1', extra: 1 } },
    ]);
  });
});
