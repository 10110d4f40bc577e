/**
 * Type tests for scope and hooks: a router's names are typed for its own handlers, chained
 * registration widens the type, and a hook's injected names are checked.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type NotForHooks,
  type Response,
  RestApplication,
  Router,
  silentLogger,
} from '../../src/index.js';

describe('scope and hook types', () => {
  it("types a router's own names for its handlers; chained registration widens the type", () => {
    const notes = new Router()
      .authorized('user', async () => ({ name: 'ada' }) as { name: string } | null)
      .dependency('store', () => new Map<string, string>())
      .forbidden('readOnly', ({ user }) => user.name !== 'ada');
    // Each authorization name is also recorded as one no hook may inject.
    expectTypeOf(notes).toEqualTypeOf<
      Router<
        { user: { name: string } } & NotForHooks<'user'> & { store: Map<string, string> } & {
            readOnly: false;
          } & NotForHooks<'readOnly'>
      >
    >();
    notes.get('/{id}', ({ user, store, id }) => {
      expectTypeOf(user).toEqualTypeOf<{ name: string }>();
      expectTypeOf(store).toEqualTypeOf<Map<string, string>>();
      return store.get(id) ?? null;
    });
    // @ts-expect-error: `missing` is registered nowhere.
    notes.get('/x', ({ missing }) => missing);

    const app = new RestApplication({ logger: silentLogger }).mount('/notes', notes);
    // @ts-expect-error: the router's names are not the application's.
    app.get('/elsewhere', ({ store }) => store);
  });

  it('keeps the application type through chained registrations', () => {
    const app = new RestApplication({ logger: silentLogger })
      .dependency('count', () => 1)
      .authorized('user', () => 'ada' as string | undefined);
    expectTypeOf(app).toEqualTypeOf<
      RestApplication<{ count: number } & { user: string } & NotForHooks<'user'>>
    >();
    expectTypeOf(app.startup).toBeFunction();
    app.get('/', ({ count, user }) => `${user}${count}`);
  });

  it("checks a hook's injected names", () => {
    const app = new RestApplication({ logger: silentLogger }).dependency('tenant', () => 'acme');
    app.onRequest(({ tenant, headers, pathParams, requestId }) => {
      expectTypeOf(tenant).toEqualTypeOf<string>();
      expectTypeOf(pathParams).toEqualTypeOf<Record<string, string>>();
      expectTypeOf(requestId).toEqualTypeOf<string>();
      return headers.has('x') ? ['no', 400] : undefined;
    });
    app.onResponse(({ response, elapsedMs }) => {
      expectTypeOf(response).toEqualTypeOf<Response>();
      expectTypeOf(elapsedMs).toEqualTypeOf<number>();
    });
    // Type errors only: registering these would also fail at run time.
    const mistakes = () => {
      // @ts-expect-error: hooks run before the body is read.
      app.onRequest(({ jsonBody }) => jsonBody);
      // @ts-expect-error: `nothing` is not registered.
      app.onRequest(({ nothing }) => nothing);
      // @ts-expect-error: `response` is for onResponse hooks only.
      app.onRequest(({ response }) => response);
    };
    expectTypeOf(mistakes).toBeFunction();

    app
      .get('/users/{id}', ({ id }) => id)
      .onRequest(({ id, tenant }) => {
        expectTypeOf(id).toEqualTypeOf<string>();
        expectTypeOf(tenant).toEqualTypeOf<string>();
      });
    // @ts-expect-error: the route has no `{name}` parameter.
    app.get('/users/{id}', ({ id }) => id).onRequest(({ name }) => name);
  });
});
