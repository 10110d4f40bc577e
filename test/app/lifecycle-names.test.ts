/**
 * The names startup and shutdown handlers inject are checked when startup begins, before any
 * startup handler runs (docs/application.md#lifecycle): a mistake found at shutdown would come
 * too late to release what startup acquired.
 */
import { describe, expect, it } from 'vitest';
import { RestApplication, SetupError, silentLogger } from '../../src/index.js';
import { start } from '../adapters/node/helpers.js';

/** What `run` threw, so its code and message can be checked together. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('lifecycle handler names', () => {
  it('refuses a shutdown handler injecting a dependency() name before serving anything', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('config', () => {
        events.push('config loaded');
        return { ready: true };
      })
      .dependency('pool', () => ({ end: () => events.push('pool ended') }), { scope: 'session' })
      // @ts-expect-error: the types refuse it too: a dependency() is no startup result.
      .onShutdown(function endPool({ pool }) {
        pool.end();
      });
    app.get('/', ({ pool }) => ({ pooled: pool !== undefined }));

    const refusal = await start(app).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SetupError);
    expect((refusal as SetupError).code).toBe('UNKNOWN_DEPENDENCY');
    expect((refusal as SetupError).message).toBe(
      'Shutdown handler endPool: "pool" is not a startup result or "log"; "pool" is registered ' +
        'with dependency(), whose values are made per request or session, not at startup: ' +
        "register it with onStartup('pool', ...) to inject it here",
    );
    // Refused before the startup handlers ran: nothing was acquired that would need releasing.
    expect(events).toEqual([]);
    expect(app.started).toBe(false);
  });

  it('refuses a misspelt startup result in a shutdown handler, async and sync', async () => {
    let opened = 0;
    const build = () =>
      new RestApplication<Record<string, { close(): void }>>({ logger: silentLogger })
        .onStartup('db', () => {
          opened++;
          return { close: () => undefined };
        })
        .onShutdown(({ dB }) => dB?.close());

    await expect(build().startup()).rejects.toThrow(
      'Shutdown handler (anonymous): "dB" is not a startup result or "log"',
    );
    const error = thrownBy(() => build().startupSync());
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).code).toBe('UNKNOWN_DEPENDENCY');
    expect((error as SetupError).message).toContain('"dB" is not a startup result');
    expect(opened).toBe(0);
  });

  it('refuses, before any runs, a startup handler injecting a later startup result', async () => {
    const events: string[] = [];
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger })
      .onStartup('config', () => {
        events.push('config');
        return {};
      })
      .onStartup('db', ({ cache }) => {
        events.push('db');
        return { cache };
      })
      .onStartup('cache', () => {
        events.push('cache');
        return {};
      });
    await expect(app.startup()).rejects.toThrow(
      'Startup handler db: "cache" is not a startup result or "log"; "cache" is made by this ' +
        'startup handler or a later one: register its maker first',
    );
    expect(events).toEqual([]);
  });

  it('names what a request value or a validator is when a startup handler injects one', () => {
    const validated = new RestApplication<Record<string, unknown>>({ logger: silentLogger })
      .validates('order', ({ jsonBody }) => jsonBody)
      .onStartup('warmup', ({ order }) => order);
    expect(() => validated.startupSync()).toThrow(/"order" is registered with validates\(\)/);
    const requestValue = new RestApplication<Record<string, unknown>>({
      logger: silentLogger,
    }).onStartup('warmup', ({ headers }) => headers);
    expect(() => requestValue.startupSync()).toThrow(/"headers" is a value of each request$/);
  });

  it('checks a shutdown handler registered after startup when it is registered', async () => {
    const closed: unknown[] = [];
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger })
      .onStartup('db', () => 'connection')
      .dependency('pool', () => 'per session', { scope: 'session' });
    await app.startup();

    const error = thrownBy(() => app.onShutdown(({ pool }) => closed.push(pool)));
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).code).toBe('UNKNOWN_DEPENDENCY');
    expect((error as SetupError).message).toContain("register it with onStartup('pool', ...)");

    app.onShutdown(({ db, log }) => closed.push(db, typeof log.info));
    await app.shutdown();
    expect(closed).toEqual(['connection', 'function']);
  });

  it('refuses a startup handler registered once startup began, which would never run', async () => {
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger });
    await app.startup();
    expect(() => app.onStartup('cache', () => 'warm')).toThrow(/registered after startup began/);
    app.get('/cache', ({ cache }) => cache ?? 'none');
    // The refused name is not left registered without a value.
    expect((await app.request('/cache')).statusCode).toBe(500);
  });

  it('checks a shutdown handler registered while startup is still running', async () => {
    let release: () => void = () => undefined;
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger }).onStartup(
      'db',
      () => new Promise<string>((resolve) => (release = () => resolve('connection'))),
    );
    const running = app.startup();
    expect(() => app.onShutdown(({ dB }) => dB)).toThrow(/"dB" is not a startup result/);
    release();
    await running;
  });
});
