/**
 * What `mount()` asks of a router's declared names (docs/application.md, "Routers and
 * mounting"): a name its type argument declares must be registered, with a type its handlers
 * take, by the application or router it is mounted on; the names it registers itself it brings
 * along. The `@ts-expect-error` lines are checked by `npm run typecheck`.
 */
import { describe, expect, it } from 'vitest';
import { RestApplication, Router, silentLogger } from '../../src/index.js';

type Store = Map<string, { url: string }>;

function bookmarksRouter() {
  const v1 = new Router<{ store: Store }>();
  v1.get('/bookmarks', ({ store }) => [...store.values()]);
  return v1;
}

describe('mount()', () => {
  it('refuses a router whose declared names the application lacks or types otherwise', () => {
    const v1 = bookmarksRouter();
    // @ts-expect-error: the application registers no `store`.
    new RestApplication({ logger: silentLogger }).mount('/api/v1', v1);
    const named = new Router<{ store: string }>();
    named.get('/name', ({ store }) => store.toUpperCase());
    const maps = new RestApplication({ logger: silentLogger }).onStartup(
      'store',
      () => new Map<string, string>(),
    );
    // @ts-expect-error: its `store` is a Map, the router's handlers take a string.
    maps.mount('/api', named);
    // @ts-expect-error: a router mounted on a router asks the same of it.
    new Router().mount('/v1', v1);
  });

  it('takes a router whose declared names are provided, and its own names wherever', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('store', (): Store => new Map([['1', { url: 'https://example.com' }]]))
      .mount('/api/v1', bookmarksRouter());
    const own = new Router().dependency('note', () => ({ text: 'hi' }));
    own.get('/note', ({ note }) => note);
    app.mount('/notes', own);
    // A router declaring `store` passes it on to the routers mounted on it.
    const outer = new Router<{ store: Store }>().mount('/v1', bookmarksRouter());
    app.mount('/outer', outer);
    // An index signature declares no names to check.
    const untyped = new Router<Record<string, unknown>>();
    app.mount('/untyped', untyped);
    expect((await app.request('/api/v1/bookmarks')).statusCode).toBe(200);
    expect((await app.request('/outer/v1/bookmarks')).statusCode).toBe(200);
    expect((await app.request('/notes/note')).statusCode).toBe(200);
  });
});
