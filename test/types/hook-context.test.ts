/**
 * What a hook may inject, in types and at startup (docs/hooks-and-scope.md, "What hooks
 * inject"): a Standard Schema validator's name is left out of hook contexts, as the registry type
 * records it; function validators, `resourceExists` providers and authorization hooks are not
 * recorded as such, so their names type-check and startup refuses them (`INVALID_HOOK`). A body
 * name is refused at registration. The `@ts-expect-error` lines are checked by
 * `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { RestApplication, Router, SetupError, silentLogger } from '../../src/index.js';

function notesApp() {
  return new RestApplication({ logger: silentLogger })
    .validates('note', z.object({ text: z.string() }))
    .validates('page', z.object({ limit: z.string().optional() }), { source: 'queryParams' })
    .dependency('tenant', ({ headers }) => headers.get('x-tenant') ?? 'acme');
}

describe('hook contexts', () => {
  it("leave out a Standard Schema validator's name, and keep the other names", () => {
    const app = notesApp();
    app.onRequest(({ tenant, headers, pathParams }) => {
      expectTypeOf(tenant).toEqualTypeOf<string>();
      expectTypeOf(headers.get('x')).toEqualTypeOf<string | undefined>();
      expectTypeOf(pathParams).toEqualTypeOf<Record<string, string>>();
    });
    app
      .get('/notes/{id}', ({ note, page, id }) => ({ note, page, id }))
      .etag(({ mediaType, lambdaContext }) => {
        expectTypeOf(mediaType).toEqualTypeOf<string | undefined>();
        // The Lambda context as the runtime passes it, read without a cast.
        expectTypeOf(lambdaContext?.awsRequestId).toEqualTypeOf<string | undefined>();
        expectTypeOf(lambdaContext?.getRemainingTimeInMillis).toEqualTypeOf<
          (() => number) | undefined
        >();
        return mediaType === 'text/html' ? '1-html' : '1';
      })
      .onRequest(({ id, tenant }) => {
        expectTypeOf(id).toEqualTypeOf<string>();
        expectTypeOf(tenant).toEqualTypeOf<string>();
      })
      .onResponse(({ response, tenant }) => {
        response.headers.set('x-tenant', tenant);
      });
    const mistakes = () => {
      // @ts-expect-error: `note` validates the body, which hooks run before.
      app.onRequest(({ note }) => note);
      // @ts-expect-error: `page` is a validator too, whatever it reads.
      app.onResponse(({ page }) => page);
      // @ts-expect-error: and so in a route's own hooks.
      app.get('/x', () => 'x').onRequest(({ note }) => note);
      // @ts-expect-error: and in its onResponse hooks.
      app.get('/y', () => 'y').onResponse(({ page }) => page);
    };
    expectTypeOf(mistakes).toBeFunction();
  });

  it("refuses a validator's name at startup, and a body name at registration", async () => {
    const app = notesApp();
    app.get('/health', () => 'ok');
    // The cast stands for a hook the types cannot see through (a function validator's name).
    app.onRequest((({ note }: { note: unknown }) => void note) as () => void);
    await expect(app.startup()).rejects.toMatchObject({ code: 'INVALID_HOOK' });

    // @ts-expect-error: hooks run before the body is read.
    expect(() => notesApp().onRequest(({ jsonBody }) => jsonBody)).toThrow(SetupError);
  });

  it('keeps function validators, resourceExists and authorization names out as well', async () => {
    const validated = new RestApplication({ logger: silentLogger }).validates(
      'input',
      ({ queryParams }) => queryParams,
    );
    // @ts-expect-error: a function validator runs before authorization.
    validated.onRequest(({ input }) => void input);
    const found = new RestApplication({ logger: silentLogger }).resourceExists('input', () => 1);
    // @ts-expect-error: a resourceExists provider runs code meant for the handler.
    found.onRequest(({ input }) => void input);
    const guarded = new RestApplication({ logger: silentLogger }).authorized('input', () => 'u');
    // @ts-expect-error: an authorization hook's name.
    guarded.onResponse(({ input }) => void input);
    const refused = new Router().forbidden('input', () => false);
    // @ts-expect-error: a forbidden() hook's name, on a router.
    refused.onRequest(({ input }) => void input);
    // The same names stay a handler's to inject, and the hooks keep every other name.
    const both = new RestApplication({ logger: silentLogger })
      .authorized('input', () => 'u')
      .dependency('tenant', () => 'acme');
    both.onRequest(({ tenant }) => {
      expectTypeOf(tenant).toEqualTypeOf<string>();
    });
    both.get('/', ({ input, tenant }) => `${input}${tenant}`);
    // Startup still refuses them when types are not there to (plain JavaScript, a cast).
    for (const app of [validated, found, guarded]) {
      app.get('/', () => 'ok');
      await expect(app.startup()).rejects.toMatchObject({ code: 'INVALID_HOOK' });
    }
  });
});
