/**
 * Type tests: handler results JSON cannot represent (a Map, a Set, a function, a symbol, a
 * bigint) do not compile where TypeScript can see them (docs/application.md, "Handler results").
 * `npm run typecheck` fails if an `@ts-expect-error` below stops being an error.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type Representable,
  Response,
  RestApplication,
  Router,
  silentLogger,
} from '../../src/index.js';

class Note {
  constructor(readonly title: string) {}
  shout(): string {
    return this.title.toUpperCase();
  }
}

describe('handler result types', () => {
  it('refuse what JSON cannot represent', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: a Map is sent as {}.
    app.get('/map', () => new Map([['a', 1]]));
    // @ts-expect-error: a Set is sent as {}, even from an async handler.
    app.get('/set', async () => new Set([1]));
    // @ts-expect-error: a function is sent as nothing (a forgotten call).
    app.get('/function', () => () => 1);
    // @ts-expect-error: a symbol is sent as nothing.
    app.post('/symbol', () => Symbol('x'));
    // @ts-expect-error: JSON cannot encode a bigint.
    app.put('/bigint', () => 1n);
    // @ts-expect-error: the body of a tuple is checked too.
    app.patch('/tuple', () => [new Map(), 201]);
    // @ts-expect-error: so is a result that is sometimes a Map.
    app.delete('/sometimes/{id}', ({ id }) => (id ? new Map() : { id }));
    const router = new Router();
    // @ts-expect-error: routers check the same way.
    router.route('GET', '/set', () => new Set<string>());
  });

  it('accept everything else, including class instances and values it cannot see into', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/object/{id}', ({ id }) => ({ id }));
    app.get('/nothing', () => null);
    app.get('/text', () => 'hi');
    app.get('/tuple', () => [{ id: 1 }, 201, { Location: '/object/1' }]);
    app.get('/instance', () => new Note('a'));
    app.get('/date', () => new Date(0));
    app.get('/bytes', () => new Uint8Array(2));
    app.get('/response', () => new Response(200, 'x'));
    app.get('/async', async ({ headers }) => (headers.has('x') ? null : [1, 2]));
    app.get('/unknown', (): unknown => new Map());
    app.get('/parsed', () => JSON.parse('{}'));
    // `any` awaited or as members: what JSON.parse, response.json() and database rows give.
    // biome-ignore lint/suspicious/noExplicitAny: what these handlers return is the point.
    const rows: any[] = [];
    app.get('/parsed-async', async () => JSON.parse('{}'));
    app.get('/rows', () => rows);
    app.get('/rows-async', async () => rows);
    app.get('/rows-tuple', async () => [rows, 200]);
    // biome-ignore lint/suspicious/noExplicitAny: what response.json() gives with the DOM types.
    const json = async (): Promise<any> => ({});
    app.get('/json', async () => json());
    expect(app.routes).toHaveLength(16);
  });

  it('keep functions out of a Response body, and take data of every shape', () => {
    // @ts-expect-error: a function body would be sent as nothing, or as its source code.
    new Response(200, function secret() {
      return 'db-password';
    });
    // @ts-expect-error: a class is a function too.
    new Response(200, Note);
    interface Row {
      id: number;
    }
    const row: Row = { id: 1 };
    const bodies = [
      new Response(200, { ok: true, call: 'a field named like a method' }),
      new Response(200, row),
      new Response(200, new Note('a')),
      new Response(200, [1, 2]),
      new Response(200, 'text'),
      new Response(200, new Uint8Array(1)),
    ];
    expect(bodies).toHaveLength(6);
  });

  it('still refuses what it can see next to an any', () => {
    const app = new RestApplication({ logger: silentLogger });
    // biome-ignore lint/suspicious/noExplicitAny: an any beside what TypeScript can see.
    const rows: any[] = [];
    // @ts-expect-error: a Set beside any rows is still a Set.
    app.get('/set-or-rows', ({ headers }) => (headers.has('x') ? new Set([1]) : rows));
    // @ts-expect-error: an array of Maps, awaited.
    app.get('/maps', async () => [new Map<string, number>()]);
    expect(app.routes).toHaveLength(2);
  });

  it('names the mistake in the error', () => {
    expectTypeOf<Representable<{ id: string }>>().toEqualTypeOf<unknown>();
    // biome-ignore lint/suspicious/noExplicitAny: the awaited any a handler may return.
    expectTypeOf<Representable<Promise<any>>>().toEqualTypeOf<unknown>();
    // biome-ignore lint/suspicious/noExplicitAny: rows as database drivers type them.
    expectTypeOf<Representable<any[]>>().toEqualTypeOf<unknown>();
    expectTypeOf<Representable<Promise<Set<number>>>>().toEqualTypeOf<{
      'A handler cannot return a Map, Set, function, symbol or bigint: JSON has no representation for it (docs/application.md, "Handler results")': Set<number>;
    }>();
  });
});
