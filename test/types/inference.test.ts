/**
 * Type tests: `npm run typecheck` fails if the inference the API promises stops holding. The
 * runtime part only checks that the examples run.
 */
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import {
  type MultiValueHeaders,
  type PathParamNames,
  type Request,
  RestApplication,
  Router,
  silentLogger,
} from '../../src/index.js';

describe('type inference', () => {
  it('infers path parameters from the route string', () => {
    expectTypeOf<PathParamNames<'/users/{id}/posts/{postId}'>>().toEqualTypeOf<'id' | 'postId'>();
    expectTypeOf<PathParamNames<'/files/{path*}'>>().toEqualTypeOf<'path'>();
    expectTypeOf<PathParamNames<'/plain'>>().toEqualTypeOf<never>();
    const app = new RestApplication({ logger: silentLogger });
    app.get('/users/{id}/posts/{postId}', ({ id, postId, pathParams }) => {
      expectTypeOf(id).toEqualTypeOf<string>();
      expectTypeOf(postId).toEqualTypeOf<string>();
      expectTypeOf(pathParams).toEqualTypeOf<{ id: string; postId: string }>();
      return null;
    });
    // @ts-expect-error: `idd` is not a parameter of this route nor a registered name.
    app.get('/users/{id}', ({ idd }) => idd);
  });

  it('types registered dependencies, validators, resources and startup results', () => {
    const app = new RestApplication({ logger: silentLogger })
      .dependency('count', () => 42)
      .dependency('user', async () => ({ name: 'ada' }))
      .validates('bookmark', z.object({ url: z.string() }))
      .validates('page', v.object({ page: v.string() }), { source: 'queryParams' })
      .validates('range', () => ({ from: 1, to: 2 }))
      .resourceExists('item', async (): Promise<{ id: string } | null> => null)
      .onStartup('db', async () => ({ query: (sql: string) => sql.length }));
    app.get('/', ({ count, user, bookmark, page, range, item, db, request, headers }) => {
      expectTypeOf(count).toEqualTypeOf<number>();
      expectTypeOf(user).toEqualTypeOf<{ name: string }>();
      expectTypeOf(bookmark).toEqualTypeOf<{ url: string }>();
      expectTypeOf(page).toEqualTypeOf<{ page: string }>();
      expectTypeOf(range).toEqualTypeOf<{ from: number; to: number }>();
      expectTypeOf(item).toEqualTypeOf<{ id: string }>();
      expectTypeOf(db.query).toEqualTypeOf<(sql: string) => number>();
      expectTypeOf(request).toEqualTypeOf<Request>();
      expectTypeOf(headers).toEqualTypeOf<MultiValueHeaders>();
      return null;
    });
    // A Fetch runtime's arguments: whatever the runtime passes, so nothing is assumed of them.
    app.get('/runtime', ({ fetchEnv, fetchContext, lambdaEvent }) => {
      expectTypeOf(fetchEnv).toEqualTypeOf<unknown>();
      expectTypeOf(fetchContext).toEqualTypeOf<unknown>();
      expectTypeOf(lambdaEvent).toEqualTypeOf<unknown>();
      return null;
    });
    // @ts-expect-error: `missing` was never registered.
    app.get('/x', ({ missing }) => missing);
  });

  it('registers a name a generic helper was given, as a plugin of shared dependencies does', async () => {
    function withClock<Name extends string>(app: RestApplication, name: Name) {
      return app.dependency(name, () => 1_700_000_000_000);
    }
    function guarded<Name extends string>(router: Router, name: Name) {
      return router.authorized(name, () => true);
    }
    const app = withClock(new RestApplication({ logger: silentLogger }), 'now');
    app.get('/now', ({ now }) => {
      expectTypeOf(now).toEqualTypeOf<number>();
      return now;
    });
    guarded(new Router(), 'user');
    expect((await app.request('/now')).body).toBe('1700000000000');
  });

  it('lets providers inject earlier registrations, and routers declare what they use', () => {
    const app = new RestApplication({ logger: silentLogger })
      .dependency('base', () => 2)
      .dependency('double', ({ base }) => base * 2);
    app.get('/', ({ double }) => {
      expectTypeOf(double).toEqualTypeOf<number>();
      return double;
    });
    const router = new Router<{ base: number }>();
    router.get('/r/{id}', ({ base, id }) => {
      expectTypeOf(base).toEqualTypeOf<number>();
      expectTypeOf(id).toEqualTypeOf<string>();
      return base;
    });
    app.mount('/api', router);
    const fromApp = new Router(app);
    fromApp.get('/typed', ({ double }) => {
      expectTypeOf(double).toEqualTypeOf<number>();
      return double;
    });
    // @ts-expect-error: the application registered no `triple`.
    fromApp.get('/untyped', ({ triple }) => triple);
  });

  it('types resourceExists() as its JSDoc example writes it: path parameters by pathParams', () => {
    const store = new Map([['1', { url: 'https://example.com' }]]);
    const app = new RestApplication({ logger: silentLogger })
      .dependency('store', () => store)
      .resourceExists('bookmark', ({ store, pathParams }) => store.get(pathParams.id ?? ''));
    app.get('/bookmarks/{id}', ({ bookmark }) => {
      expectTypeOf(bookmark).toEqualTypeOf<{ url: string }>();
      return bookmark;
    });
    // @ts-expect-error: a provider registered on the application sees no path parameter by name.
    app.resourceExists('other', ({ store, id }) => store.get(id));
  });

  it('types error handlers and renderers', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.errorHandler(404, ({ error }) => {
      expectTypeOf(error.statusCode).toEqualTypeOf<number>();
      expectTypeOf(error.path).toEqualTypeOf<string>();
      return null;
    });
    app.provides('text/csv', ({ result }) => {
      expectTypeOf(result).toEqualTypeOf<unknown>();
      return '';
    });
  });
});
