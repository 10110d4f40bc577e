/**
 * Option names nobody knows, in the core's options objects (docs/application.md, "Errors"):
 * `validates()`, `dependency()`, `resourceExists()`, `compress()`, `csp()`, `describe()`,
 * `returns()`, `sse()` and `createConsoleLogger()` refuse them where they are given, naming the
 * options there are, and the options they know still do what they did.
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import {
  createConsoleLogger,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
  sse,
} from '../../src/index.js';

// Built from a variable, as options loaded from configuration are: TypeScript's excess property
// check does not see them.
const options = (value: object): never => value as never;

function invalidOption(message: string) {
  return expect.objectContaining({ name: 'SetupError', code: 'INVALID_OPTION', message });
}

describe('validates()', () => {
  it('refuses a misspelt source, which would have validated the JSON body instead', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const paging = z.object({ page: z.coerce.number().int().min(1) });
    expect(() => app.validates('paging', paging, options({ sorce: 'queryParams' }))).toThrow(
      invalidOption('validates "paging": unknown option "sorce"; the options are source, scope'),
    );
    // Nothing registered: the name is free for the right call.
    app
      .validates('paging', paging, { source: 'queryParams' })
      .get('/items', ({ paging }) => ({ page: paging.page }));
    const ok = await app.request('/items?page=2');
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(ok.body as string)).toEqual({ page: 2 });
    expect((await app.request('/items?page=0')).statusCode).toBe(422);
  });

  it('keeps scope, and a misspelt scope is refused too', () => {
    const app = new RestApplication({ logger: silentLogger });
    const config = () => ({ ok: true });
    expect(() => app.validates('config', config, options({ scop: 'session' }))).toThrow(
      'validates "config": unknown option "scop"; the options are source, scope',
    );
    expect(() => app.validates('config', config, { scope: 'request' })).not.toThrow();
  });
});

describe('dependency()', () => {
  it('refuses a misspelt scope, which would have made a session dependency per request', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let made = 0;
    const connect = () => ({ connection: ++made });
    expect(() => app.dependency('db', connect, options({ scop: 'session' }))).toThrow(
      invalidOption('dependency "db": unknown option "scop"; the options are scope'),
    );
    app.dependency('db', connect, { scope: 'session' }).get('/db', ({ db }) => db);
    expect(JSON.parse((await app.request('/db')).body as string)).toEqual({ connection: 1 });
    expect(JSON.parse((await app.request('/db')).body as string)).toEqual({ connection: 1 });
    expect(made).toBe(1);
  });

  it('checks the one-argument form, a router and resourceExists() as well', async () => {
    function clock() {
      return 1;
    }
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.dependency(clock, options({ scope: 'session', lazy: true }))).toThrow(
      'dependency "clock": unknown option "lazy"; the options are scope',
    );
    const router = new Router();
    expect(() => router.dependency('tenant', () => 't', options({ scopes: 'request' }))).toThrow(
      SetupError,
    );
    expect(() =>
      app.resourceExists('note', () => ({ id: 1 }), options({ scop: 'request' })),
    ).toThrow(invalidOption('resourceExists "note": unknown option "scop"; the options are scope'));
    router
      .dependency('tenant', () => 't', { scope: 'request' })
      .get('/tenant', ({ tenant }) => ({ tenant }));
    app
      .resourceExists('note', () => ({ id: 1 }), { scope: 'request' })
      .get('/note', ({ note }) => note);
    app.mount('/r', router);
    expect(JSON.parse((await app.request('/r/tenant')).body as string)).toEqual({ tenant: 't' });
    expect(JSON.parse((await app.request('/note')).body as string)).toEqual({ id: 1 });
  });
});

describe('compress()', () => {
  const big = { items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item ${i}` })) };

  it('refuses a misspelt option on the application, a router and a route', () => {
    const message =
      'compress(): unknown option "treshold"; the options are threshold, encodings, types, levels';
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.compress(options({ treshold: 0 }))).toThrow(invalidOption(message));
    expect(() => new Router().compress(options({ treshold: 0 }))).toThrow(invalidOption(message));
    expect(() => app.get('/x', () => 1).compress(options({ treshold: 0 }))).toThrow(
      invalidOption(message),
    );
    expect(() => app.compress(options({ encoding: ['gzip'] }))).toThrow(
      'compress(): unknown option "encoding"',
    );
  });

  it('still compresses with the options it knows', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.compress({ threshold: 0, encodings: ['gzip'], types: ['application/json'], levels: {} });
    app.get('/big', () => big);
    const response = await app.request('/big', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const body = response.body as Uint8Array;
    expect(JSON.parse(gunzipSync(body).toString())).toEqual(big);
  });
});

describe('csp()', () => {
  it('refuses a misspelt option on the application, a router and a route', () => {
    const message = 'csp(): unknown option "reportonly"; the options are directives, reportOnly';
    const policy = options({ directives: { defaultSrc: ["'self'"] }, reportonly: true });
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.csp(policy)).toThrow(invalidOption(message));
    expect(() => new Router().csp(policy)).toThrow(invalidOption(message));
    expect(() => app.get('/x', () => 1).csp(policy)).toThrow(invalidOption(message));
  });

  it('still takes directives and reportOnly, and false', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.csp({ directives: { defaultSrc: ["'self'"] }, reportOnly: true });
    app.get('/page', () => 'page');
    app.get('/none', () => 'none').csp(false);
    const page = await app.request('/page');
    expect(page.headers.get('content-security-policy-report-only')).toBe("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toBeUndefined();
    expect((await app.request('/none')).headers.has('content-security-policy-report-only')).toBe(
      false,
    );
  });
});

describe('describe() and returns()', () => {
  it('refuse a misspelt field, naming the ones there are', () => {
    const app = new RestApplication({ logger: silentLogger });
    const route = app.get('/notes', () => []);
    expect(() => route.describe(options({ summary: 'List', tag: ['notes'] }))).toThrow(
      invalidOption(
        'describe() of GET /notes: unknown option "tag"; the options are summary, description, tags, operationId, deprecated, hidden',
      ),
    );
    expect(() => route.returns(200, undefined, options({ mediatype: 'text/csv' }))).toThrow(
      invalidOption(
        'returns() of GET /notes: unknown option "mediatype"; the options are description, mediaType',
      ),
    );
  });

  it('still record the fields they know', () => {
    const app = new RestApplication({ logger: silentLogger });
    const route = app
      .get('/notes', () => [])
      .describe({
        summary: 'List',
        description: 'All notes',
        tags: ['notes'],
        operationId: 'listNotes',
        deprecated: false,
        hidden: false,
      })
      .returns(200, undefined, { description: 'The notes', mediaType: 'text/csv' });
    expect(route.settings.describe).toMatchObject({ summary: 'List', operationId: 'listNotes' });
    expect((route.settings.returns as Map<number, unknown>).get(200)).toMatchObject({
      description: 'The notes',
      mediaType: 'text/csv',
    });
  });
});

describe('sse()', () => {
  const events = async function* () {
    yield 'one';
  };

  it('refuses a misspelt option with the TypeError it throws for a wrong keepAlive', () => {
    expect(() => sse(events(), options({ keepalive: 15_000 }))).toThrow(TypeError);
    expect(() => sse(events(), options({ keepalive: 15_000 }))).toThrow(
      'sse(): unknown option "keepalive"; the options are keepAlive',
    );
  });

  it('still takes keepAlive, and a handler that misspells it answers 500', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/events', () => sse(events(), { keepAlive: 15_000 }));
    app.get('/wrong', () => sse(events(), options({ keepalive: 15_000 })));
    const response = await app.request('/events');
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    let text = '';
    for await (const chunk of response.body as AsyncIterable<string | Uint8Array>) {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    }
    expect(text).toBe('data: one\n\n');
    expect((await app.request('/wrong')).statusCode).toBe(500);
  });
});

describe('createConsoleLogger()', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('refuses a misspelt option', () => {
    expect(() => createConsoleLogger(options({ levl: 'warn' }))).toThrow(
      invalidOption('createConsoleLogger(): unknown option "levl"; the options are level'),
    );
  });

  it('refuses a level it does not know, which would write every line', () => {
    for (const level of ['warning', 'constructor', 'WARN']) {
      expect(() => createConsoleLogger(options({ level }))).toThrow(
        invalidOption(
          `createConsoleLogger() level must be "debug" or "info" or "warn" or "error", got "${level}"`,
        ),
      );
    }
  });

  it('still takes level', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const logger = createConsoleLogger({ level: 'warn' });
    logger.info('hidden');
    logger.warn('shown');
    expect(log).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(1);
    expect(JSON.parse(error.mock.calls[0]?.[0] as string)).toMatchObject({
      level: 'warn',
      msg: 'shown',
    });
  });
});
