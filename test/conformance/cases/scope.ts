/**
 * Scope and hooks through every driver (docs/hooks-and-scope.md): what a router registers
 * applies to every route under it and is visible there only; `.public()`; the innermost error
 * handler; `onRequest` / `onResponse` at every level, for routed and unrouted requests.
 */
import { expect } from 'vitest';
import { HttpError, RestApplication, Router, silentLogger } from '../../../src/index.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

const ORIGIN = 'https://app.example';
const NOTES = new Map([['1', 'secret note']]);

function buildApp() {
  const app = new RestApplication({
    logger: silentLogger,
    wwwAuthenticate: 'Bearer realm="scope"',
  });
  app.onRequest(({ headers }) => {
    if (headers.get('x-maintenance') === 'on') return ['Back soon', 503, { 'Retry-After': '60' }];
  });
  app.onResponse(({ response }) => {
    response.headers.set('X-App-Hook', String(response.statusCode));
  });
  app.get('/health', () => ({ ok: true }));

  // The trap: the handler injects `note`, never `user`; the router's hook guards it anyway.
  const notes = new Router()
    .authorized('user', ({ headers }) =>
      headers.get('authorization') === 'Bearer ada' ? { name: 'ada' } : null,
    )
    .dependency('label', () => 'notes')
    .errorHandler(404, ({ label }) => ({ missing: label }))
    .cors({ origin: ORIGIN })
    .onRequest(({ headers }) => {
      if (headers.has('x-router-stop')) throw new HttpError(429, 'Slow down');
    })
    .onResponse(({ response, label }) => {
      response.headers.set('X-Router-Hook', label);
    });
  notes.get('/{id}', ({ id }) => {
    const note = NOTES.get(id);
    if (note === undefined) throw new HttpError(404);
    return { id, note };
  });
  notes.put('/{id}', ({ id }) => ({ id }));
  notes.get('/about', () => 'about notes').public();

  // A sibling registering the same name gets its own value.
  const tags = new Router().dependency('label', () => 'tags');
  tags.get('/', ({ label }) => ({ label }));

  // A public router inside a router whose hook lets nobody in.
  const assets = new Router().public();
  assets.get('/logo.txt', () => 'logo');
  const site = new Router().authorized('nobody', () => false);
  site.get('/private.txt', () => 'private');
  site.mount('/assets', assets);

  app.mount('/notes', notes).mount('/tags', tags).mount('/site', site);
  return app;
}

export const scopeCases: CasesModule = {
  title: 'scope and hooks',
  app: buildApp,
  cases(context) {
    conformanceTest(
      context,
      "a router's authorized hook guards every route under it",
      async (send) => {
        const anonymous = await send(get('/notes/1'));
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="scope"');
        expect(anonymous.text()).not.toContain('secret');
        const ada = await send(get('/notes/1', { Authorization: 'Bearer ada' }));
        expect(ada.status).toBe(200);
        expect(ada.json()).toEqual({ id: '1', note: 'secret note' });
      },
    );

    conformanceTest(
      context,
      "a router's hook does not guard the application's other routes",
      async (send) => {
        expect((await send(get('/health'))).status).toBe(200);
      },
    );

    conformanceTest(context, 'sibling routers may register the same name', async (send) => {
      expect((await send(get('/tags'))).json()).toEqual({ label: 'tags' });
    });

    conformanceTest(context, 'route.public() and router.public() are exempt', async (send) => {
      expect((await send(get('/notes/about'))).status).toBe(200);
      expect((await send(get('/site/assets/logo.txt'))).status).toBe(200);
      expect((await send(get('/site/private.txt'))).status).toBe(401);
    });

    conformanceTest(
      context,
      "a router's error handler answers its routes' errors",
      async (send) => {
        const missing = await send(get('/notes/9', { Authorization: 'Bearer ada' }));
        expect(missing.status).toBe(404);
        expect(missing.json()).toEqual({ missing: 'notes' });
        const unrouted = await send(get('/nothing'));
        expect(unrouted.status).toBe(404);
        expect((unrouted.json() as { statusCode: number }).statusCode).toBe(404);
      },
    );

    conformanceTest(
      context,
      'an app-level onRequest may end any request, routed or not',
      async (send) => {
        for (const path of ['/health', '/nothing', '/notes/1']) {
          const response = await send(get(path, { 'X-Maintenance': 'on' }));
          expect(response.status).toBe(503);
          expect(response.headers.get('retry-after')).toBe('60');
          expect(response.text()).toBe('Back soon');
        }
      },
    );

    conformanceTest(context, "a router's onRequest runs before its authorization", async (send) => {
      const response = await send(get('/notes/1', { 'X-Router-Stop': '1' }));
      expect(response.status).toBe(429);
    });

    conformanceTest(
      context,
      'onResponse hooks see every response, innermost first',
      async (send) => {
        const routed = await send(get('/notes/1', { Authorization: 'Bearer ada' }));
        expect(routed.headers.get('x-router-hook')).toBe('notes');
        expect(routed.headers.get('x-app-hook')).toBe('200');
        const denied = await send(get('/notes/1'));
        expect(denied.headers.get('x-app-hook')).toBe('401');
        expect((await send(get('/nothing'))).headers.get('x-app-hook')).toBe('404');
        const notAllowed = await send({ method: 'DELETE', path: '/health' });
        expect(notAllowed.status).toBe(405);
        expect(notAllowed.headers.get('x-app-hook')).toBe('405');
        const notAcceptable = await send(get('/health', { Accept: 'image/png' }));
        expect(notAcceptable.status).toBe(406);
        expect(notAcceptable.headers.get('x-app-hook')).toBe('406');
      },
    );

    conformanceTest(
      context,
      'a CORS preflight runs the hooks, never authorization',
      async (send) => {
        const preflight = await send({
          method: 'OPTIONS',
          path: '/notes/1',
          headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT' },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
        expect(preflight.headers.get('x-router-hook')).toBe('notes');
        expect(preflight.headers.get('x-app-hook')).toBe('204');
      },
    );
  },
};
