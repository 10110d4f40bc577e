import { describe, expect, it } from 'vitest';
import { RestApplication, silentLogger } from '../../src/index.js';

describe('lifecycle', () => {
  it('runs startup handlers once; their results are injectable session dependencies', async () => {
    let runs = 0;
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('db', async () => {
        runs++;
        return { connected: true };
      })
      .onStartup('cache', ({ db }) => ({ backedBy: db }));
    app.get('/', ({ db, cache }) => ({ db, cache }));
    const first = app.startup();
    expect(app.startup()).toBe(first);
    await first;
    const response = await app.request('/');
    expect(JSON.parse(response.body as string)).toEqual({
      db: { connected: true },
      cache: { backedBy: { connected: true } },
    });
    expect(runs).toBe(1);
  });

  it('names a startup result after the function when no name is given', async () => {
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger });
    app.onStartup(function settings() {
      return { mode: 'test' };
    });
    app.get('/', ({ settings }) => settings);
    expect((await app.request('/')).body).toBe('{"mode":"test"}');
  });

  it('execute() runs startup lazily, once, before the first request', async () => {
    let runs = 0;
    const app = new RestApplication({ logger: silentLogger }).onStartup('value', async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return runs;
    });
    app.get('/', ({ value }) => value);
    const responses = await Promise.all([app.request('/'), app.request('/')]);
    expect(responses.map((r) => r.body)).toEqual(['1', '1']);
    expect(runs).toBe(1);
  });

  it('tries a failed startup again from the handler that failed, never running one twice', async () => {
    const calls: string[] = [];
    let reachable = false;
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('config', () => {
        calls.push('config');
        return { url: 'postgres://db' };
      })
      .onStartup('db', async ({ config }) => {
        calls.push('db');
        if (!reachable) throw new Error(`cannot connect to ${config.url}`);
        return { connected: config.url };
      })
      .onStartup('cache', ({ db }) => {
        calls.push('cache');
        return db.connected;
      });
    app.get('/', ({ cache }) => cache);
    await expect(app.startup()).rejects.toThrow('cannot connect to postgres://db');
    expect(app.startupError).toBeInstanceOf(Error);
    expect((await app.request('/')).statusCode).toBe(500);
    reachable = true;
    const response = await app.request('/');
    expect([response.statusCode, response.body]).toEqual([200, 'postgres://db']);
    expect(calls).toEqual(['config', 'db', 'db', 'db', 'cache']);
    expect(app.startupError).toBeUndefined();
    // Started: later calls share the one startup.
    await app.startup();
    expect(calls).toHaveLength(5);
  });

  it('a failing startup rejects startup() and makes execute() answer 500, logged once', async () => {
    const logged: string[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (message) => logged.push(message) },
    }).onStartup('db', () => {
      throw new Error('cannot connect');
    });
    app.get('/', ({ db }) => db);
    const [a, b] = await Promise.all([app.request('/'), app.request('/')]);
    expect(a.statusCode).toBe(500);
    expect(b.statusCode).toBe(500);
    expect(String(a.body)).not.toContain('cannot connect');
    await expect(app.startup()).rejects.toThrow('cannot connect');
    expect(logged).toEqual(['Application startup failed']);
    // Completed like any answer: an adapter writes its type and length from the headers.
    expect(a.headers.get('content-type')).toBe('application/json');
    expect(a.headers.get('content-length')).toBe(String(Buffer.byteLength(String(a.body))));
    expect(a.headers.get('x-request-id')).toMatch(/^[\w-]+$/);
    const head = await app.request('/', { method: 'HEAD' });
    expect([head.statusCode, head.body, head.headers.get('content-type')]).toEqual([
      500,
      undefined,
      'application/json',
    ]);
  });

  it('writes the access log line of a request a failed startup answered, without the hooks', async () => {
    const access: Array<[string, unknown]> = [];
    const hooked: number[] = [];
    const app = new RestApplication({
      logger: {
        ...silentLogger,
        info: (message, fields) => access.push([message, fields?.requestId]),
      },
      accessLog: true,
    }).onStartup('db', () => {
      throw new Error('cannot connect');
    });
    app.onResponse(({ db, response }) => {
      hooked.push(response.statusCode);
      return void db;
    });
    app.get('/', ({ db }) => db);
    const response = await app.request('/');
    expect(response.statusCode).toBe(500);
    expect(access).toEqual([['GET / 500', response.headers.get('x-request-id')]]);
    expect(hooked).toEqual([]);
  });

  it('shutdown handlers run once, last registered first, and may inject startup results', async () => {
    const order: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('db', () => ({ name: 'db' }))
      .onShutdown(({ db }) => {
        order.push(`first ${db.name}`);
      })
      .onShutdown(async () => {
        order.push('second');
      });
    await app.startup();
    await Promise.all([app.shutdown(), app.shutdown()]);
    expect(order).toEqual(['second', 'first db']);
  });

  it('every shutdown handler runs when one fails; shutdown() rejects with the failure after', async () => {
    const order: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('db', () => ({ name: 'db' }))
      .onShutdown(({ db }) => {
        order.push(`closed ${db.name}`);
      })
      .onShutdown(async () => {
        throw new Error('metrics flush failed');
      })
      .onShutdown(() => {
        order.push('last registered');
      });
    await app.startup();
    await expect(app.shutdown()).rejects.toThrow('metrics flush failed');
    expect(order).toEqual(['last registered', 'closed db']);
  });

  it('several failing shutdown handlers reject together, sync or not', async () => {
    const failing = () =>
      new RestApplication({ logger: silentLogger })
        .onShutdown(() => {
          throw new Error('first registered');
        })
        .onShutdown(() => {
          throw new Error('second registered');
        });
    const rejection = await failing()
      .shutdown()
      .catch((error: unknown) => error);
    expect(rejection).toBeInstanceOf(AggregateError);
    expect((rejection as AggregateError).message).toBe('2 shutdown handlers failed');
    expect((rejection as AggregateError).errors.map((e: Error) => e.message)).toEqual([
      'second registered',
      'first registered',
    ]);
    expect(() => failing().shutdownSync()).toThrow(AggregateError);
  });

  it('after a failed startup, skips the shutdown handlers whose startup results were never made', async () => {
    const events: string[] = [];
    const warnings: unknown[] = [];
    const app = new RestApplication({
      logger: {
        ...silentLogger,
        debug: (message, fields) => warnings.push({ message, ...fields }),
      },
    })
      .onStartup('db', () => {
        events.push('db opened');
        return { close: () => events.push('db closed') };
      })
      .onStartup('cache', (): { close(): void } => {
        throw new Error('cache unreachable');
      })
      .onShutdown(({ db }) => {
        db.close();
      })
      .onShutdown(function closeCache({ cache }) {
        cache.close();
      });
    await expect(app.startup()).rejects.toThrow('cache unreachable');
    await app.shutdown();
    expect(events).toEqual(['db opened', 'db closed']);
    expect(warnings).toEqual([
      {
        message: 'Shutdown handler skipped: a startup result it needs was never made',
        handler: 'closeCache',
        missing: 'cache',
      },
    ]);
  });

  it('refuses requests once shutdown began, with a 503, while one in flight completes', async () => {
    let release: () => void = () => undefined;
    let handled = 0;
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('db', () => ({ open: true }))
      .onShutdown(({ db }) => {
        db.open = false;
      });
    app.get('/slow', async ({ db }) => {
      handled++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { open: db.open };
    });
    app.get('/', ({ db }) => {
      handled++;
      return { open: db.open };
    });
    const inFlight = app.request('/slow');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stopped = app.shutdown();
    const refused = await app.request('/');
    expect(refused.statusCode).toBe(503);
    expect(JSON.parse(refused.body as string)).toMatchObject({
      error: expect.stringMatching(/shutting down/),
    });
    expect(refused.headers.get('x-request-id')).toMatch(/.+/);
    release();
    expect(JSON.parse((await inFlight).body as string)).toEqual({ open: false });
    await stopped;
    expect((await app.request('/')).statusCode).toBe(503);
    expect(handled).toBe(1);
  });

  it('shutdown() during a startup waits for it, and releases what it opened', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('pool', async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push('opened');
        return { end: () => void events.push('closed') };
      })
      .onShutdown(({ pool }) => pool.end());
    app.get('/x', ({ pool }) => typeof pool);
    // The first request starts startup lazily; a SIGTERM comes while it runs.
    const first = app.request('/x');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await app.shutdown();
    expect(events).toEqual(['opened', 'closed']);
    expect((await first).statusCode).toBe(503);
    // The startup that finished is not run again.
    await app.startup();
    expect(events).toEqual(['opened', 'closed']);
    // Nothing opened after shutdown could ever be released: a startup never run stays so.
    let opened = 0;
    const stopped = new RestApplication({ logger: silentLogger }).onStartup('db', () => ++opened);
    await stopped.shutdown();
    await expect(stopped.startup()).rejects.toThrow('startup() cannot run after shutdown()');
    expect(opened).toBe(0);
  });

  it('shutdown() does not wait for ever for a startup that never finishes', async () => {
    const closed: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('cache', () => ({ end: () => void closed.push('cache') }))
      // A connect that never answers, or a handler awaiting this very shutdown.
      .onStartup('db', () => new Promise<never>(() => {}))
      .onShutdown(({ cache }) => cache.end());
    void app.startup().catch(() => undefined);
    const started = Date.now();
    await app.shutdown();
    // Within the grace (5 s), then what startup made is released, and nothing else is waited for.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(closed).toEqual(['cache']);
  }, 15_000);

  it('never runs startup for a request that comes after shutdown', async () => {
    let startups = 0;
    const app = new RestApplication({ logger: silentLogger }).onStartup('db', () => ++startups);
    app.get('/', ({ db }) => ({ db }));
    app.shutdownSync();
    const response = await app.request('/');
    expect(response.statusCode).toBe(503);
    expect(startups).toBe(0);
  });

  it('startupSync and shutdownSync run synchronous handlers', () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('config', () => {
        events.push('start');
        return 1;
      })
      .onShutdown(({ config }) => {
        events.push(`stop ${config}`);
      });
    app.startupSync();
    app.startupSync();
    expect(app.started).toBe(true);
    app.shutdownSync();
    expect(events).toEqual(['start', 'stop 1']);
  });

  it('startupSync throws a clear error when a handler returns a promise, and startup() then finishes it', async () => {
    let calls = 0;
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('db', async () => {
        calls++;
        return 'pool';
      })
      .onStartup('cache', ({ db }) => `cache over ${db}`);
    app.get('/', ({ cache }) => cache);
    expect(() => app.startupSync()).toThrow(
      expect.objectContaining({
        code: 'SYNC_STARTUP_PROMISE',
        message:
          'Startup handler db returned a promise, so startupSync() cannot finish startup; it goes on asynchronously: await app.startup()',
      }),
    );
    // Following the advice works: the handler that already ran is not run again, its result
    // is kept, and the later handlers run after it.
    await app.startup();
    expect(app.started).toBe(true);
    expect(calls).toBe(1);
    expect((await app.request('/')).body).toBe('cache over pool');
    const shutdown = new RestApplication({ logger: silentLogger }).onShutdown(
      async () => undefined,
    );
    expect(() => shutdown.shutdownSync()).toThrow(/returned a promise/);
  });

  it('a startup handler may only inject earlier startup results and log', async () => {
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger }).onStartup(
      'x',
      ({ request }) => request,
    );
    await expect(app.startup()).rejects.toThrow(/"request" is not a startup result/);
  });
});
