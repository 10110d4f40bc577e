/**
 * What a startup or shutdown handler may inject, in types as at startup (docs/application.md,
 * "Lifecycle"): `log` and the startup results registered before it; a dependency's, a
 * validator's or a request value's name is a compile error, as it is `UNKNOWN_DEPENDENCY` at
 * startup. The `@ts-expect-error` lines are checked by `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { type Logger, RestApplication, type StartupResult, silentLogger } from '../../src/index.js';

describe('lifecycle handler contexts', () => {
  it('hold log and the startup results registered before', () => {
    const closed: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .dependency('clock', () => Date.now())
      .onStartup('db', () => ({ close: () => closed.push('db') }))
      .onStartup('cache', ({ db, log }) => {
        expectTypeOf(db).toEqualTypeOf<{ close: () => number }>();
        expectTypeOf(log).toEqualTypeOf<Logger>();
        return new Map<string, string>();
      })
      .onShutdown(({ db, cache }) => {
        cache.clear();
        db.close();
      });
    app.startupSync();
    app.shutdownSync();
    expect(closed).toEqual(['db']);
  });

  it('refuse every other registered name', () => {
    const app = new RestApplication({ logger: silentLogger })
      .dependency('clock', () => Date.now())
      .validates('input', z.object({ a: z.string() }));
    // @ts-expect-error: a dependency() is made per request or session, not at startup.
    app.onStartup('ticks', ({ clock }) => clock);
    // @ts-expect-error: a validator reads a request's body.
    app.onStartup('sample', ({ input }) => input);
    // @ts-expect-error: a request value does not exist at startup.
    app.onStartup('agent', ({ headers }) => headers);
    // @ts-expect-error: nor at shutdown.
    app.onShutdown(({ clock }) => clock);
    // @ts-expect-error: a startup result made later is not there yet.
    app.onStartup('first', ({ second }) => second).onStartup('second', () => 2);
    expect(() => app.startupSync()).toThrow(/"clock" is not a startup result/);
  });

  it('keep the names of a declared registry tagged as startup results, or of an untyped one', () => {
    type Db = { close(): void };
    const declared = new RestApplication<{ db: Db } & StartupResult<'db'>>({
      logger: silentLogger,
    });
    declared.onShutdown(({ db }) => expectTypeOf(db).toEqualTypeOf<Db>());
    const untyped = new RestApplication<Record<string, unknown>>({ logger: silentLogger });
    untyped.onShutdown(({ db }) => expectTypeOf(db).toEqualTypeOf<unknown>());
  });
});
